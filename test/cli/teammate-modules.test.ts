// What a swarm teammate process loads (issue 35: lighter teammates): the Messages API SDK (with its
// tracing API), its HTTP client (node-fetch) and retry.ts only on its first model step
// (runtime/model-client.ts), never Node's own fetch (undici; runtime/model-fetch.ts), execa only when
// something runs a command through backends/process.ts. A teammate waiting for its first message
// has loaded none of them. Real `swarm teammate` child processes (run `npm run build` first) with a
// log of every module they load (test/support/module-log.mjs); no timing.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/cli.js';
import { readStatus, setupRuntime, waitFor, type RuntimeEnv, type TeammateProc } from '../support/runtime-harness.js';

/** Loaded on first use only. */
const LAZY = ['/node_modules/@anthropic-ai/sdk/', '/node_modules/@opentelemetry/api/', '/node_modules/node-fetch/', '/node_modules/execa/', '/dist/runtime/retry.js'];
/** Node's fetch, never loaded by a teammate (module-log.mjs logs it as node:<id>). */
const UNDICI = 'node:internal/deps/undici/undici';

describe('modules a swarm teammate loads', () => {
  /** w1 started with a module log; `modules()` reads what it has loaded so far. */
  function startLogged(env: RuntimeEnv): { proc: TeammateProc; modules: () => Promise<string[]> } {
    const log = path.join(env.root, 'modules.log');
    const proc = env.start([], { NODE_OPTIONS: `--import=${path.join(REPO, 'test/support/module-log.mjs')}`, SWARM_MODULE_LOG: log });
    return { proc, modules: async () => (await readFile(log, 'utf8')).split('\n').filter((u) => u.startsWith('file://') || u.startsWith('node:')) };
  }
  const lazy = (modules: string[]): string[] => [...new Set(LAZY.filter((l) => modules.some((u) => u.includes(l))))];

  /** Two heartbeats written: started, and idle in its loop for a while. */
  async function settled(env: RuntimeEnv): Promise<void> {
    const first = await waitFor(async () => (await readStatus(env))?.heartbeatAt, 15_000, 'the first heartbeat');
    await waitFor(async () => ((await readStatus(env))?.heartbeatAt ?? 0) > first, 15_000, 'a later heartbeat');
  }

  it('waiting for its first message, it has loaded neither the SDK nor execa', async () => {
    const env = await setupRuntime({ turns: [{ reply: 'Ready.' }] });
    const t = startLogged(env);
    await settled(env);
    const modules = await t.modules();
    expect(modules.some((u) => u.endsWith('/dist/runtime/teammate.js'))).toBe(true);
    expect(lazy(modules)).toEqual([]);
    expect(modules).not.toContain(UNDICI);
    expect(env.server.requests).toHaveLength(0);
  });

  it('after a turn that called no tool, it has loaded the SDK and node-fetch, and neither execa nor Node\'s fetch', async () => {
    const env = await setupRuntime({ turns: [{ reply: 'Ready.' }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'Say you are ready.' });
    const t = startLogged(env);
    await waitFor(async () => (await readStatus(env))?.state === 'idle', 15_000, 'w1 idle after its first turn');
    expect(env.server.requests).toHaveLength(1);
    t.proc.child.kill('SIGTERM'); // module-log.mjs looks at Node's modules once more as it exits
    await t.proc.exited;
    const modules = await t.modules();
    expect(lazy(modules)).toEqual(['/node_modules/@anthropic-ai/sdk/', '/node_modules/@opentelemetry/api/', '/node_modules/node-fetch/', '/dist/runtime/retry.js']);
    expect(modules).not.toContain(UNDICI);
  });
});
