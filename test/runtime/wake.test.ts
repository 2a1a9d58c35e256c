// firstChange: the first source to change wins; the others are cancelled (their waits see the abort)
// and an abort of the caller's signal rejects with its reason.
import { describe, expect, it } from 'vitest';
import { firstChange } from '../../src/runtime/wake.js';

/** A source that resolves when `fire()` is called, and records whether its wait was cancelled. */
function source() {
  let fire: () => void = () => undefined;
  const state = { cancelled: false, resolved: false };
  const wait = (signal: AbortSignal): Promise<void> =>
    new Promise((resolve, reject) => {
      fire = () => {
        state.resolved = true;
        resolve();
      };
      signal.addEventListener('abort', () => {
        if (state.resolved) return;
        state.cancelled = true;
        reject(signal.reason as Error);
      }, { once: true });
    });
  return { wait, fire: () => fire(), state };
}

describe('firstChange', () => {
  it('resolves with the first source and cancels the other', async () => {
    const a = source();
    const b = source();
    const p = firstChange(new AbortController().signal, [a.wait, b.wait]);
    b.fire();
    await p;
    expect(b.state.cancelled).toBe(false);
    expect(a.state.cancelled).toBe(true);
  });

  it("rejects with the caller's abort reason", async () => {
    const a = source();
    const stop = new AbortController();
    const p = firstChange(stop.signal, [a.wait]);
    stop.abort(new Error('stopping'));
    await expect(p).rejects.toThrow('stopping');
    expect(a.state.cancelled).toBe(true);
  });
});
