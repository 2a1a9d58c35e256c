// Grep {pattern, path?, glob?, output_mode?, -i?, -n?, head_limit?}: a JavaScript regular expression
// searched line by line in the files under `path` (a file or a directory, default the cwd),
// skipping .git, node_modules, hidden directories (as ripgrep does; name one in `glob` to search it),
// binary files, files over 10 MB and the team's own directories (and files, hard links included).
// `glob` filters files (`*.ts` matches at any depth; a pattern with `/` matches the relative path).
// output_mode: files_with_matches (default; newest first) | content (`file:line:text`, line numbers
// unless -n is false) | count (`file:N`). Output is capped like Bash's.
// Protected files (secrets.ts): a `path` that is one (or lies in a protected directory) asks
// team-lead first, in every mode; searching a wider tree leaves them out unless a team rule allows
// them, and the result ends with a line naming them (Read asks for one).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { MAX_OUTPUT_CHARS } from './bash.js';
import { searchDir, skipper } from './glob.js';
import { compileGlob } from '../../protocol/glob.js';
import { evaluate } from '../../permissions/rules.js';
import { OutputCap } from './process-groups.js';
import { isTeamFileByAnotherName } from './checked-file.js';
import { looksBinary } from './read.js';
import { protectedSummary } from './secrets.js';
import { defineTool, type ToolContext } from './types.js';
import { walkFiles, type WalkedFile } from './walk.js';

const MAX_FILE_BYTES = 10 * 1024 * 1024;
const MAX_LINE = 500;

const GrepInput = z.object({
  pattern: z.string().min(1).describe('JavaScript regular expression'),
  path: z.string().optional().describe('File or directory to search (default: your working directory)'),
  glob: z.string().optional().describe('Only files matching this glob, e.g. "*.ts" or "src/**/*.tsx"'),
  output_mode: z.enum(['content', 'files_with_matches', 'count']).optional().describe('Default files_with_matches'),
  '-i': z.boolean().optional().describe('Case-insensitive'),
  '-n': z.boolean().optional().describe('Line numbers in content mode (default true)'),
  head_limit: z.number().int().positive().optional().describe('Only the first N lines/files of the output'),
});
type GrepInput = z.infer<typeof GrepInput>;

const MAX_NAMED_SKIPS = 3;

/** The files to search, and the protected ones left out (the call itself was not about them). */
async function targets(ctx: ToolContext, input: GrepInput, signal: AbortSignal): Promise<{ files: WalkedFile[]; withheld: string[] }> {
  const { abs, real } = await ctx.guard.resolve(input.path ?? '.', 'path');
  const st = await fs.stat(real).catch(() => undefined);
  if (!st) throw new SwarmError('not_found', `path does not exist: ${abs}`);
  if (st.isFile()) return { files: [{ abs: real, rel: path.basename(real) }], withheld: [] };
  const dir = await searchDir(ctx.guard, input.path);
  const walked = await walkFiles(dir, { skipDir: skipper(ctx.guard, input.glob ?? ''), signal });
  const match = input.glob ? compileGlob(input.glob.includes('/') ? input.glob : `**/${input.glob}`) : () => true;
  const picked = walked.files.filter((f) => match(f.rel));
  // Asked (or allowed) for a protected directory: everything in it was part of the question.
  if (ctx.secrets.match(abs, real) !== undefined) return { files: picked, withheld: [] };
  const secret = picked.filter((f) => ctx.secrets.match(f.abs) !== undefined);
  if (secret.length === 0) return { files: picked, withheld: [] };
  const rules = await ctx.teamRules();
  const allowed = (f: WalkedFile): boolean => {
    try {
      return evaluate(rules, { toolName: 'Grep', input: { path: f.abs }, cwd: ctx.cwd }) === 'allow';
    } catch {
      return false; // a malformed rule allows nothing
    }
  };
  const withheld = new Set(secret.filter((f) => !allowed(f)).map((f) => f.abs));
  return { files: picked.filter((f) => !withheld.has(f.abs)), withheld: [...withheld] };
}

