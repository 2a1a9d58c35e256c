// Once per `vitest run`, before any worker starts: bundle swarm's built modules that the fake
// teammates and worker scripts load into one file (fake-lib-bundle.ts), and name it in
// SWARM_FAKE_LIB, which the workers and every process they start inherit (a pane's too: swarm
// forwards SWARM_*). The suite starts some 110 such children, which loaded dist/'s modules one by
// one (test/support/dist-lib.mjs).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { stop } from 'esbuild';
import { bundleFakeLib } from './fake-lib-bundle.js';

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'swarm-test-lib-'));
  process.env.SWARM_FAKE_LIB = await bundleFakeLib(dir);
  await stop(); // esbuild's service process, which would otherwise live as long as the run
  return async () => {
    delete process.env.SWARM_FAKE_LIB;
    await rm(dir, { recursive: true, force: true });
  };
}
