// The in-process backend: the conformance suite (through the request files, as `swarm spawn` in
// another process uses it, and straight to the host, as the console does), the "no host" error,
// AsyncLocalStorage isolation, interrupt vs stop, and a full spawn → shutdown through the host.
// The host runs inside this test process; its teammates are async functions.
import { renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { currentTeammate, type TeammateLaunch } from '../../../src/backends/in-process/context.js';
import { InProcessBackend } from '../../../src/backends/in-process/in-process-backend.js';
import { InProcessHost } from '../../../src/backends/in-process/host.js';
import { spawnTeammate } from '../../../src/teammates/spawn.js';
import { shutdownTeammate } from '../../../src/teammates/stop.js';
import { isSwarmError } from '../../../src/protocol/errors.js';
import { createTeam, readTeam, updateTeam } from '../../../src/team/index.js';
import { fakeInProcessTeammate } from '../../support/fake-teammate-inprocess.js';
import { tempRoot, useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';
import { PROBE_ENV, runBackendConformance } from '../conformance.js';
import { Team } from '../../../src/team/team.js';

/** The conformance probe (see conformance.ts) as an in-process teammate. */
const probeLaunch: TeammateLaunch = async (argv, env, ctx) => {
  const [outFile, mode, ...rest] = argv.slice(2);
  const info = { argv: argv.slice(2), value: env[PROBE_ENV] ?? null, cwd: ctx.cwd, pid: process.pid };
  ctx.print(`PROBE ${JSON.stringify(info)}`);
  writeFileSync(`${outFile!}.tmp`, JSON.stringify(info));
  renameSync(`${outFile!}.tmp`, outFile!);
  if (mode === 'exit') return Number(rest[0] ?? 0);
  if (mode === 'fail') throw new Error(rest.join(' ')); // what an in-process teammate has for stderr
  await new Promise<void>((resolve) => ctx.stopSignal.addEventListener('abort', () => resolve(), { once: true }));
  return 0;
};

async function hostedTeam(team: string, launch: TeammateLaunch) {
  const root = await tempRoot();
  await createTeam(root, { name: team });
  const host = await InProcessHost.open({ team: new Team(root, team), launch, pollMs: 200, killTimeoutMs: 500 });
  return { root, host, cleanup: () => host.close() };
}

runBackendConformance(
  'in-process (request files)',
  async () => {
    const t = await hostedTeam('conf', probeLaunch);
    return { backend: new InProcessBackend({ team: new Team(t.root, 'conf'), killTimeoutMs: 3000 }), cleanup: t.cleanup };
  },
  { osProcesses: false },
);

runBackendConformance(
  'in-process (direct, inside the host)',
  async () => {
    const t = await hostedTeam('conf', probeLaunch);
    return { backend: new InProcessBackend({ team: new Team(t.root, 'conf'), host: t.host }), cleanup: t.cleanup };
  },
  { osProcesses: false },
);

describe('in-process backend without a host', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));
  beforeEach(async () => {
    await createTeam(root, { name: 'solo' });
  });

  const spec = { team: 'solo', name: 'ann', color: 'blue', argv: ['x'], env: {}, cwd: '/' };

  it('says where teammates run, and that the console does not show their own output', () => {
    expect(new InProcessBackend({ team: new Team(root, 'solo') }).describe()).toBe(
      'in-process: teammates run inside the leader console (swarm lead), which shows their messages, not their own output (swarm status has their state)',
    );
  });

  it('createPane fails at once with a one-line error saying to start swarm lead', async () => {
    const err = await new InProcessBackend({ team: new Team(root, 'solo') }).createPane(spec).catch((e: unknown) => e);
    expect(isSwarmError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toBe(
      'no in-process host is running for team "solo": start the leader console first (swarm lead --team solo), or use --backend tmux',
    );
  });

  it('a registered host whose pid is dead counts as none; kill and isAlive see nothing running', async () => {
    const child = execa(process.execPath, ['-e', '0']);
    await child;
    const dead = child.pid!;
    await updateTeam(new Team(root, 'solo'), (c) => {
      c.swarm = { ...c.swarm, inProcessHost: { pid: dead, startedAt: 1 } };
    });
    const backend = new InProcessBackend({ team: new Team(root, 'solo') });
    await expect(backend.createPane(spec)).rejects.toThrow(/swarm lead --team solo/);
    const pane = { paneId: 'in-process', backendType: 'in-process' as const, pid: dead, name: 'ann' };
    expect(await backend.isAlive(pane)).toBe(false);
    await expect(backend.kill(pane)).resolves.toBeUndefined();
  });

  it('a second live host for the same team is refused', async () => {
    const other = execa(process.execPath, ['-e', 'setInterval(() => {}, 1000)']);
    try {
      await updateTeam(new Team(root, 'solo'), (c) => {
        c.swarm = { ...c.swarm, inProcessHost: { pid: other.pid!, startedAt: 1 } };
      });
      await expect(InProcessHost.open({ team: new Team(root, 'solo'), launch: probeLaunch })).rejects.toThrow(/already has an in-process host \(pid \d+\)/);
    } finally {
      other.kill('SIGKILL');
      await other.catch(() => undefined);
    }
  });
});

