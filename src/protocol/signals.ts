// The signals that end a swarm process from outside (SIGINT, SIGTERM, SIGHUP), declared once for
// every layer, and the one way to listen to them. What each means and how a command ends of one:
// cli/interrupts.ts, which re-exports these; the stand-in server (beside the layers) uses them here.

/** Every signal that interrupts a process. */
export const INTERRUPT_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** The ones only ever sent from outside: a console's prompt takes Ctrl-C as a key, and a teammate wants it twice. */
export const OUTSIDE_SIGNALS = ['SIGTERM', 'SIGHUP'] as const;

export type InterruptSignal = (typeof INTERRUPT_SIGNALS)[number];

/** Call `handler` on each of `signals` until the returned function is called: the one way a process listens to them. */
export function onSignals(signals: readonly InterruptSignal[], handler: (sig: InterruptSignal) => void): () => void {
  const listener = (sig: NodeJS.Signals): void => handler(sig as InterruptSignal);
  for (const sig of signals) process.on(sig, listener);
  return () => {
    for (const sig of signals) process.removeListener(sig, listener);
  };
}
