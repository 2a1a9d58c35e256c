// This package's directory and its version, read once from its package.json (yargs cannot find it
// from an ES module). Both are found from this file's place, two levels down in the package: in
// dist/cli/ as compiled, in dist/bundle/ as bundled (scripts/bundle.mjs).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

export const SWARM_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
