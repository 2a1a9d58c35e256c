// Bash {command, timeout?, description?}: runs in the teammate's cwd, in its own process group
// (process-groups.ts), with a timeout (default 2 min, max 10 min) and an output cap (30 000 chars,
// head and tail kept, the cut said). A non-zero exit, a timeout or a kill is an is_error result
// carrying the output. The environment is the teammate's minus the model credentials.
import * as z from 'zod';
import { defineTool } from './types.js';

export const DEFAULT_TIMEOUT_MS = 120_000;
export const MAX_TIMEOUT_MS = 600_000;
export const MAX_OUTPUT_CHARS = 30_000;

const BashInput = z.object({
  command: z.string().min(1).describe('The shell command to run'),
  timeout: z.number().int().positive().max(MAX_TIMEOUT_MS).optional().describe(`Timeout in milliseconds (max ${MAX_TIMEOUT_MS})`),
  description: z.string().optional().describe('What the command does, in 5-10 words (shown to the team lead when asking)'),
});

export const bashTool = defineTool({
  name: 'Bash',
  kind: 'exec',
  description:
    'Run a shell command in your working directory (bash -c). Output (stdout and stderr together) is capped at ' +
    `${MAX_OUTPUT_CHARS} characters. Default timeout ${DEFAULT_TIMEOUT_MS / 1000}s. Prefer Read/Glob/Grep/Edit/Write for files. ` +
    'Background processes you start keep running until you exit.',
  schema: BashInput,
  prepare: async (input, ctx) => ({
    summary: input.command,
    execute: async (signal) => {
      const r = await ctx.processes.run(input.command, {
        cwd: ctx.cwd,
        env: ctx.shellEnv,
        timeoutMs: input.timeout ?? DEFAULT_TIMEOUT_MS,
        maxOutput: MAX_OUTPUT_CHARS,
        signal,
      });
      const notes: string[] = [];
      if (r.truncated > 0) notes.push(`(output truncated: ${r.truncated} characters cut from the middle)`);
      if (r.timedOut) notes.push(`Command timed out after ${Math.round((input.timeout ?? DEFAULT_TIMEOUT_MS) / 1000)}s and was killed`);
      else if (r.aborted) notes.push('Command interrupted: the teammate is stopping');
      else if (r.signal) notes.push(`Killed by ${r.signal}`);
      else if (r.exitCode !== 0) notes.push(`Exit code ${r.exitCode}`);
      if (r.leftRunning) notes.push('(background processes it started are still running)');
      const body = r.output.trimEnd() === '' ? '(no output)' : r.output.trimEnd();
      const isError = r.timedOut || r.aborted || r.signal !== null || r.exitCode !== 0;
      return { content: [body, ...notes].join('\n'), isError };
    },
  }),
});
