// Bench helper: runs `swarm <args>` through the CLI with every command loaded eagerly — each
// command's definition and what it does (dist/cli/handlers/), and the teammate process — before
// main() starts: the module set dist/cli/main.js loaded for every command line before commands
// loaded their handlers on demand, and the path bin/swarm.js took for `swarm teammate` before its
// fast path. Used as the "before" variant by startup.ts, so both are measured in the same run
// (runtime.ts measured it too until issue 35; its numbers are in BENCHMARKS.md's history).
import { readdirSync } from 'node:fs';

const cli = new URL('../../dist/cli/', import.meta.url);
const dirs = ['commands/', 'handlers/'];
for (const dir of dirs) {
  for (const file of readdirSync(new URL(dir, cli)).filter((f) => f.endsWith('.js')).sort()) await import(new URL(dir + file, cli).href);
}
await import(new URL('teammate-process.js', cli).href);
const { main } = await import(new URL('main.js', cli).href);
process.exitCode = await main(process.argv.slice(2));
