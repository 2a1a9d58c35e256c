// Handing a pane its environment without putting secrets on a command line: the variables are
// written to a private 0600 file (mkdtemp dir, 0700) and the pane runs
//   /bin/sh -c '. "$0" || exit 97; rm -f -- "$0"; rmdir -- "${0%/env}"; exec "$@"' <file> <argv...>
// which loads them, deletes the file and its directory, and becomes the teammate (same pid). Passing them as
// `tmux split-window -e KEY=value` would show ANTHROPIC_API_KEY to every local user in `ps` while
// the tmux client runs. A dir whose pane never ran is removed by a later spawn (stale-pane-dirs.ts).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { quote } from 'shell-quote';
import { assertEnvName } from '../protocol/names.js';
import { FILE_MODE } from '../storage/atomic.js';
import { newPaneDir } from './stale-pane-dirs.js';

/** The env file's dir in TMPDIR: this prefix and mkdtemp's six characters. */
export const ENV_DIR_PREFIX = 'swarm-env-';

/** $0 is the env file, "$@" the teammate's argv. A file that cannot be loaded stops the pane (exit 97). */
export const ENV_LOADER = '. "$0" || exit 97; rm -f -- "$0"; rmdir -- "${0%/env}" 2>/dev/null; exec "$@"';

/** The file's text: one `export NAME=value` line per variable, values shell-quoted. */
export function envFileText(env: Record<string, string>): string {
  return Object.entries(env)
    .map(([k, v]) => {
      assertEnvName(k);
      return `export ${k}=${quote([v])}\n`;
    })
    .join('');
}

/** What stands for the file in a dry run: it exists only once the pane is created. */
export const ENV_FILE_PLACEHOLDER = '<private env file>';

/** The argv that loads `file` and then runs `argv`; just `argv` when there is no environment. */
export function envLoaderArgv(env: Record<string, string>, file: string, argv: readonly string[]): string[] {
  return Object.keys(env).length === 0 ? [...argv] : ['/bin/sh', '-c', ENV_LOADER, file, ...argv];
}

/** Write `env` to a private file and return the argv that loads it and then runs `argv`. */
export async function argvWithEnvFile(env: Record<string, string>, argv: readonly string[]): Promise<string[]> {
  if (Object.keys(env).length === 0) return [...argv];
  const dir = await newPaneDir(ENV_DIR_PREFIX);
  const file = path.join(dir, 'env');
  await writeFile(file, envFileText(env), { mode: FILE_MODE, flag: 'wx' });
  return envLoaderArgv(env, file, argv);
}

/** The dry-run view of the same: the loader argv with a placeholder, and the file's text as a note. */
export function plannedEnvFile(env: Record<string, string>, argv: readonly string[]): { argv: string[]; note: string | undefined } {
  if (Object.keys(env).length === 0) return { argv: [...argv], note: undefined };
  const text = envFileText(env).trimEnd().split('\n').join('; ');
  return { argv: envLoaderArgv(env, ENV_FILE_PLACEHOLDER, argv), note: `${ENV_FILE_PLACEHOLDER} (0600, removed once loaded): ${text}` };
}
