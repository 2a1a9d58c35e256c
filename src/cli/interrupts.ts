// The signals that end a swarm command from outside, declared once, and how such a command ends:
//   SIGINT   Ctrl-C (a console's prompt reads the key itself and asks first; a teammate wants it twice)
//   SIGTERM  a polite kill: `kill <pid>`, a supervisor, a script's timeout
//   SIGHUP   the terminal went away: a closed window, `tmux kill-pane`, a dropped ssh session
// plus a closed output (EPIPE/EIO on stdout or stderr, output/closed-output.ts), which a vanished
// terminal also gives. A command that started something that must not outlive it catches them
// (catchInterrupts), stops that, and then ends with `exit()`: the same signal again with no handler
// of ours left, so the parent sees "killed by SIGHUP" (a shell prints 128 + n) — and Node 20 does
// not abort on the way out: its exit path resets the terminal modes of a tty stdio and asserts when
// the terminal is gone (EIO), where a death by signal resets nothing. The listeners stay until then:
// a second signal during the cleanup is absorbed, never the default action that would kill the
// process half-way.
// The list itself is protocol/signals.ts (the stand-in server below the CLI listens to it too).
import os from 'node:os';
import { INTERRUPT_SIGNALS, onSignals, type InterruptSignal } from '../protocol/signals.js';
import { CLOSED_OUTPUT_EXIT, onClosedOutput } from './output/closed-output.js';

export { INTERRUPT_SIGNALS, OUTSIDE_SIGNALS, onSignals, type InterruptSignal } from '../protocol/signals.js';
/** What ended a command: one of the signals, or its output closing. */
export type Interrupt = InterruptSignal | 'closed-output';

/** The exit status a shell shows for it: 128 + the signal's number, 141 for a closed output. */
export function interruptStatus(i: Interrupt): number {
  return i === 'closed-output' ? CLOSED_OUTPUT_EXIT : 128 + (os.constants.signals[i] ?? 0);
}

/** Whether the terminal is presumed gone (so a last word goes to stderr, best effort). */
export function terminalGone(i: Interrupt | undefined): boolean {
  return i === 'SIGHUP' || i === 'closed-output';
}

/** How the person would name it in a line: "Ctrl-C", "SIGTERM", "SIGHUP (the terminal closed)", "a closed output". */
export function describeInterrupt(i: Interrupt): string {
  return { SIGINT: 'Ctrl-C', SIGTERM: 'SIGTERM', SIGHUP: 'SIGHUP (the terminal closed)', 'closed-output': 'a closed output' }[i];
}

export interface CaughtInterrupts {
  /** Aborts at the first interrupt. */
  readonly signal: AbortSignal;
  /** The first interrupt, once one came. */
  readonly cause: Interrupt | undefined;
  /** Stop catching (a later signal gets its default action again). */
  off(): void;
  /** Stop catching and end the process as `cause` would have: the signal again, or exit 141 (never resolves). */
  exit(cause: Interrupt): Promise<never>;
}

/** Catch `signals` (default: all of them) and a closed output until `off()`; `onInterrupt` runs on every one. */
export function catchInterrupts(signals: readonly InterruptSignal[] = INTERRUPT_SIGNALS, onInterrupt?: (i: Interrupt) => void): CaughtInterrupts {
  const ac = new AbortController();
  let cause: Interrupt | undefined;
  const caught = (i: Interrupt): void => {
    cause ??= i;
    ac.abort(new Error(`interrupted by ${describeInterrupt(i)}`));
    onInterrupt?.(i);
  };
  const offSignals = onSignals(signals, caught);
  const offClosed = onClosedOutput(() => caught('closed-output'));
  const off = (): void => {
    offSignals();
    offClosed();
  };
  return {
    signal: ac.signal,
    get cause() {
      return cause;
    },
    off,
    exit(i: Interrupt): Promise<never> {
      off();
      return endByInterrupt(i);
    },
  };
}

/** How long a library's own handler of the re-raised signal gets before the process exits anyway. */
const RERAISE_GRACE_MS = 1000;

/**
 * End this process after an interrupt: raise the signal again. With no handler left it kills the
 * process at once; a library that still listens (signal-exit, under proper-lockfile) runs its exit
 * hooks on the next turn and raises it once more, so it gets a moment before the process exits with
 * the signal's status anyway. Never resolves.
 */
export function endByInterrupt(i: Interrupt): Promise<never> {
  if (i === 'closed-output') return process.exit(interruptStatus(i));
  // A write to the vanished terminal failing meanwhile must not exit first (closed-output's default).
  onClosedOutput(() => undefined);
  process.kill(process.pid, i);
  return new Promise<never>(() => {
    setTimeout(() => process.exit(interruptStatus(i)), RERAISE_GRACE_MS);
  });
}
