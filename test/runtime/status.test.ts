// The StatusReporter's cost field (runtime/status): summed for a priced model, and left out of
// status/<name>.json (not written as 0) for a model without a list price, read back from the file.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StatusReporter } from '../../src/runtime/status.js';
import { tempRoot } from '../support/tmp-root.js';

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
