// A job run one at a time, coalescing triggers: a trigger while it runs asks for exactly one more run
// after it (however many came), so the last run always sees the last change. Serves the coalesced
// file writes (status heartbeat, in-process host state) and the re-reads on change hints.
import { setTimeout as delay } from 'node:timers/promises';

export interface CoalescedOptions {
  /** Pause before a re-run (default none). */
  gapMs?: number;
  /** No re-run starts once aborted. */
  signal?: AbortSignal;
}

export interface Coalesced {
  /** Run now, or once more after the current run; resolves when the runs end (rejects with the job's error). */
  trigger(): Promise<void>;
  /** Resolves once no run is in flight (without starting one). */
  idle(): Promise<void>;
}

export function coalesced(job: () => Promise<void>, opts: CoalescedOptions = {}): Coalesced {
  let running: Promise<void> | undefined;
  let again = false;
  const runs = async (): Promise<void> => {
    try {
      do {
        again = false;
        await job();
        if (again && opts.gapMs) await delay(opts.gapMs, undefined, opts.signal ? { signal: opts.signal } : {}).catch(() => undefined);
      } while (again && !opts.signal?.aborted);
    } finally {
      running = undefined; // in the same turn as the last `again` check: no trigger is lost
    }
  };
  return {
    trigger() {
      if (running) {
        again = true;
        return running;
      }
      running = runs();
      return running;
    },
    async idle() {
      while (running) await running.catch(() => undefined);
    },
  };
}
