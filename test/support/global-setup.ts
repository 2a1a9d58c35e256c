// Once per `vitest run`, before any worker starts: bundle fake-teammate-lib.mjs (swarm's built
// modules a fake teammate or a worker script uses) into one file, as swarm itself runs bundled
// (scripts/bundle.mjs), and name it in SWARM_FAKE_LIB, which the workers and every process they
// start inherit (a pane's too: swarm forwards SWARM_*). The suite starts some 110 such children,
// which loaded dist/'s modules one by one (test/support/dist-lib.mjs).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, stop } from 'esbuild';

const LIB = fileURLToPath(new URL('./fake-teammate-lib.mjs', import.meta.url));

export default async function setup(): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'swarm-test-lib-'));
  const outfile = path.join(dir, 'fake-teammate-lib.mjs');
  await build({
    entryPoints: [LIB],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    minifyWhitespace: true,
    // The CommonJS dependencies call require() for Node's own modules.
    banner: { js: "import { createRequire as __swarmRequire } from 'node:module'; const require = __swarmRequire(import.meta.url);" },
  });
  await stop(); // esbuild's service process, which would otherwise live as long as the run
  process.env.SWARM_FAKE_LIB = outfile;
  return async () => {
    delete process.env.SWARM_FAKE_LIB;
    await rm(dir, { recursive: true, force: true });
  };
}
