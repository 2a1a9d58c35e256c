// The teammate as this process (docs/protocol.md#teammate-command-line, docs/protocol.md#teammate-runtime), for `swarm teammate` (commands/teammate.ts) and its
// fast entry (teammate-main.ts): SIGTERM / SIGHUP stop the teammate cleanly, and so does Ctrl-C
// pressed twice within INTERRUPT_CONFIRM_MS (a single Ctrl-C in its pane only says how to stop it: a
// stray key must not end a teammate's work). The exit code is the runtime's (0 after a shutdown or a
// signal, 1 after a failure).
import { onSignals, OUTSIDE_SIGNALS, type InterruptSignal } from './interrupts.js';
import { chalk } from './output/render.js';

/** A second Ctrl-C within this long stops the teammate. */
export const INTERRUPT_CONFIRM_MS = 3000;

/** Runs the teammate as this process (signals stop it, its code is the exit code). */
export async function runTeammateProcess(flags: unknown): Promise<never> {
  const ac = new AbortController();
  const onSignal = (sig: InterruptSignal): void => ac.abort(sig);
  onSignals(OUTSIDE_SIGNALS, onSignal);
  let interruptedAt = -Infinity;
  onSignals(['SIGINT'], () => {
    if (Date.now() - interruptedAt <= INTERRUPT_CONFIRM_MS) return onSignal('SIGINT');
    interruptedAt = Date.now();
    const name = (flags as { agentName?: unknown } | undefined)?.agentName;
    const who = typeof name === 'string' ? name : 'this teammate';
    process.stdout.write(`\n^C again within ${INTERRUPT_CONFIRM_MS / 1000} s stops ${who} now; to stop it cleanly: swarm shutdown ${who}\n`);
  });
  const { runTeammate } = await import('../runtime/teammate.js'); // only this command needs the runtime
  const code = await runTeammate({
    flags,
    env: process.env,
    write: (t) => void process.stdout.write(t),
    colorLevel: chalk.level,
    signal: ac.signal,
  });
  process.exit(code);
}