describe('in-process host', () => {
  let t: Awaited<ReturnType<typeof hostedTeam>> | undefined;
  afterEach(async () => {
    await t?.cleanup();
    t = undefined;
  });

  it('registers in config.json and unregisters on close', async () => {
    t = await hostedTeam('reg', probeLaunch);
    expect((await readTeam(new Team(t.root, 'reg'))).swarm?.inProcessHost).toEqual({ pid: process.pid, startedAt: expect.any(Number) });
    await t.host.close();
    expect((await readTeam(new Team(t.root, 'reg'))).swarm?.inProcessHost).toBeUndefined();
  });

  it('each teammate sees its own context across awaits and timers; interrupt aborts only the current work', async () => {
    const seen: string[] = [];
    const launch: TeammateLaunch = async (_argv, _env, ctx) => {
      for (;;) {
        const work = ctx.workSignal();
        await new Promise((r) => setTimeout(r, 0)); // a timer hop (not a wait): the context must survive it
        seen.push(`${ctx.name}:${currentTeammate()?.name ?? 'none'}`);
        await new Promise<void>((resolve) => {
          const done = (): void => resolve();
          work.addEventListener('abort', done, { once: true });
          ctx.stopSignal.addEventListener('abort', done, { once: true });
        });
        if (ctx.stopSignal.aborted) return 0;
        ctx.print(`${currentTeammate()?.name ?? 'none'} interrupted`);
      }
    };
    t = await hostedTeam('als', launch);
    const backend = new InProcessBackend({ team: new Team(t.root, 'als') });
    const spec = (name: string) => ({ team: 'als', name, color: 'red', argv: ['teammate'], env: {}, cwd: '/' });
    const [a, b] = await Promise.all([backend.createPane(spec('ann')), backend.createPane(spec('bob'))]);
    await waitFor(() => seen.length >= 2, 3000, 'both teammates running');
    expect(t.host.interrupt('ann')).toBe(true);
    await waitFor(async () => (await backend.capture(a, 5)).lines.join('\n').includes('ann interrupted'), 3000, "ann's interrupt line");
    expect(await backend.isAlive(a)).toBe(true); // interrupted, not stopped
    expect(await backend.capture(b, 5)).toEqual({ lines: [], exit: undefined });
    await waitFor(() => seen.filter((s) => s.startsWith('ann')).length >= 2, 3000, 'ann back at work');
    expect(new Set(seen)).toEqual(new Set(['ann:ann', 'bob:bob']));
    await backend.kill(a);
    expect(await backend.isAlive(a)).toBe(false);
    expect(await backend.isAlive(b)).toBe(true);
    await expect(readFile(new Team(t.root, 'als').paths.hostedFile('ann', 'state'))).rejects.toThrow(/ENOENT/);
  });

  it('a teammate that ignores its stop signal makes kill fail (not verified), never a false success', async () => {
    const launch: TeammateLaunch = () => new Promise(() => undefined);
    t = await hostedTeam('stuck', launch);
    const backend = new InProcessBackend({ team: new Team(t.root, 'stuck'), killTimeoutMs: 600 });
    const pane = await backend.createPane({ team: 'stuck', name: 'ann', color: 'red', argv: ['x'], env: {}, cwd: '/' });
    await expect(backend.kill(pane)).rejects.toThrow(/could not verify kill of in-process teammate ann/);
    expect(await backend.isAlive(pane)).toBe(true);
    // close() must not hang on it either: it reports the failure.
    await expect(t.host.close()).rejects.toThrow(/did not stop/);
  });

  it('spawn → ready → shutdown approved, through the host', async () => {
    t = await hostedTeam('sq', fakeInProcessTeammate);
    const backend = new InProcessBackend({ team: new Team(t.root, 'sq') });
    const env = { CLAUDE_CONFIG_DIR: t.root, SWARM_PROBE: 'hosted' };
    const r = await spawnTeammate({ team: new Team(t.root, 'sq'), name: 'ann', prompt: 'hello ann', backend, env, readyTimeoutMs: 5000 });
    expect(r).toEqual({ agentId: 'ann@sq', name: 'ann', color: 'blue', backendType: 'in-process', paneId: 'in-process', pid: process.pid });
    const member = (await readTeam(new Team(t.root, 'sq'))).members[1]!;
    expect(member).toMatchObject({ tmuxPaneId: 'in-process', backendType: 'in-process', pid: process.pid, runtime: 'swarm' });
    const pane = { paneId: 'in-process', backendType: 'in-process' as const, name: 'ann' };
    // The host writes the state file (and its output) a moment after the teammate prints.
    await waitFor(async () => (await backend.capture(pane, 5)).lines.join('\n').includes('FAKE argv ["--agent-id","ann@sq"'), 3000, 'the output');

    const out = await shutdownTeammate(new Team(t.root, 'sq'), 'ann', { env, timeoutMs: 5000 });
    expect(out).toEqual({ name: 'ann', outcome: 'approved', verified: true });
    expect((await readTeam(new Team(t.root, 'sq'))).members.map((m) => m.name)).toEqual(['team-lead']);
    expect(t.host.isAlive('ann')).toBe(false);
    await expect(readFile(new Team(t.root, 'sq').paths.hostedFile('ann', 'state'))).rejects.toThrow(/ENOENT/);
  });
});
