// The StatusReporter (runtime/status): its cost field, summed for a priced model and left out of
// status/<name>.json (not written as 0) for a model without a list price, read back from the file;
// and its heartbeat, slower while idle.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { idleHeartbeatMs, StatusReporter } from '../../src/runtime/status.js';
import { tempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

async function reporter(priced?: boolean): Promise<{ r: StatusReporter; read: () => Promise<Record<string, unknown>> }> {
  const file = path.join(await tempRoot(), 'status', 'alice.json');
  const r = new StatusReporter({ file, name: 'alice', agentId: 'alice@t', pid: process.pid, heartbeatMs: 60_000, ...(priced === undefined ? {} : { priced }) });
  return { r, read: async () => JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown> };
}

describe('StatusReporter cost', () => {
  it('sums the cost of each step for a priced model', async () => {
    const { r, read } = await reporter();
    await r.start();
    expect(await read()).toMatchObject({ costUsd: 0 });
    r.usage(1000, 10, 0.25);
    r.usage(1200, 5, 0.125);
    await r.stop('exiting');
    expect(await read()).toMatchObject({ inputTokens: 1200, outputTokens: 15, costUsd: 0.375 });
  });

  it('an unpriced model: costUsd is never in the file, tokens are', async () => {
    const { r, read } = await reporter(false);
    await r.start();
    expect(await read()).not.toHaveProperty('costUsd');
    r.usage(1000, 10, undefined);
    await r.stop('exiting');
    const file = await read();
    expect(file).toMatchObject({ inputTokens: 1000, outputTokens: 10 });
    expect(file).not.toHaveProperty('costUsd');
  });

  it('a step without a price drops the cost for good: a partial sum would read as the whole', async () => {
    const { r, read } = await reporter();
    await r.start();
    r.usage(1000, 10, 0.5);
    r.usage(1000, 10, undefined);
    r.usage(1000, 10, 0.5);
    await r.stop('exiting');
    const file = await read();
    expect(file).toMatchObject({ outputTokens: 30 });
    expect(file).not.toHaveProperty('costUsd');
  });
});

describe('StatusReporter heartbeat', () => {
  it('idleHeartbeatMs: every third beat, at most 15 s apart, never more often than a beat', () => {
    expect(idleHeartbeatMs(5000)).toBe(15_000);
    expect(idleHeartbeatMs(500)).toBe(1500);
    expect(idleHeartbeatMs(10_000)).toBe(15_000);
    expect(idleHeartbeatMs(20_000)).toBe(20_000);
  });

  it('while idle the beat rewrites the file only once idleHeartbeatMs has passed; while working every beat', async () => {
    const file = path.join(await tempRoot(), 'status', 'alice.json');
    let t = 1_000_000;
    const r = new StatusReporter({ file, name: 'alice', agentId: 'alice@t', pid: process.pid, heartbeatMs: 20, now: () => t });
    // Each write is a rename of a fresh file: a new inode says the beat wrote.
    const inode = async (): Promise<number> => (await stat(file)).ino;
    await r.start();
    r.setState('idle');
    await r.flush();
    const asleep = await inode();
    await new Promise((res) => setTimeout(res, 200)); // ten beats, the clock standing still
    expect(await inode()).toBe(asleep);
    t += 50; // idle 60 ms, less half a beat's slack
    await waitFor(async () => (await inode()) !== asleep, 5000, 'the idle heartbeat');
    expect(JSON.parse(await readFile(file, 'utf8'))).toMatchObject({ state: 'idle', heartbeatAt: t });
    r.setState('working');
    await r.flush();
    const working = await inode();
    await waitFor(async () => (await inode()) !== working, 5000, 'a working heartbeat with the clock standing still');
    await r.stop('exiting');
  });
});
