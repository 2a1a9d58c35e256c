// Keeping a pane process's stderr in a file while the pane still shows it. The pane runs
//   /bin/sh -c '<STDERR_TEE>' <private dir> <log> <argv...>
// which makes a fifo in the private (0700, mkdtemp) dir, starts `tee -a <log>` reading the fifo and
// writing to the pane's stderr, points its own stderr at the fifo, removes the fifo and the dir
// (both ends are open by then) and execs argv: the pane's process is still the teammate (same pid),
// and tee ends when the teammate's stderr closes. POSIX sh starts a background job with SIGINT and
// SIGQUIT ignored, so Ctrl-C in the pane never kills tee under a teammate that survives it; tee
// ignores SIGHUP too. tmux closes a pane's terminal the moment its process exits (remain-on-exit
// keeps only the picture), which sends SIGHUP to the pane's process group: a tee not yet scheduled
// to copy the last lines (a loaded machine) died with them, and a teammate that crashed at start
// left neither its pane nor its log saying why. It still ends with the teammate's stderr. The
// paths travel as arguments ($0, $1), never inside the script, so nothing is quoted by hand. A dir
// whose pane never ran is removed by a later spawn (stale-pane-dirs.ts).
import { newPaneDir } from './stale-pane-dirs.js';

/** $0 is the private dir, $1 the log, the rest the argv. A fifo that cannot be made stops the pane (exit 98). */
export const STDERR_TEE =
  'log=$1; shift; f="$0/stderr"; mkfifo -m 600 "$f" || exit 98; { trap "" HUP; exec tee -a -- "$log"; } <"$f" >&2 & exec 2>"$f"; rm -f -- "$f"; rmdir -- "$0"; exec "$@"';

/** The fifo's dir in TMPDIR: this prefix and mkdtemp's six characters. */
export const FIFO_DIR_PREFIX = 'swarm-err-';

/** What stands for the private dir in a dry run: it exists only once the pane is created. */
export const FIFO_DIR_PLACEHOLDER = '<private fifo dir>';

/** The argv that tees stderr into `log` (through a fifo in `dir`) and then runs `argv`. */
export function stderrTeeArgv(dir: string, log: string, argv: readonly string[]): string[] {
  return ['/bin/sh', '-c', STDERR_TEE, dir, log, ...argv];
}

/** Make the private dir and return the argv that tees stderr into `log`; just `argv` without a log. */
export async function argvWithStderrLog(log: string | undefined, argv: readonly string[]): Promise<string[]> {
  if (log === undefined) return [...argv];
  const dir = await newPaneDir(FIFO_DIR_PREFIX);
  return stderrTeeArgv(dir, log, argv);
}

/** The dry-run view of the same, with the placeholder for the dir. */
export function plannedStderrLog(log: string | undefined, argv: readonly string[]): string[] {
  return log === undefined ? [...argv] : stderrTeeArgv(FIFO_DIR_PLACEHOLDER, log, argv);
}