/** One line naming the protected files a search left out, or undefined. */
function withheldNote(withheld: readonly string[]): string | undefined {
  if (withheld.length === 0) return undefined;
  const named = withheld.slice(0, MAX_NAMED_SKIPS).join(', ');
  const more = withheld.length > MAX_NAMED_SKIPS ? ` and ${withheld.length - MAX_NAMED_SKIPS} more` : '';
  return `(not searched: ${withheld.length} protected file${withheld.length === 1 ? '' : 's'} (credentials): ${named}${more}; Read one to ask team-lead)`;
}

function withNote(text: string, note: string | undefined): string {
  return note === undefined ? text : `${text}\n${note}`;
}

function compile(input: GrepInput): RegExp {
  try {
    return new RegExp(input.pattern, input['-i'] ? 'i' : '');
  } catch (e) {
    throw new SwarmError('invalid_input', `pattern is not a valid JavaScript regular expression: ${(e as Error).message}`);
  }
}

export const grepTool = defineTool({
  name: 'Grep',
  kind: 'read',
  description:
    'Search file contents with a JavaScript regular expression. output_mode "files_with_matches" (default) lists files, ' +
    '"content" shows matching lines (file:line:text), "count" shows matches per file. Filter files with glob.',
  schema: GrepInput,
  prepare: async (input, ctx) => {
    const re = compile(input);
    const { abs, real } = await ctx.guard.resolve(input.path ?? '.', 'path');
    const secret = ctx.secrets.match(abs, real);
    if (input.glob) compileGlob(input.glob);
    const mode = input.output_mode ?? 'files_with_matches';
    return {
      summary: `${input.pattern}${input.path ? ` in ${protectedSummary(input.path, secret)}` : ''}${input.glob ? ` (${input.glob})` : ''}`,
      ...(secret !== undefined ? { secret } : {}),
      execute: async (signal) => {
        const { files, withheld } = await targets(ctx, input, signal);
        const note = withheldNote(withheld);
        const cap = new OutputCap(MAX_OUTPUT_CHARS);
        const limit = input.head_limit ?? Infinity;
        let emitted = 0;
        const matched: { abs: string; mtime: number }[] = [];
        for (const f of files) {
          if (emitted >= limit) break;
          signal.throwIfAborted();
          const st = await fs.stat(f.abs).catch(() => undefined);
          if (!st || st.size > MAX_FILE_BYTES || (await isTeamFileByAnotherName(ctx.guard, st))) continue;
          const buf = await fs.readFile(f.abs).catch(() => undefined);
          if (!buf || looksBinary(buf)) continue;
          const lines = buf.toString('utf8').split('\n');
          let count = 0;
          for (let i = 0; i < lines.length; i++) {
            if (!re.test(lines[i]!)) continue;
            count++;
            if (mode === 'content' && emitted < limit) {
              const line = lines[i]!.length > MAX_LINE ? `${lines[i]!.slice(0, MAX_LINE)}…` : lines[i]!;
              cap.push(`${f.abs}:${input['-n'] === false ? '' : `${i + 1}:`}${line}\n`);
              emitted++;
            }
          }
          if (count === 0) continue;
          if (mode === 'count' && emitted < limit) {
            cap.push(`${f.abs}:${count}\n`);
            emitted++;
          }
          if (mode === 'files_with_matches') matched.push({ abs: f.abs, mtime: st.mtimeMs });
        }
        if (mode === 'files_with_matches') {
          matched.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
          const shown = matched.slice(0, Number.isFinite(limit) ? limit : undefined);
          for (const m of shown) cap.push(`${m.abs}\n`);
          if (shown.length === 0) return { content: withNote('No matches found', note) };
          return { content: withNote(`Found ${matched.length} file${matched.length === 1 ? '' : 's'}\n${cap.text().trimEnd()}`, note) };
        }
        const text = cap.text().trimEnd();
        if (text === '') return { content: withNote('No matches found', note) };
        return { content: withNote(cap.dropped > 0 ? `${text}\n(output truncated: ${cap.dropped} characters cut)` : text, note) };
      },
    };
  },
});
