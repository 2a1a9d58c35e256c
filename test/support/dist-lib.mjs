// swarm's built modules for a test's child script (what fake-teammate-lib.mjs re-exports): the
// one-file bundle of them the suite makes as it starts (SWARM_FAKE_LIB, set by
// test/support/global-setup.ts), or else dist/'s modules one by one (a bench, a script run by hand).
// From the bundle a child starts in 60 CPU-ms instead of 150: it reads one file, not some 150.
import { pathToFileURL } from 'node:url';

const url = process.env.SWARM_FAKE_LIB ? pathToFileURL(process.env.SWARM_FAKE_LIB).href : new URL('./fake-teammate-lib.mjs', import.meta.url).href;

/** @type {typeof import('./fake-teammate-lib.mjs')} */
export const distLib = await import(url);
