// Bench helper: runs `swarm teammate <args>` through bin/swarm.js (the fast path) with what a
// teammate loaded at start before issue 35 imported first: the Messages API SDK (and its tracing
// API), retry.ts and execa. Those are now loaded on first use (runtime/model-client.ts,
// backends/process.ts); this is the "before" variant of runtime.ts, measured in the same run.
await import('@anthropic-ai/sdk');
await import('execa');
await import(new URL('../../dist/runtime/retry.js', import.meta.url).href);
await import(new URL('../../bin/swarm.js', import.meta.url).href);
