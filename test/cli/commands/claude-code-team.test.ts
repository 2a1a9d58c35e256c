// swarm on a team a Claude Code leader created (issue 21): the team directory exactly as Claude Code
// 2.1.112 leaves it (config.json and team-lead's inbox from test/fixtures/claude-code, 0755
// directories, 0644 files, no permissions/ directory), with a teammate's `permission_request` frame
// in team-lead's inbox. `swarm permissions`, `approve`, `deny`, `status` and `doctor` work on it, and
// a request the Claude Code leader answered first is never answered twice.
// In-process (main(argv, io)), but for the spawn and shutdown and the second console: the real executable.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { parseControl } from '../../../src/protocol/index.js';
import { teamPaths } from '../../../src/team/index.js';
import { TmuxServer } from '../../../src/backends/tmux/commands.js';
import { quote } from 'shell-quote';
import { capturePane } from '../../../src/backends/tmux/commands.js';
import { SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { reapChildren, startSleeper } from '../../support/team-fixture.js';
import { waitFor } from '../../support/wait.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { useTempRoot } from '../../support/tmp-root.js';

const FAKE_TEAMMATE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../support/fake-teammate.mjs');
const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/claude-code');
const TEAM = 'review-squad';
const ID = 'perm-1733140002000-a1b2c3'; // alice's Bash request in inbox-2.1.112.json

let root: string;
useTempRoot((dir) => (root = dir));

/** What Claude Code 2.1.112 makes: teams/<team>/{config.json, inboxes/}, tasks/<team>/, umask modes. */
beforeEach(async () => {
  const p = teamPaths(root, TEAM);
  for (const d of [path.join(root, 'teams'), p.dir, p.inboxes, p.tasks.dir]) {
    await fs.mkdir(d, { recursive: true });
    await fs.chmod(d, 0o755);
  }
  await fs.copyFile(path.join(FIXTURES, 'config.json'), p.config);
  await fs.copyFile(path.join(FIXTURES, 'inbox-2.1.112.json'), p.inbox('team-lead'));
  for (const f of [p.config, p.inbox('team-lead')]) await fs.chmod(f, 0o644);
});

const run = (args: string[]) => swarmInProcess(root, [...args, '--team', TEAM]);

/** The permission_response frames to `id` in `name`'s inbox. */
async function responses(name: string, id = ID): Promise<{ from: string; lead_sig?: string; frame: Record<string, unknown> }[]> {
  const raw = await fs.readFile(teamPaths(root, TEAM).inbox(name), 'utf8').catch(() => '[]');
  return (JSON.parse(raw) as { from: string; text: string; lead_sig?: string }[]).flatMap((e) => {
    const c = parseControl(e.text);
    return c.kind === 'control' && c.message.type === 'permission_response' && c.message.request_id === id
      ? [{ from: e.from, ...(e.lead_sig ? { lead_sig: e.lead_sig } : {}), frame: c.message as Record<string, unknown> }]
      : [];
  });
}

async function modeOf(p: string): Promise<number> {
  return (await fs.stat(p)).mode & 0o777;
}

describe('a team Claude Code made', () => {
  it('permissions lists the teammate request (directories made on demand, 0700); approve answers it once', async () => {
    const p = teamPaths(root, TEAM);
    const list = await run(['permissions']);
    expect(list.exitCode, list.stderr).toBe(0);
    expect(list.stdout).toContain(`${ID}  alice  Bash`);
    for (const d of [p.permissions, p.pending]) expect(await modeOf(d)).toBe(0o700);

    const ok = await run(['approve', ID]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(await modeOf(p.resolved)).toBe(0o700);
    const sent = await responses('alice');
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ from: 'team-lead', frame: { subtype: 'success', response: { updated_input: { command: 'npm test' } } } });

    const again = await run(['approve', ID]);
    expect(again.exitCode).toBe(1);
    expect(again.stderr).toContain('already resolved (approved by team-lead)');
    expect(await responses('alice')).toHaveLength(1);
    expect((await run(['permissions'])).stdout).toContain('no pending permission requests');
    // Claude Code's own files and modes are left as they were.
    expect(await modeOf(p.dir)).toBe(0o755);
    expect(JSON.parse(await fs.readFile(p.config, 'utf8'))).toEqual(JSON.parse(await fs.readFile(path.join(FIXTURES, 'config.json'), 'utf8')));
  });

  it('a request the Claude Code leader answered first: approve says its answer won and sends nothing', async () => {
    const p = teamPaths(root, TEAM);
    expect((await run(['permissions'])).stdout).toContain(ID); // listed (pending file made) before the leader answers
    const ccAnswer = { type: 'permission_response', request_id: ID, subtype: 'error', error: 'no' };
    await fs.writeFile(p.inbox('alice'), JSON.stringify([{ from: 'team-lead', text: JSON.stringify(ccAnswer), timestamp: '2025-12-02T12:00:05.000Z', read: false }]));
    const r = await run(['approve', ID]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`swarm: permission request ${ID} is already answered by team-lead (Claude Code) (rejected); nothing was sent`);
    expect(await responses('alice')).toEqual([{ from: 'team-lead', frame: ccAnswer }]);
    const audit = (await fs.readFile(p.audit, 'utf8')).trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(audit.at(-1)).toMatchObject({ event: 'decision', id: ID, status: 'rejected', by: 'team-lead (Claude Code)' });
    expect((await run(['permissions'])).stdout).toContain('no pending permission requests');
  });

  it('a request the Claude Code leader answered before swarm looked is not listed, and deny says who answered', async () => {
    const p = teamPaths(root, TEAM);
    const ccAnswer = { type: 'permission_response', request_id: ID, subtype: 'success', response: { updated_input: { command: 'npm test' }, permission_updates: [] } };
    await fs.writeFile(p.inbox('alice'), JSON.stringify([{ from: 'team-lead', text: JSON.stringify(ccAnswer), timestamp: '2025-12-02T12:00:05.000Z', read: true }]));
    expect((await run(['permissions'])).stdout).toContain('no pending permission requests');
    const r = await run(['deny', ID]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`swarm: permission request ${ID} is already answered by team-lead (Claude Code) (approved); nothing was sent`);
    expect(await responses('alice')).toHaveLength(1);
  });

  it('status shows it, and doctor reports Claude Code\'s 0755 directories as info and its unanswered question as the one problem', async () => {
    const p = teamPaths(root, TEAM);
    // The teammates' panes, live in a private tmux server, as a Claude Code leader would have them.
    const socket = tmuxForThisTest();
    const tmux = new TmuxServer({ socket });
    const pane1 = (await tmux.run(['new-session', '-d', '-s', 'cc', '-P', '-F', '#{pane_id}', 'sleep 600'])).trim();
    const pane2 = (await tmux.run(['split-window', '-t', pane1, '-P', '-F', '#{pane_id}', 'sleep 600'])).trim();
    const config = (await fs.readFile(p.config, 'utf8')).replace('"%3"', JSON.stringify(pane1)).replace('"%4"', JSON.stringify(pane2));
    await fs.writeFile(p.config, config);
    const env = { SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' };
    expect((await run(['permissions'])).exitCode).toBe(0);

    const status = await swarmInProcess(root, ['status', '--team', TEAM], env);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/alice\s+tmux\s+%\d+\s/);

    const doctor = await swarmInProcess(root, ['doctor', '--team', TEAM], env);
    // The fixture's one problem: alice's question from 2024, and no leader running to answer it.
    expect(doctor.stdout.split('\n').filter((l) => l.startsWith('✗'))).toEqual([expect.stringMatching(/^✗ alice \(team review-squad\) has waited .* for permission to use Bash \(request perm-1733140002000-a1b2c3\) and no leader is running to answer it$/)]);
    expect(doctor.exitCode, doctor.stdout).toBe(1);
    expect(doctor.stdout).toContain(`i teams directory ${path.join(root, 'teams')} has mode 0755, as Claude Code made it; doctor leaves it alone`);
    expect(doctor.stdout).toContain(`i team ${TEAM}'s directory ${p.dir} has mode 0755, as Claude Code made it`);
    expect(doctor.stdout).toContain(`i team ${TEAM}'s inboxes directory ${p.inboxes} has mode 0755, as Claude Code made it`);
    const fixed = await swarmInProcess(root, ['doctor', '--fix', '--team', TEAM], env);
    expect(fixed.exitCode).toBe(1); // the question is the person's to answer, never doctor's
    for (const d of [path.join(root, 'teams'), p.dir, p.inboxes]) expect(await modeOf(d)).toBe(0o755);
    expect(await modeOf(p.permissions)).toBe(0o700);
  });

  it("swarm shutdown of a teammate while the Claude Code leader runs: approved and verified, the teammate's answer left unread for the leader (it drops the member from its own roster on it)", async () => {
    const p = teamPaths(root, TEAM);
    const leaderPid = await startSleeper(); // stands for the Claude Code leader's live process
    const config = JSON.parse(await fs.readFile(p.config, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(p.config, JSON.stringify({ ...config, leadProcess: { pid: leaderPid, claimedAt: Date.now() } }, null, 2)); // Claude Code's shape: no kind
    const env = tmuxEnv(tmuxForThisTest(), [process.execPath, FAKE_TEAMMATE]);
    const spawned = await swarm(root, ['spawn', 'carol', '--prompt', 'hi', '--cwd', root, '--backend', 'tmux', '--team', TEAM], env);
    expect(spawned.exitCode, spawned.stderr).toBe(0);
    const r = await swarm(root, ['shutdown', 'carol', '--team', TEAM, '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject([{ name: 'carol', outcome: 'approved', verified: true }]);
    const lead = JSON.parse(await fs.readFile(p.inbox('team-lead'), 'utf8')) as { from: string; text: string; read: boolean }[];
    const answers = lead.filter((m) => m.from === 'carol' && parseControl(m.text).kind === 'control');
    expect(answers.map((m) => [(parseControl(m.text) as { message: { type: string } }).message.type, m.read])).toEqual([['shutdown_approved', false]]);
  });

  it('swarm lead as a second pane for a running Claude Code leader: it watches (consumes nothing) and the person answers the teammate from it, once', async () => {
    const p = teamPaths(root, TEAM);
    const leaderPid = await startSleeper(); // stands for the Claude Code leader's live process
    const config = JSON.parse(await fs.readFile(p.config, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(p.config, JSON.stringify({ ...config, leadProcess: { pid: leaderPid, claimedAt: Date.now() } }, null, 2)); // Claude Code's shape: no kind
    const socket = tmuxForThisTest();
    const tmux = new TmuxServer({ socket });
    const env = { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const pane = (await tmux.run(['new-session', '-d', '-s', 'lead', '-x', '160', '-y', '50', '-P', '-F', '#{pane_id}', ...flags, quote([process.execPath, SWARM_BIN, 'lead', '--team', TEAM])])).trim();
    const screen = (): Promise<string> => capturePane(tmux, pane, 300);
    const shows = (text: string): Promise<unknown> =>
      waitFor(async () => (await screen()).includes(text), 15_000, text).catch(async (e: Error) => {
        throw new Error(`${e.message}:\n${await screen()}`);
      });
    await shows(`watching: pid ${leaderPid}`);
    await shows('[y] allow once');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await responses('alice')).length === 1, 15_000, "alice's answer");
    expect((await responses('alice'))[0]).toMatchObject({ from: 'team-lead', frame: { subtype: 'success' } });
    // The Claude Code leader takes delivery of its inbox: the watcher marked nothing read.
    const readFlags = async (file: string): Promise<boolean[]> => (JSON.parse(await fs.readFile(file, 'utf8')) as { read: boolean }[]).map((m) => m.read);
    expect(await readFlags(p.inbox('team-lead'))).toEqual(await readFlags(path.join(FIXTURES, 'inbox-2.1.112.json')));
    await reapChildren();
  }, 60_000);
});
