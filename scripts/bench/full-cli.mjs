// Bench helper: runs `swarm <args>` through the full CLI (dist/cli/main.js, every command loaded
// eagerly), i.e. the path bin/swarm.js took for `swarm teammate` before its fast path. Used by
// runtime.ts as the "before" variant so both are measured in the same run.
const { main } = await import(new URL('../../dist/cli/main.js', import.meta.url).href);
await main(process.argv.slice(2));
