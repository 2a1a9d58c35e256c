// Which Claude Code a `--runtime claude` spawn used: the `claude` resolved from the user's PATH
// (command-line.ts, userPathFor) and what its `--version` prints, so the spawn can say so.
import { execa } from 'execa';
import { resolveClaude, type Env } from './command-line.js';

export interface ClaudeUsed {
  /** The absolute path of the `claude` the pane runs. */
  path: string;
  /** Its `--version` line (`2.1.112 (Claude Code)`); undefined when it printed nothing in time. */
  version: string | undefined;
}

const VERSION_TIMEOUT_MS = 15_000;

/** The `claude` a spawn with `env` runs and its version. Throws (as resolveClaude) when there is none. */
export async function claudeUsed(env: Env, which?: (command: string, env: Env) => string | undefined): Promise<ClaudeUsed> {
  const file = resolveClaude(env, which);
  const r = await execa(file, ['--version'], { env: { ...env }, extendEnv: false, reject: false, stdin: 'ignore', timeout: VERSION_TIMEOUT_MS });
  const line = r.exitCode === 0 ? String(r.stdout).split('\n')[0]?.trim() : undefined;
  return { path: file, version: line === '' ? undefined : line };
}

/** `claude 2.1.112 (Claude Code) at /usr/local/bin/claude` (the version left out when unknown). */
export function describeClaudeUsed(c: ClaudeUsed): string {
  return `claude ${c.version === undefined ? '(version unknown)' : c.version} at ${c.path}`;
}
