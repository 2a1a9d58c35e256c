// This package's version, read once from its package.json (yargs cannot find it from an ES module).
import { createRequire } from 'node:module';

export const SWARM_VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;
