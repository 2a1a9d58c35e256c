#!/usr/bin/env node
// The `swarm` executable: runs the CLI built into dist/ by `npm install` (via `prepare`): the bundle
// in dist/bundle/ (scripts/bundle.mjs: a few files to load instead of some 200), or, where only tsc
// has run, the compiled modules in dist/cli/. `swarm teammate ...` (the process in every pane) takes
// a fast entry that loads only the teammate runtime; when that entry declines the arguments (help,
// odd flags) the full CLI handles them.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const built = (file) => existsSync(fileURLToPath(new URL(file, import.meta.url)));
const dir = built('../dist/bundle/main.js') ? '../dist/bundle/' : '../dist/cli/';
const entry = new URL(`${dir}main.js`, import.meta.url);
if (!built(entry)) {
  process.stderr.write('swarm: not built yet; run `npm install` (or `npm run build`) in the swarm directory\n');
  process.exit(1);
}
// NO_COLOR beats FORCE_COLOR, in the environment too, before any module reads it.
const { normalizeColorEnv } = await import(new URL('../dist/cli/output/color.js', import.meta.url).href);
normalizeColorEnv(process.env);
const teammateEntry = new URL(`${dir}teammate-main.js`, import.meta.url);
if (process.argv[2] === 'teammate' && built(teammateEntry)) {
  const { teammateMain } = await import(teammateEntry.href);
  await teammateMain(process.argv.slice(3));
}
const { main } = await import(entry.href);
// main() resolves to the exit status; it never exits the process itself.
process.exitCode = await main();
