// fake-teammate-lib.mjs (swarm's built modules a fake teammate or a worker script uses) bundled into
// one file with esbuild, as swarm itself runs bundled (scripts/bundle.mjs): what the suite's
// children load (global-setup.ts) and the spawn bench's trivial teammate (SWARM_FAKE_LIB, read by
// dist-lib.mjs).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const LIB = fileURLToPath(new URL('./fake-teammate-lib.mjs', import.meta.url));

/** Bundle fake-teammate-lib.mjs into `dir`; resolves to the bundle's path. */
export async function bundleFakeLib(dir: string): Promise<string> {
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
  return outfile;
}
