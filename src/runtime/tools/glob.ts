// Glob {pattern, path?}: files whose path matches the pattern (protocol/glob.ts), searched from `path`
// (default: the cwd); absolute paths, most recently modified first, at most 100. Searching in a
// protected directory (secrets.ts, e.g. ~/.ssh) asks team-lead; names of protected files found
// elsewhere are listed (a name is not its content: Read asks before showing that).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { compileGlob } from '../../protocol/glob.js';
import { splitGlob } from './glob-match.js';
import type { PathGuard } from './paths.js';
import { protectedSummary } from './secrets.js';
import { defineTool } from './types.js';
import { DEFAULT_SKIP, walkFiles } from './walk.js';

export const MAX_GLOB_RESULTS = 100;

const GlobInput = z.object({
  pattern: z.string().min(1).describe('Glob such as "**/*.ts" or "src/**/test_*.py"'),
  path: z.string().optional().describe('Directory to search in (default: your working directory)'),
});

/** The real directory a search starts in; refused when protected, missing or not a directory. */
export async function searchDir(guard: PathGuard, p: string | undefined): Promise<string> {
  return (await searchRoot(guard, p)).real;
}

async function searchRoot(guard: PathGuard, p: string | undefined): Promise<{ abs: string; real: string }> {
  const { abs, real } = await guard.resolve(p ?? '.', 'path');
  const st = await fs.stat(real).catch(() => undefined);
  if (!st) throw new SwarmError('not_found', `path does not exist: ${abs}`);
  if (!st.isDirectory()) throw new SwarmError('invalid_input', `path is not a directory: ${abs}`);
  return { abs, real };
}

/**
 * Skip .git / node_modules (unless the pattern names them), hidden directories (unless the pattern
 * has a segment starting with `.`; as ripgrep does) and the protected directories.
 */
export function skipper(guard: PathGuard, pattern: string): (abs: string, name: string) => boolean {
  const hidden = /(^|\/)\./.test(pattern);
  return (abs, name) =>
    (DEFAULT_SKIP.has(name) && !pattern.includes(name)) || (!hidden && name.startsWith('.')) || guard.isProtected(abs);
}

export async function globFiles(guard: PathGuard, pattern: string, dir: string | undefined, signal?: AbortSignal): Promise<{ files: string[]; total: number; capped: boolean }> {
  const from = await searchDir(guard, dir);
  const { base, rest } = splitGlob(pattern);
  const startIn = path.isAbsolute(base) ? base : path.join(from, base);
  if (rest === '') {
    const { real } = await guard.resolve(startIn, 'pattern');
    const st = await fs.stat(real).catch(() => undefined);
    return { files: st?.isFile() ? [real] : [], total: st?.isFile() ? 1 : 0, capped: false };
  }
  const start = await searchDir(guard, startIn);
  const match = compileGlob(rest);
  const walked = await walkFiles(start, { skipDir: skipper(guard, pattern), ...(signal ? { signal } : {}) });
  const hits = walked.files.filter((f) => match(f.rel));
  const withTimes = await Promise.all(
    hits.map(async (f) => ({ abs: f.abs, mtime: (await fs.stat(f.abs).catch(() => undefined))?.mtimeMs ?? 0 })),
  );
  withTimes.sort((a, b) => b.mtime - a.mtime || (a.abs < b.abs ? -1 : 1));
  return { files: withTimes.slice(0, MAX_GLOB_RESULTS).map((f) => f.abs), total: withTimes.length, capped: walked.capped };
}

export const globTool = defineTool({
  name: 'Glob',
  kind: 'read',
  description: `Find files by name pattern ("**/*.ts", "src/*.{js,json}"). Returns absolute paths, newest first, at most ${MAX_GLOB_RESULTS}.`,
  schema: GlobInput,
  prepare: async (input, ctx) => {
    const { abs, real } = await searchRoot(ctx.guard, input.path);
    const { base, rest } = splitGlob(input.pattern);
    // Only a directory (".", "./", "/"): nothing in it to match file names against.
    if (rest === '') throw new SwarmError('invalid_input', `pattern ${JSON.stringify(input.pattern)} names no files, only a directory: give a file part, e.g. "**/*" or "src/**/*.ts"`);
    compileGlob(rest); // a bad pattern fails before anything runs
    const start = await ctx.guard.resolve(path.resolve(real, base), 'pattern');
    const secret = ctx.secrets.match(abs, real, start.abs, start.real);
    return {
      summary: input.path ? `${input.pattern} in ${protectedSummary(input.path, secret)}` : input.pattern,
      ...(secret !== undefined ? { secret } : {}),
      execute: async (signal) => {
        const r = await globFiles(ctx.guard, input.pattern, input.path, signal);
        if (r.files.length === 0) return { content: 'No files found' };
        const notes: string[] = [];
        if (r.total > r.files.length) notes.push(`(${r.total} files matched; showing the ${r.files.length} newest — narrow the pattern)`);
        if (r.capped) notes.push('(search stopped early: too many files under this path)');
        return { content: [...r.files, ...notes].join('\n') };
      },
    };
  },
});
