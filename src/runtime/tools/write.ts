// Write {file_path, content}: create or replace a file (parent directories created). Refused under
// the team's own directories (paths.ts) before the permission gate is even asked, and again after
// opening when the file is one of them by another name or has other hard links (checked-file.ts).
// Writing agent configuration (agent-config.ts) asks team-lead in every mode but plan; writing a
// credential file (secrets.ts) reveals nothing and is gated like any write. A team memory file
// (memory.ts) is written without a question in every mode but plan; anything else in that directory is refused.
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { configSummary } from './agent-config.js';
import { writeChecked } from './checked-file.js';
import { defineTool } from './types.js';

const WriteInput = z.object({
  file_path: z.string().min(1).describe('Path of the file (absolute, or relative to your working directory)'),
  content: z.string().describe('The whole new content of the file'),
});

export const writeTool = defineTool({
  name: 'Write',
  kind: 'edit',
  description: 'Create a file, or replace its whole content. Prefer Edit for changes to an existing file.',
  schema: WriteInput,
  prepare: async (input, ctx) => {
    const { abs, real } = await ctx.guard.resolve(input.file_path);
    const st = await fs.stat(real).catch(() => undefined);
    if (st?.isDirectory()) throw new SwarmError('invalid_input', `${abs} is a directory`);
    const configures = await ctx.agentConfig.configures(abs, real);
    const savesMemory = (await ctx.memory?.saves(input.file_path, ctx.cwd, abs, real)) === true;
    return {
      summary: configSummary(input.file_path, configures),
      targetPath: real,
      ...(configures !== undefined ? { configures } : {}),
      ...(savesMemory ? { savesMemory } : {}),
      execute: async () => {
        await writeChecked(ctx.guard, real, abs, input.content);
        const lines = input.content === '' ? 0 : input.content.split('\n').length;
        return { content: `${st ? 'Updated' : 'Created'} ${abs} (${lines} lines, ${input.content.length} chars)` };
      },
    };
  },
});
