// Spawn's guards in process (the mutation run's tests of teammates/spawn.ts; the tmux spawns are in
// spawn.test.ts): each input refused before anything is written, in one line that says what to do,
// and a spawn that fails after its member is reserved leaving nothing behind (the member, its inbox,
// its status, its worktree and branch), or, for a team launched again, its kept inbox. The pane
// backend is a stand-in whose "pane" is a live `sleep` that writes its status file as a swarm
// teammate does, so readiness is the real handshake.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend, PaneRef, PaneSpec } from '../../src/backends/backend.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { SwarmError } from '../../src/protocol/errors.js';
import { readTeam, updateTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { spawnedTeammate, spawnTeammate, spawnTeammates, validateSpawn, type SpawnOptions } from '../../src/teammates/spawn.js';
import { git, makeRepo } from '../support/git-repo.js';
import { standInPanes, useStandInTeam, type StandInPanes } from '../support/stand-in-panes.js';

let root: string;
let team: Team;
let cwd: string;
useStandInTeam('swarm-spawn-cwd-', (s) => ({ root, team, cwd } = s));

/** The stand-in pane backend (test/support/stand-in-panes.ts); its new panes take their prompt. */
const panes = (create?: (spec: PaneSpec) => Promise<PaneRef>): StandInPanes => standInPanes(team, { takePrompt: true, ...(create ? { create } : {}) });

function options(backend: Backend, extra: Partial<SpawnOptions> = {}): SpawnOptions {
  return { team, name: 'w1', prompt: 'write the report', backend, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cwd, readyTimeoutMs: 5000, swarmExecutable: ['swarm'], which: (c) => `/usr/local/bin/${c}`, ...extra };
}

const roster = async (): Promise<string[]> => (await readTeam(team)).members.map((m) => m.name);

describe('validateSpawn: refused before anything is written', () => {
  const valid = () => ({ name: 'w1', prompt: 'go', root, cwd, env: {}, which: () => '/usr/local/bin/claude' });
  const refusal = (extra: object): [string, string] => {
    try {
      validateSpawn({ ...valid(), ...extra });
    } catch (e) {
      if (e instanceof SwarmError) return [e.kind, e.message];
      throw e;
    }
    throw new Error(`not refused: ${JSON.stringify(extra)}`);
  };

  it('each bad input in one line', () => {
    expect(refusal({ name: 'bad name' })[0]).toBe('invalid_name');
    expect(refusal({ prompt: ' \n\t' })).toEqual(['invalid_input', 'the initial prompt is empty; pass --prompt <text>']);
    expect(refusal({ runtime: 'gpt' })).toEqual(['invalid_input', 'expected --runtime swarm|claude, got "gpt"']);
    expect(refusal({ runtime: 'claude', which: () => undefined })).toEqual([
      'not_found',
      '--runtime claude needs the `claude` CLI (Claude Code) on PATH; install it (npm install -g @anthropic-ai/claude-code) or use --runtime swarm',
    ]);
    expect(refusal({ permissionMode: 'yolo' })[1]).toMatch(/^--permission-mode: expected .*, got "yolo"; pass one of those/);
    expect(refusal({ cwd: path.join(cwd, 'nowhere') })).toEqual(['invalid_input', `--cwd ${path.join(cwd, 'nowhere')} is not a directory`]);
    expect(refusal({ agentType: 'no-such-type' })[1]).toMatch(/^unknown agent type "no-such-type"; known: /);
  });

  it('what it settles: the runtime (default swarm), the mode, the cwd resolved, the agent type only when given', () => {
    expect(validateSpawn(valid())).toEqual({ runtime: 'swarm', mode: undefined, cwd });
    expect(validateSpawn({ ...valid(), runtime: 'claude', permissionMode: 'acceptEdits', agentType: 'general-purpose' })).toMatchObject({
      runtime: 'claude',
      mode: 'acceptEdits',
      cwd,
      agentType: { name: 'general-purpose' },
    });
    expect(validateSpawn({ ...valid(), cwd: undefined }).cwd).toBe(process.cwd());
  });

  it('panes on another machine: its claude and its cwd are checked there, not here', () => {
    expect(validateSpawn({ ...valid(), remote: true, runtime: 'claude', which: () => undefined, cwd: '/only/there' })).toEqual({ runtime: 'claude', mode: undefined, cwd: '/only/there' });
  });
});

describe('spawnTeammate: what it records, and what a failure leaves', () => {
  it('ready: the member recorded with its pane, runtime, model, mode and hibernateAfter; the prompt signed by team-lead, in the lead colour', async () => {
    const backend = panes();
    const mailbox = new Mailbox({ team });
    const seen: string[] = [];
    backend.createPane = ((orig) => async (spec: PaneSpec) => {
      seen.push(...(await mailbox.read(spec.name)).map((m) => `${m.from}/${m.color}${m.lead_sig === undefined ? '' : ' (signed)'}: ${m.text}`));
      return orig(spec);
    })(backend.createPane);
    const r = await spawnTeammate(options(backend, { model: 'claude-opus-4-5', permissionMode: 'acceptEdits', planModeRequired: true, hibernateAfterMs: 60_000, agentType: 'general-purpose' }));
    expect(r).toMatchObject({ name: 'w1', agentId: 'w1@t', paneId: '%1', backendType: 'tmux' });
    expect(r).not.toHaveProperty('modeNote');
    for (const key of ['claude', 'host']) expect(r).not.toHaveProperty(key); // no Claude Code asked its version for a swarm teammate; a local pane
    expect(seen).toEqual(['team-lead/red (signed): write the report']);
    const m = (await readTeam(team)).members[1]!;
    expect(m).toMatchObject({ name: 'w1', tmuxPaneId: '%1', backendType: 'tmux', runtime: 'swarm', model: 'claude-opus-4-5', mode: 'acceptEdits', planModeRequired: true, hibernateAfterMs: 60_000, agentType: 'general-purpose', cwd, prompt: 'write the report' });
    expect(m).not.toHaveProperty('sessionId');
    expect(await fs.readFile(team.paths.stderrLog('w1'), 'utf8')).toBe('');
  });

  it('what spawn reports of a ready teammate: its host only when its pane has one', () => {
    const local = spawnedTeammate('w1@t', 'w1', 'blue', { paneId: '%1', backendType: 'tmux', pid: 42 });
    expect(local).toStrictEqual({ agentId: 'w1@t', name: 'w1', color: 'blue', backendType: 'tmux', paneId: '%1', pid: 42 });
    expect(spawnedTeammate('w1@t', 'w1', 'blue', { paneId: '%1', backendType: 'tmux', pid: 42, host: 'build1' })).toStrictEqual({ ...local, host: 'build1' });
  });

  it('with no model, mode or type given: none recorded (the team decides)', async () => {
    await spawnTeammate(options(panes()));
    const m = (await readTeam(team)).members[1]!;
    for (const key of ['model', 'mode', 'planModeRequired', 'hibernateAfterMs', 'agentType', 'sessionId']) expect(m).not.toHaveProperty(key);
  });

  it("the team's permission mode is the default", async () => {
    await updateTeam(team, (c) => void (c.swarm = { ...c.swarm, permissionMode: 'plan' }));
    await spawnTeammate(options(panes()));
    expect((await readTeam(team)).members[1]).toMatchObject({ mode: 'plan' });
  });

  it('a pane that cannot be made: the member, its inbox and its status are gone, the stderr log says why', async () => {
    const backend = panes(async () => Promise.reject(new SwarmError('backend', 'tmux: no server running')));
    const failed = await spawnTeammate(options(backend)).then(() => undefined, (e: unknown) => e as Error);
    expect(failed?.message.split('\n')[0]).toBe('spawn of w1 failed: tmux: no server running'); // nothing else went wrong undoing it
    expect(await roster()).toEqual(['team-lead']);
    expect(existsSync(team.paths.inbox('w1'))).toBe(false);
    expect(existsSync(team.paths.status('w1'))).toBe(false);
  });

  it('a team launched again (keepInbox): the old inbox is kept as history, marked read, also after a failure', async () => {
    const mailbox = new Mailbox({ team });
    await mailbox.append('w1', { from: 'team-lead', text: 'from the earlier run' });
    const backend = panes(async () => Promise.reject(new Error('no pane')));
    await expect(spawnTeammate(options(backend, { keepInbox: true }))).rejects.toThrow(/^spawn of w1 failed: no pane/);
    expect((await mailbox.read('w1')).map((m) => [m.text, m.read])).toEqual([
      ['from the earlier run', true],
      ['write the report', false],
    ]);
  });

  it('a teammate that dies before it is ready: its pane killed, nothing left', async () => {
    const backend = panes(async () => ({ paneId: '%dies', backendType: 'tmux', pid: 1 }));
    await expect(spawnTeammate(options(backend))).rejects.toThrow(/^spawn of w1 failed: w1 exited before it was ready/);
    expect(backend.kills).toEqual(['%dies']);
    expect(await roster()).toEqual(['team-lead']);
  });

  it('--isolation worktree: made, recorded (cwd inside it, the repository remembered); a failed spawn removes it and its branch', async () => {
    const repo = await makeRepo(cwd);
    await fs.mkdir(path.join(repo, 'sub'));
    const ok = await spawnTeammate(options(panes(), { name: 'iso', cwd: path.join(repo, 'sub'), isolation: 'worktree' }));
    const dir = path.join(repo, '.claude', 'worktrees', 't-iso');
    const config = await readTeam(team);
    expect(config.members[1]).toMatchObject({ name: ok.name, worktreePath: dir, cwd: path.join(dir, 'sub') });
    expect(config.swarm?.worktreeRepos).toEqual([repo]);
    await spawnTeammate(options(panes(), { name: 'iso2', cwd: repo, isolation: 'worktree' }));
    expect((await readTeam(team)).swarm?.worktreeRepos).toEqual([repo]); // once

    const failing = panes(async () => Promise.reject(new Error('no pane')));
    await expect(spawnTeammate(options(failing, { name: 'iso3', cwd: repo, isolation: 'worktree' }))).rejects.toThrow(/^spawn of iso3 failed: no pane/);
    expect(existsSync(path.join(repo, '.claude', 'worktrees', 't-iso3'))).toBe(false);
    expect(await git(repo, 'branch', '--list', 'swarm/t/iso3')).toBe('');
  });

  it('spawnTeammates: an aborted list starts nothing more; a refused entry does not stop the others', async () => {
    const backend = panes();
    const aborted = new AbortController();
    aborted.abort();
    const results = await spawnTeammates([options(backend, { name: 'a1' }), options(backend, { name: 'b1', prompt: ' ' }), options(backend, { name: 'c1', signal: aborted.signal })]);
    expect(results.map((r) => (r.ok ? `${r.name} ok` : `${r.name}: ${r.error.kind}: ${r.error.message}`))).toEqual([
      'a1 ok',
      'b1: invalid_input: the initial prompt is empty; pass --prompt <text>',
      'c1: interrupted: c1 was not started (interrupted)',
    ]);
    expect(await roster()).toEqual(['team-lead', 'a1']);
  });
});
