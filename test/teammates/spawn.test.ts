// Spawning and stopping teammates for real: tmux on a private socket per test (support/tmux.ts,
// reaped afterwards), the fake teammate (support/fake-teammate.mjs, needs `npm run build`) as the
// pane's command through SWARM_TEAMMATE_COMMAND. Forwarded variables are set only in the spawn's
// env (never in this process's), so they can reach the pane only through the backend.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { isProcessAlive } from '../../src/backends/process.js';
import { selectBackend } from '../../src/backends/registry.js';
import { spawnTeammate, spawnTeammates, type SpawnOptions } from '../../src/teammates/spawn.js';
import { claudeSettings } from '../../src/teammates/command-line.js';
import { killTeammate, shutdownAll, shutdownTeammate } from '../../src/teammates/stop.js';
import { readAudit } from '../../src/permissions/audit.js';
import { TmuxServer, listAllPanes } from '../../src/backends/tmux/commands.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { ensureLeadKey } from '../../src/permissions/keys.js';
import { verifyEntry } from '../../src/permissions/signing.js';
import { isSwarmError, parseControl } from '../../src/protocol/index.js';
import { createTeam, memoryDir, readTeam, readTeamSpend, teamPaths, updateTeam } from '../../src/team/index.js';
import { listTree } from '../support/fs-tree.js';
import { deadPid, writeStatus } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';
import { Team } from '../../src/team/team.js';

const FAKE = fileURLToPath(new URL('../support/fake-teammate.mjs', import.meta.url));
const TEAM = 'sq';

let root: string;
let socket: string;
let server: TmuxServer;
let backend: Backend;
let env: Record<string, string>;
const pids = new Set<number>();

/** SWARM_TEAMMATE_COMMAND running the fake, with FAKE_* variables set through `env`. */
function fakeCommand(fakeEnv: Record<string, string> = {}): string {
  const vars = Object.entries(fakeEnv).map(([k, v]) => `${k}=${v}`);
  return quote([...(vars.length > 0 ? ['env', ...vars] : []), process.execPath, FAKE]);
}

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  socket = tmuxForThisTest(pids);
  server = new TmuxServer({ socket });
  env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    CLAUDE_CONFIG_DIR: root,
    SWARM_TMUX_SOCKET: socket,
    SWARM_TEAMMATE_COMMAND: fakeCommand(),
    SWARM_PROBE: `probe "v" 'sq' $HOME; #{x}`,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9/v1',
    NOT_FORWARDED: 'must not arrive',
  };
  ({ backend } = await selectBackend({ requested: 'tmux', env, team: new Team(root, TEAM), killTimeoutMs: 1500 }));
});

async function spawn(name: string, extra: Partial<SpawnOptions> = {}) {
  const r = await spawnTeammate({ team: new Team(root, TEAM), name, prompt: `hello ${name}`, backend, env, readyTimeoutMs: 8000, ...extra });
  if (r.pid !== undefined) pids.add(r.pid);
  return r;
}

const show = async (target: string, format: string): Promise<string> =>
  (await server.run(['display-message', '-p', '-t', target, format])).trim();

interface FakeStatus {
  pid: number;
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}
async function status(name: string): Promise<FakeStatus> {
  return JSON.parse(await fs.readFile(teamPaths(root, TEAM).status(name), 'utf8')) as FakeStatus;
}

async function expectGone(name: string, paneId: string, pid: number | undefined): Promise<void> {
  expect((await listAllPanes(server)).some((p) => p.paneId === paneId), `pane ${paneId} gone`).toBe(false);
  if (pid !== undefined) expect(isProcessAlive(pid), `process ${pid} gone`).toBe(false);
  expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).not.toContain(name);
  await expect(fs.access(teamPaths(root, TEAM).status(name))).rejects.toThrow(/ENOENT/);
}

