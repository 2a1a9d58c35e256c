// coalesced: one run at a time; triggers during a run make exactly one more run, none is lost.
import { describe, expect, it } from 'vitest';
import { coalesced, type Coalesced, type CoalescedOptions } from '../../src/storage/coalesce.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
}

/** A coalesced job that counts its runs and, in each, waits for `g` to open. */
function gatedJob(opts: CoalescedOptions): { c: Coalesced; g: ReturnType<typeof gate>; runs: () => number } {
  const g = gate();
  let runs = 0;
  const c = coalesced(async () => {
    runs++;
    await g.wait;
  }, opts);
  return { c, g, runs: () => runs };
}

describe('coalesced', () => {
  it('runs once per trigger when idle, and once more (not once per trigger) for triggers during a run', async () => {
    let runs = 0;
    let g = gate();
    const c = coalesced(async () => {
      runs++;
      await g.wait;
    });
    const first = c.trigger();
    const during = [c.trigger(), c.trigger(), c.trigger()];
    expect(runs).toBe(1);
    const before = g;
    g = gate();
    before.open();
    await new Promise((r) => setImmediate(r));
    expect(runs).toBe(2);
    g.open();
    await Promise.all([first, ...during]);
    expect(runs).toBe(2);
    await c.trigger();
    expect(runs).toBe(3);
  });

  it('a trigger right after the last run ends is not lost (it starts a new run)', async () => {
    let runs = 0;
    const c = coalesced(async () => void runs++);
    await c.trigger();
    const p = c.trigger();
    expect(runs).toBe(2);
    await p;
  });

  it('idle waits for the run in flight without starting one; no re-run once the signal is aborted', async () => {
    const ac = new AbortController();
    const { c, g, runs } = gatedJob({ signal: ac.signal });
    void c.trigger();
    void c.trigger();
    ac.abort();
    g.open();
    await c.idle();
    expect(runs()).toBe(1);
    await c.idle();
    expect(runs()).toBe(1);
  });

  it("rejects the triggers of a run whose job throws, and runs again on the next trigger", async () => {
    let fail = true;
    const c = coalesced(async () => {
      if (fail) throw new Error('boom');
    });
    await expect(c.trigger()).rejects.toThrow('boom');
    fail = false;
    await expect(c.trigger()).resolves.toBeUndefined();
  });

  it('idle resolves only once the run in flight has ended, and at once when nothing runs', async () => {
    const g = gate();
    let ended = 0;
    const c = coalesced(async () => {
      await g.wait;
      ended++;
    });
    void c.trigger();
    let endedAtIdle: number | undefined;
    const waiting = c.idle().then(() => void (endedAtIdle = ended));
    await new Promise((r) => setImmediate(r));
    expect(endedAtIdle).toBeUndefined(); // still running: idle waits
    g.open();
    await waiting;
    expect(endedAtIdle).toBe(1);
    expect(await c.idle()).toBeUndefined();
  });

  it('a re-run waits gapMs after the run before it; a single run does not wait at all', async () => {
    const starts: number[] = [];
    const ends: number[] = [];
    let g = gate();
    const c = coalesced(
      async () => {
        starts.push(Date.now());
        await g.wait;
        ends.push(Date.now());
      },
      { gapMs: 150 },
    );
    const first = c.trigger();
    void c.trigger(); // during the run: one more, after the gap
    const before = g;
    g = gate();
    g.open();
    before.open();
    await first;
    expect(starts).toHaveLength(2);
    expect(starts[1]! - ends[0]!).toBeGreaterThanOrEqual(145); // a timer never fires early (1 ms rounding aside)

    // Alone, with a gap of a minute: it ends as soon as the job does (else this test times out).
    const alone = coalesced(async () => undefined, { gapMs: 60_000 });
    await alone.trigger();
  });

  it('an abort during the gap ends it at once, with no re-run', async () => {
    const ac = new AbortController();
    const { c, g, runs } = gatedJob({ gapMs: 60_000, signal: ac.signal });
    const first = c.trigger();
    void c.trigger(); // asks for a re-run, a minute after this one
    g.open();
    await new Promise((r) => setTimeout(r, 20)); // the run has ended; the gap has begun
    ac.abort();
    await first; // without the signal passed to the gap's timer this would wait out the minute
    expect(runs()).toBe(1);
  });
});
