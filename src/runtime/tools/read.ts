// Read {file_path, offset?, limit?}: a text file as `cat -n` prints it (line number, tab, line),
// from line `offset` (1-based) for `limit` lines (default 2000); lines longer than 2000 characters
// are cut. Directories and binary files are refused with a hint, and so is a hard link to one of
// the team's own files (checked-file.ts). A protected file (secrets.ts) is read only once team-lead
// (or a team rule) allows it, in every mode.
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { readChecked } from './checked-file.js';
import { protectedSummary } from './secrets.js';
import { defineTool } from './types.js';

export const DEFAULT_READ_LIMIT = 2000;
const MAX_LINE = 2000;
const MAX_BYTES = 10 * 1024 * 1024;

const ReadInput = z.object({
  file_path: z.string().min(1).describe('Path of the file (absolute, or relative to your working directory)'),
  offset: z.number().int().positive().optional().describe('Line number to start from (1-based)'),
  limit: z.number().int().positive().optional().describe(`Number of lines to read (default ${DEFAULT_READ_LIMIT})`),
});

export function looksBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8000).includes(0);
}

/** Lines `offset..offset+limit-1` numbered like `cat -n`. */
export function numberLines(text: string, offset = 1, limit = DEFAULT_READ_LIMIT): { text: string; total: number; shown: number } {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const start = offset - 1;
  const picked = lines.slice(start, start + limit);
  const out = picked.map((line, i) => {
    const cut = line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}… [line cut at ${MAX_LINE} chars]` : line;
    return `${String(start + i + 1).padStart(6)}\t${cut}`;
  });
  return { text: out.join('\n'), total: lines.length, shown: picked.length };
}

export const readTool = defineTool({
  name: 'Read',
  kind: 'read',
  description:
    'Read a text file. Output is numbered like `cat -n` (use these numbers for offset/limit, never include them in Edit strings). ' +
    `Reads up to ${DEFAULT_READ_LIMIT} lines from offset; pass offset/limit for long files.`,
  schema: ReadInput,
  prepare: async (input, ctx) => {
    const { abs, real } = await ctx.guard.resolve(input.file_path);
    const secret = ctx.secrets.match(abs, real);
    let st;
    try {
      st = await fs.stat(abs);
    } catch {
      throw new SwarmError('not_found', `file does not exist: ${abs}`);
    }
    if (st.isDirectory()) throw new SwarmError('invalid_input', `${abs} is a directory; use Glob or Bash ls to list it`);
    if (st.size > MAX_BYTES && input.limit === undefined) {
      throw new SwarmError('invalid_input', `${abs} is ${st.size} bytes; read a part of it with offset and limit, or use Grep`);
    }
    return {
      summary: protectedSummary(input.file_path, secret),
      ...(secret !== undefined ? { secret } : {}),
      execute: async () => {
        const buf = await readChecked(ctx.guard, abs);
        if (looksBinary(buf)) return { content: `${abs} is a binary file (${buf.length} bytes); it cannot be shown as text`, isError: true };
        const text = buf.toString('utf8');
        if (text === '') return { content: `(${abs} exists but is empty)` };
        const r = numberLines(text, input.offset ?? 1, input.limit ?? DEFAULT_READ_LIMIT);
        if (r.shown === 0) return { content: `(${abs} has ${r.total} lines; nothing at offset ${input.offset ?? 1})` };
        const first = input.offset ?? 1;
        const more = first - 1 + r.shown < r.total ? `\n(showing lines ${first}-${first + r.shown - 1} of ${r.total})` : '';
        return { content: r.text + more };
      },
    };
  },
});
