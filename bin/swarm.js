#!/usr/bin/env node
// The `swarm` executable: runs the compiled CLI from dist/ (built by `npm install` via `prepare`).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  process.stderr.write('swarm: not built yet; run `npm install` (or `npm run build`) in the swarm directory\n');
  process.exit(1);
}
const { main } = await import(entry.href);
await main();