describe('spawnTeammate (tmux, fake teammate)', () => {
  it('3 teammates: titled panes, config matches tmux, prompts picked up, every flag and the forwarded env arrive', async () => {
    const cwd = await fs.realpath(root);
    const key = await ensureLeadKey(new Team(root, TEAM));
    // reviewer is a project agent type of bob's cwd (spawn refuses an unknown type).
    await fs.mkdir(path.join(cwd, '.claude', 'agents'), { recursive: true });
    await fs.writeFile(path.join(cwd, '.claude', 'agents', 'reviewer.md'), '---\nname: reviewer\ndescription: reviews\nmodel: haiku\npermissionMode: plan\n---\nReview.\n');
    const ann = await spawn('ann');
    const bob = await spawn('bob', { model: 'claude-x', agentType: 'reviewer', planModeRequired: true, permissionMode: 'acceptEdits', cwd });
    const cy = await spawn('cy');
    const config = await readTeam(new Team(root, TEAM));
    const panes = await listAllPanes(server);
    for (const r of [ann, bob, cy]) {
      const member = config.members.find((m) => m.name === r.name)!;
      const pane = panes.find((p) => p.paneId === r.paneId);
      expect(pane, `${r.name}'s pane`).toBeDefined();
      expect(member).toMatchObject({ tmuxPaneId: r.paneId, backendType: 'tmux', pid: pane!.pid, runtime: 'swarm', color: r.color });
      expect(await show(r.paneId, '#{pane_title}|#{@agent_name}|#{session_name}')).toBe(`${r.name}|${r.name}|swarm-${TEAM}`);
      // The prompt is the first inbox entry, from team-lead, signed, and was consumed (marked read).
      const [first] = await new Mailbox({ team: new Team(root, TEAM) }).read(r.name);
      expect(first).toMatchObject({ from: 'team-lead', text: `hello ${r.name}`, read: true });
      expect(verifyEntry(first, key.verifyKey)).toBe(true);
      const st = await status(r.name);
      expect(st.pid).toBe(pane!.pid);
      expect(st.env).toMatchObject({ SWARM_PROBE: env.SWARM_PROBE, ANTHROPIC_BASE_URL: env.ANTHROPIC_BASE_URL, CLAUDE_CONFIG_DIR: root });
      expect(st.env.NOT_FORWARDED).toBeUndefined();
    }
    expect([ann.color, bob.color, cy.color]).toEqual(['blue', 'green', 'yellow']);
    expect((await status('bob')).argv).toEqual([
      '--agent-id', 'bob@sq', '--agent-name', 'bob', '--team-name', 'sq', '--agent-color', 'green',
      '--parent-session-id', config.leadSessionId, '--lead-verify-key', key.verifyKey,
      '--agent-type', 'reviewer', '--model', 'claude-x', '--plan-mode-required', '--permission-mode', 'acceptEdits', '--cwd', cwd,
    ]);
    expect((await status('bob')).cwd).toBe(cwd);
    expect(config.members.find((m) => m.name === 'bob')).toMatchObject({ model: 'claude-x', agentType: 'reviewer', planModeRequired: true, mode: 'acceptEdits', cwd });
  });

  it("an agent file's permissionMode above the person's is lowered and reported; a model's mode above it is refused before anything is written", async () => {
    const cwd = await fs.realpath(root);
    await fs.mkdir(path.join(cwd, '.claude', 'agents'), { recursive: true });
    const file = path.join(cwd, '.claude', 'agents', 'verification.md');
    await fs.writeFile(file, '---\nname: verification\ndescription: checks\npermissionMode: bypassPermissions\n---\nCheck.\n');
    const v = await spawn('v', { agentType: 'verification', cwd });
    expect(v.modeNote).toBe(
      `agent type verification (${file}) asks for permissionMode bypassPermissions; v runs in default instead: an agent file never raises the mode above the person's (the person gives it with --permission-mode bypassPermissions, or permissionMode in a team file)`,
    );
    expect((await status('v')).argv).toEqual(expect.arrayContaining(['--agent-type', 'verification', '--permission-mode', 'default']));
    expect((await readTeam(new Team(root, TEAM))).members.find((m) => m.name === 'v')?.mode).toBe('default');
    // The team's mode (a team file's, a run's --permission-mode) is the ceiling when the spawn gives none.
    await updateTeam(new Team(root, TEAM), (c) => void (c.swarm = { ...c.swarm, permissionMode: 'acceptEdits' }));
    const w = await spawn('w', { agentType: 'verification', cwd });
    expect((await status('w')).argv).toEqual(expect.arrayContaining(['--permission-mode', 'acceptEdits']));
    expect(w.modeNote).toMatch(/w runs in acceptEdits instead/);

    const panesBefore = (await listAllPanes(server)).length;
    const refused = await spawn('x', { requestedMode: 'bypassPermissions' }).catch((e: unknown) => e);
    expect(isSwarmError(refused, 'invalid_input'), String(refused)).toBe(true);
    expect((refused as Error).message).toMatch(/^mode bypassPermissions is above acceptEdits, the permission mode the person chose for this run/);
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toEqual(['team-lead', 'v', 'w']);
    expect(await listTree(teamPaths(root, TEAM).inboxes)).not.toContain('x.json');
    expect((await listAllPanes(server)).length).toBe(panesBefore);
  });

  it('a teammate that crashes at once: spawn fails with its output, and nothing is left behind', async () => {
    const started = Date.now();
    const err = await spawn('crashy', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_CRASH: '1' }) }, readyTimeoutMs: 20_000 }).catch((e: unknown) => e);
    // Noticed the dead pane, did not sit out the 20 s (about 1 s here; 5.1 s beside a CPU hog of 2 processes).
    expect(Date.now() - started).toBeLessThan(12_000);
    expect(isSwarmError(err, 'backend')).toBe(true);
    const message = (err as Error).message;
    // tmux 3.3a reports the exit status only once it has processed the SIGCHLD (see tmux-backend.test).
    expect(message.split('\n')[0]).toMatch(/^spawn of crashy failed: crashy exited before it was ready( \(exit status 3\))?$/);
    expect(message).toContain('last output of its pane:');
    expect(message).toContain('fake-teammate: crashing at once (FAKE_CRASH=1)');
    expect(message).toContain('FAKE argv ["--agent-id","crashy@sq"');
    // Only what the teammate printed: no blank rows, no tmux "Pane is dead" line.
    expect(message.split('\n').filter((l) => l.trim() === '' || l.includes('Pane is dead'))).toEqual([]);
    // Its stderr is kept (and named), also after the cleanup.
    const log = teamPaths(root, TEAM).stderrLog('crashy');
    // Named at the end; when tmux had not drawn the last line yet, that line follows from the log.
    expect(message.split('\n').slice(-2).join('\n')).toMatch(new RegExp(`its stderr is kept in ${log}$|then on its stderr \\(${log}\\):\n  fake-teammate: crashing at once`));
    expect(await fs.readFile(log, 'utf8')).toBe('fake-teammate: crashing at once (FAKE_CRASH=1)\n');
    expect((await fs.stat(log)).mode & 0o777).toBe(0o600); // like every file under the root, whatever tee's umask
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toEqual(['team-lead']);
    const panes = await listAllPanes(server);
    expect(panes).toHaveLength(1); // only the session's leader pane
    await expect(fs.access(teamPaths(root, TEAM).inbox('crashy'))).rejects.toThrow(/ENOENT/);
  });

  it('a teammate that never reads its prompt: not ready by the deadline → killed and removed', async () => {
    const err = await spawn('mute', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_SILENT: '1' }) }, readyTimeoutMs: 4000 }).catch(
      (e: unknown) => e,
    );
    expect((err as Error).message).toMatch(/^spawn of mute failed: mute was not ready within 4 s \(it did not pick up its prompt/);
    expect((err as Error).message).toContain('never reading the inbox');
    expect(await listAllPanes(server)).toHaveLength(1);
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('--runtime claude: the `claude` on PATH with its flags and env; ready on the prompt alone; the leader removes it on approval', async () => {
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'claude'), `#!/bin/sh\nexec ${quote([process.execPath, FAKE])} "$@"\n`, { mode: 0o755 });
    const claudeEnv = { ...env, PATH: `${bin}:${env.PATH}` };
    await fs.rm(teamPaths(root, TEAM).scratchpad, { recursive: true }); // a team from before scratchpads: made (0700) before claude starts
    const r = await spawn('cc', { runtime: 'claude', env: claudeEnv, permissionMode: 'bypassPermissions', model: 'opus' });
    expect((await fs.stat(teamPaths(root, TEAM).scratchpad)).mode & 0o777).toBe(0o700);
    expect(r.claude).toEqual({ path: path.join(bin, 'claude'), version: '0.0.0-fake (Claude Code)' }); // which claude, said
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members[1]).toMatchObject({ name: 'cc', runtime: 'claude', tmuxPaneId: r.paneId });
    await expect(fs.access(teamPaths(root, TEAM).status('cc'))).rejects.toThrow(/ENOENT/); // no status: prompt alone
    const text = (await backend.capture({ paneId: r.paneId, backendType: 'tmux', ...(r.pid ? { pid: r.pid } : {}) }, 40)).lines.join('\n');
    const argv = JSON.parse(/FAKE argv (.*)/.exec(text)![1]!) as string[];
    expect(argv).toEqual([
      '--agent-id', 'cc@sq', '--agent-name', 'cc', '--team-name', 'sq', '--agent-color', 'blue', '--parent-session-id', config.leadSessionId,
      '--model', 'opus', '--session-id', config.members[1]!.sessionId, '--dangerously-skip-permissions', // the session swarm names for it, recorded
      '--append-system-prompt-file', teamPaths(root, TEAM).appendedPrompt('cc'), // its team memory, as swarm teammates get it
      '--settings', teamPaths(root, TEAM).claudeSettings('cc'), // a file: Claude Code copies inline JSON to /tmp for good
    ]);
    // the scratchpad and team memory rules
    expect(JSON.parse(await fs.readFile(teamPaths(root, TEAM).claudeSettings('cc'), 'utf8'))).toEqual(claudeSettings(teamPaths(root, TEAM).scratchpad, memoryDir(root, process.cwd())));
    expect(await fs.readFile(teamPaths(root, TEAM).appendedPrompt('cc'), 'utf8')).toMatch(/^# Team memory\nNothing is saved yet for this project/);
    expect(JSON.parse(/FAKE env (.*)/.exec(text)![1]!)).toMatchObject({ CLAUDECODE: '1', CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', SWARM_PROBE: env.SWARM_PROBE });
    expect(await shutdownTeammate(new Team(root, TEAM), 'cc', { env: claudeEnv, timeoutMs: 8000 })).toEqual({ name: 'cc', outcome: 'approved', verified: true });
    await expectGone('cc', r.paneId, r.pid);
  });

  it('--runtime claude without claude on PATH: a clear error, nothing written', async () => {
    await expect(spawn('cc', { runtime: 'claude', env: { ...env, PATH: '/nonexistent' } })).rejects.toThrow(/--runtime claude needs the `claude` CLI/);
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
    expect(await listAllPanes(server)).toHaveLength(0);
  });

  it('an existing name is refused before anything is touched', async () => {
    await spawn('ann');
    await expect(spawn('ANN')).rejects.toThrow(/member "ANN" already exists/);
    expect(await listAllPanes(server)).toHaveLength(2);
  });
});

