// coalesced: one run at a time; triggers during a run make exactly one more run, none is lost.
import { describe, expect, it } from 'vitest';
import { coalesced } from '../../src/storage/coalesce.js';

function gate(): { wait: Promise<void>; open: () => void } {
  let open!: () => void;
  const wait = new Promise<void>((r) => (open = r));
  return { wait, open };
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
    let runs = 0;
    const g = gate();
    const c = coalesced(
      async () => {
        runs++;
        await g.wait;
      },
      { signal: ac.signal },
    );
    void c.trigger();
    void c.trigger();
    ac.abort();
    g.open();
    await c.idle();
    expect(runs).toBe(1);
    await c.idle();
    expect(runs).toBe(1);
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
});
