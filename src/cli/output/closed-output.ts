// The one place that handles a closed stdout or stderr for every command: `swarm status | head -1`,
// `swarm inbox x --follow | head -1`, a terminal that went away. The failed write comes back as an
// EPIPE (EIO for a vanished terminal) 'error' event, which Node would throw with a stack trace; here
// the process exits quietly instead, with 141 (128 + SIGPIPE, what a Unix tool killed by SIGPIPE
// returns), unless a command registered a cleanup (`onClosedOutput`, the demo stops its team first):
// then the cleanups run and the command ends itself.
//
// State is module-level because the streams are: there is one process.stdout per process.

/** The exit status after a closed output: 128 + SIGPIPE (13). */
export const CLOSED_OUTPUT_EXIT = 141;

const CLOSED_CODES = new Set(['EPIPE', 'EIO', 'ERR_STREAM_DESTROYED']);
const cleanups = new Set<() => void>();
let closed = false;

/** True for the error a write to a closed pipe or terminal fails with. */
export function isClosedOutputError(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && CLOSED_CODES.has(code);
}

function onStreamError(e: unknown): void {
  if (!isClosedOutputError(e)) throw e; // anything else is a real failure: Node reports it as before
  if (closed) return;
  closed = true;
  if (cleanups.size === 0) process.exit(CLOSED_OUTPUT_EXIT);
  for (const fn of [...cleanups]) fn();
}

/** Install the handler on stdout and stderr (once, from main). */
export function handleClosedOutput(streams: NodeJS.WriteStream[] = [process.stdout, process.stderr]): void {
  for (const s of streams) if (!s.listeners('error').includes(onStreamError)) s.on('error', onStreamError);
}

/**
 * Run `fn` instead of exiting when the output closes (the caller then ends the process itself).
 * Returns the unregister function. Runs at once if the output has already closed.
 */
export function onClosedOutput(fn: () => void): () => void {
  cleanups.add(fn);
  if (closed) fn();
  return () => void cleanups.delete(fn);
}