describe('kill and shutdown (tmux, fake teammate)', () => {
  it("kill: pane and process gone, member and status removed; an earlier ann's heartbeat gives way to the new one, what it spent still counts", async () => {
    const team = new Team(root, TEAM);
    await writeStatus(root, TEAM, 'ann', { pid: await deadPid(), agentId: `ann@${TEAM}`, startedAt: 1, totalTokens: 300, costUsd: 0.3 });
    const r = await spawn('ann');
    expect((await status('ann')).pid).toBe(r.pid);
    expect(await killTeammate(team, 'ann', { env, killTimeoutMs: 1500 })).toEqual({ name: 'ann', outcome: 'killed', verified: true });
    await expectGone('ann', r.paneId, r.pid);
    expect(await readTeamSpend(team, await readTeam(team))).toEqual({ costUsd: 0.3, tokens: 300, unpriced: [] });
  });

  it('shutdown approved: a signed request; exit verified, pane closed, member removed; other leader mail stays unread', async () => {
    const r = await spawn('ann');
    const mailbox = new Mailbox({ team: new Team(root, TEAM) });
    await mailbox.append('team-lead', { from: 'ann', text: 'a note for the console' });
    const out = await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 8000, reason: 'done for today' });
    expect(out).toEqual({ name: 'ann', outcome: 'approved', verified: true });
    await expectGone('ann', r.paneId, r.pid);
    const request = (await mailbox.read('ann')).map((m) => parseControl(m.text)).find((p) => p.kind === 'control');
    expect(request).toMatchObject({ kind: 'control', message: { type: 'shutdown_request', from: 'team-lead', reason: 'done for today' } });
    const lead = await mailbox.read('team-lead');
    expect(lead.find((m) => m.text === 'a note for the console')?.read).toBe(false);
    expect(lead.find((m) => m.text.includes('shutdown_approved'))?.read).toBe(true);
  });

  it('shutdown rejected: the reason is reported and it keeps running; with --force it is killed', async () => {
    const r = await spawn('ann', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_REJECT: '1' }) } });
    const out = await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 8000 });
    expect(out).toEqual({ name: 'ann', outcome: 'rejected', reason: 'busy: still writing tests (FAKE_REJECT=1)', verified: false });
    expect(isProcessAlive(r.pid!)).toBe(true);
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toContain('ann');

    const forced = await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 8000, force: true, killTimeoutMs: 1500 });
    expect(forced).toEqual({ name: 'ann', outcome: 'killed', reason: '--force after a rejection: busy: still writing tests (FAKE_REJECT=1)', verified: true });
    await expectGone('ann', r.paneId, r.pid);
    const audited = (await readAudit(new Team(root, TEAM).paths)).filter((e) => e.event === 'shutdown');
    expect(audited.map((e) => [e.worker, e.status, e.by])).toEqual([
      ['ann', 'requested', 'team-lead'],
      ['ann', 'rejected', 'team-lead'],
      ['ann', 'requested', 'team-lead'],
      ['ann', 'killed', 'team-lead'],
    ]);
    expect(audited[0]!.id).toBe(audited[1]!.id);
  });

  it('shutdown ignored: times out without --force; with --force and a 1 s timeout it is killed, verified', async () => {
    const r = await spawn('ann', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_IGNORE: '1' }) } });
    expect(await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 500 })).toEqual({
      name: 'ann',
      outcome: 'timeout',
      reason: 'no answer within 0.5 s; the request stands: it exits by itself when its 30 s grace period ends', // the runtime does; this fake never
      verified: false,
    });
    expect(isProcessAlive(r.pid!)).toBe(true);
    const out = await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 1000, force: true, killTimeoutMs: 1500 });
    expect(out).toEqual({ name: 'ann', outcome: 'killed', reason: '--force after no answer within 1 s', verified: true });
    await expectGone('ann', r.paneId, r.pid);
  });

  it('shutdown --all: every teammate in parallel, each verified', async () => {
    const spawned = [await spawn('ann'), await spawn('bob'), await spawn('cy')];
    const outcomes = await shutdownAll(new Team(root, TEAM), { env, timeoutMs: 8000 });
    expect(outcomes.sort((a, b) => a.name.localeCompare(b.name))).toEqual(
      ['ann', 'bob', 'cy'].map((name) => ({ name, outcome: 'approved', verified: true })),
    );
    for (const r of spawned) await expectGone(r.name, r.paneId, r.pid);
    expect(await listAllPanes(server)).toHaveLength(1);
  });

  it('a teammate that already exited: already_gone, its leftover (remain-on-exit) pane closed', async () => {
    const r = await spawn('ann');
    process.kill(r.pid!, 'SIGTERM');
    await waitFor(() => !isProcessAlive(r.pid!), 5_000, 'ann to exit'); // a signal is not an exit: under load it can still answer
    const out = await shutdownTeammate(new Team(root, TEAM), 'ann', { env, timeoutMs: 3000, killTimeoutMs: 1500 });
    expect(out).toMatchObject({ name: 'ann', outcome: 'already_gone', verified: true });
    await expectGone('ann', r.paneId, r.pid);
  });

  it('the team lead cannot be killed or shut down', async () => {
    await expect(killTeammate(new Team(root, TEAM), 'team-lead', { env })).rejects.toThrow(/team lead is not a teammate/);
    await expect(shutdownTeammate(new Team(root, TEAM), 'nobody', { env })).rejects.toThrow(/no member "nobody"/);
  });
});

describe('spawn lock', () => {
  it('concurrent spawns of one team are serialised and all succeed', async () => {
    const rs = await Promise.all(['a1', 'a2', 'a3'].map((n) => spawn(n)));
    expect(new Set(rs.map((r) => r.paneId)).size).toBe(3);
    const lockDir = path.join(teamPaths(root, TEAM).dir, 'spawn.lock');
    await expect(fs.access(lockDir)).rejects.toThrow(/ENOENT/);
  });

  it('the lock covers pane creation only: a later spawn is ready while an earlier handshake still waits; both succeed', async () => {
    const gate = path.join(root, 'gate-a1');
    const first = spawn('a1', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_GATE: gate }) } });
    let firstSettled = false;
    const settled = first.then(
      () => (firstSettled = true),
      () => (firstSettled = true),
    );
    // a1's pane exists (its spawn is in the handshake) before a2 starts.
    await waitFor(async () => (await readTeam(new Team(root, TEAM))).members.find((m) => m.name === 'a1')?.tmuxPaneId, 8000, "a1's pane");
    const a2 = await spawn('a2'); // held up until a1 timed out while the lock covered the handshake
    expect(firstSettled).toBe(false);
    expect((await new Mailbox({ team: new Team(root, TEAM) }).read('a2'))[0]?.read).toBe(true);
    await fs.writeFile(gate, '');
    const a1 = await first;
    await settled;
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members.map((m) => [m.name, m.tmuxPaneId])).toEqual([['team-lead', ''], ['a1', a1.paneId], ['a2', a2.paneId]]);
    expect(await listAllPanes(server)).toHaveLength(3);
  });

  it('a handshake that fails while another overlaps it cleans up only its own teammate', async () => {
    const mute = spawn('mute', { env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand({ FAKE_SILENT: '1' }) }, readyTimeoutMs: 2500 }).catch(
      (e: unknown) => e,
    );
    const ok = await spawn('ok');
    const err = await mute;
    expect((err as Error).message).toMatch(/^spawn of mute failed: mute was not ready within 3 s/);
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toEqual(['team-lead', 'ok']);
    const panes = await listAllPanes(server);
    expect(panes.map((p) => p.paneId)).toContain(ok.paneId);
    expect(panes).toHaveLength(2);
    expect(isProcessAlive(ok.pid!)).toBe(true);
    expect((await status('ok')).pid).toBe(ok.pid);
    await expect(fs.access(teamPaths(root, TEAM).status('mute'))).rejects.toThrow(/ENOENT/);
  });

  it('spawnTeammates: panes one after another, readiness awaited concurrently; one failure leaves the others', async () => {
    const gate = path.join(root, 'gate-g1');
    const opts = (name: string, fakeEnv: Record<string, string> = {}): SpawnOptions => ({
      team: new Team(root, TEAM), name, prompt: `hello ${name}`, backend, readyTimeoutMs: 8000,
      env: { ...env, SWARM_TEAMMATE_COMMAND: fakeCommand(fakeEnv) },
    });
    const all = spawnTeammates([opts('g1', { FAKE_GATE: gate }), opts('crashy', { FAKE_CRASH: '1' }), opts('g3')]);
    // g3's pane exists and its prompt is taken while g1 is still held at its gate.
    const mailbox = new Mailbox({ team: new Team(root, TEAM) });
    await waitFor(async () => (await mailbox.read('g3').catch(() => []))[0]?.read === true, 8000, "g3's prompt picked up");
    expect((await mailbox.read('g1'))[0]?.read).toBe(false);
    await fs.writeFile(gate, '');
    const results = await all;
    expect(results.map((r) => [r.name, r.ok])).toEqual([['g1', true], ['crashy', false], ['g3', true]]);
    const failed = results[1]!;
    expect(!failed.ok && failed.error.message).toMatch(/^spawn of crashy failed: crashy exited before it was ready/);
    for (const r of results) if (r.ok && r.teammate.pid !== undefined) pids.add(r.teammate.pid);
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members.map((m) => m.name)).toEqual(['team-lead', 'g1', 'g3']);
    expect(await listAllPanes(server)).toHaveLength(3);
    await expect(fs.access(teamPaths(root, TEAM).inbox('crashy'))).rejects.toThrow(/ENOENT/);
  });
});
