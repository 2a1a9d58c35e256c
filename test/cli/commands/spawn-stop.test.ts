// `swarm spawn`, `swarm kill`, `swarm shutdown` (SPEC §6): --json shapes, the human lines, exit
// codes, and the errors a user meets. The first test runs the built executable end to end; the
// others run the same command lines in-process through main(argv, io). tmux on a private socket per
// test (reaped afterwards); the fake teammate via SWARM_TEAMMATE_COMMAND. Run `npm run build` first.
// (execa strips the final newline of stdout/stderr.)
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { readTeam } from '../../../src/team/index.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { FAKE_TEAMMATE as FAKE, useFakeTeam } from '../../support/fake-team.js';
import { afterThisTest } from '../../support/tmp-root.js';
import { privateSocket, reapServer } from '../../support/tmux.js';
import { Team } from '../../../src/team/team.js';

const TEAM = 'cli';

let root: string;
let socket: string;
let env: Record<string, string>;
const pids = new Set<number>();

useFakeTeam(TEAM, pids, (t) => ({ root, socket, env } = t));

const run = (args: string[], extra: Record<string, string> = {}) => swarmInProcess(root, args, { ...env, ...extra });
/** `run` through the built executable (the first test: spawn, kill and shutdown end to end). */
const runChild = (args: string[], extra: Record<string, string> = {}) => swarm(root, args, { ...env, ...extra });

interface Spawned {
  agentId: string;
  name: string;
  color: string;
  backendType: string;
  paneId: string;
  pid: number;
}
async function spawnJson(name: string, extra: Record<string, string> = {}, via = run): Promise<Spawned> {
  const r = await via(['spawn', name, '--prompt', `hi ${name}`, '--backend', 'tmux', '--json'], extra);
  expect(r.exitCode, r.stderr).toBe(0);
  const out = JSON.parse(r.stdout) as Spawned;
  pids.add(out.pid);
  return out;
}

describe('swarm spawn / kill / shutdown', () => {
  it('spawn --json and the human line; kill --json; shutdown <name> --json: shapes, config, tmux, verified', async () => {
    const alice = await spawnJson('alice', {}, runChild);
    expect(Object.keys(alice)).toEqual(['agentId', 'name', 'color', 'backendType', 'paneId', 'pid']);
    expect(alice).toMatchObject({ agentId: 'alice@cli', name: 'alice', color: 'blue', backendType: 'tmux' });
    const member = (await readTeam(new Team(root, TEAM))).members[1]!;
    expect(member).toMatchObject({ name: 'alice', tmuxPaneId: alice.paneId, pid: alice.pid, backendType: 'tmux' });
    const server = new TmuxServer({ socket });
    expect((await listAllPanes(server)).find((p) => p.paneId === alice.paneId)?.pid).toBe(alice.pid);

    const human = await runChild(['spawn', 'bob', '--prompt', 'hi', '--backend', 'auto']);
    expect(human.exitCode, human.stderr).toBe(0);
    const lines = human.stdout.split('\n');
    expect(lines[0]).toMatch(/^spawned bob \(bob@cli\) in tmux pane %\d+, pid (\d+): ready$/);
    const bobPid = Number(/pid (\d+)/.exec(lines[0]!)![1]);
    pids.add(bobPid);
    expect(lines[1]).toBe(`  tmux -L ${socket} attach -t swarm-cli`);

    const killed = await runChild(['kill', 'alice', '--json']);
    expect(killed.exitCode, killed.stderr).toBe(0);
    expect(JSON.parse(killed.stdout)).toEqual({ name: 'alice', outcome: 'killed', verified: true });
    expect(isProcessAlive(alice.pid)).toBe(false);
    expect((await listAllPanes(server)).some((p) => p.paneId === alice.paneId)).toBe(false);

    const stopped = await runChild(['shutdown', 'bob', '--json', '--reason', 'done']);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual([{ name: 'bob', outcome: 'approved', verified: true }]);
    expect(isProcessAlive(bobPid)).toBe(false);
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('the tmux server is recorded with the member: status, doctor and kill find it from a shell on another server (or none)', async () => {
    const alice = await spawnJson('alice');
    const member = (await readTeam(new Team(root, TEAM))).members[1]!;
    const where = (await new TmuxServer({ socket }).run(['display-message', '-p', '#{socket_path}'])).trim();
    expect(member.paneServer).toBe(where);
    // Another private server B with a pane of its own: pane ids there may look like alice's.
    const other = privateSocket();
    afterThisTest(() => reapServer(other));
    await new TmuxServer({ socket: other }).run(['new-session', '-d', '-s', 'elsewhere', 'sleep 600']);
    for (const shell of [{ SWARM_TMUX_SOCKET: other }, { SWARM_TMUX_SOCKET: '' }]) {
      const st = await run(['status', '--json'], shell);
      expect(st.exitCode, st.stderr).toBe(0);
      const row = (JSON.parse(st.stdout) as { members: { name: string; alive: boolean | null; state: string }[] }).members.find((m) => m.name === 'alice');
      expect(row, JSON.stringify(shell)).toMatchObject({ alive: true });
      expect(row?.state).not.toBe('dead');
      const doc = await run(['doctor', '--json'], shell);
      const findings = (JSON.parse(doc.stdout) as { findings: { check: string }[] }).findings;
      expect(findings.filter((f) => f.check === 'dead_member'), JSON.stringify(shell)).toEqual([]);
    }
    const killed = await run(['kill', 'alice', '--json'], { SWARM_TMUX_SOCKET: other });
    expect(killed.exitCode, killed.stderr).toBe(0);
    expect(JSON.parse(killed.stdout)).toEqual({ name: 'alice', outcome: 'killed', verified: true });
    expect(isProcessAlive(alice.pid)).toBe(false);
    expect((await listAllPanes(new TmuxServer({ socket }))).some((p) => p.paneId === alice.paneId)).toBe(false);
    expect((await listAllPanes(new TmuxServer({ socket: other }))).length).toBe(1); // B's own pane untouched
  });

  it('a teammate that crashes: exit 1, the error line, then its pane output; no member left', async () => {
    const r = await run(['spawn', 'crashy', '--prompt', 'hi', '--backend', 'tmux'], {
      SWARM_TEAMMATE_COMMAND: quote(['env', 'FAKE_CRASH=1', process.execPath, FAKE]),
    });
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.split('\n');
    // The exit status shows when tmux has marked the pane dead by the time it is captured (a race).
    expect(lines[0]).toMatch(/^swarm: spawn of crashy failed: crashy exited before it was ready( \(exit status 3\))?$/);
    expect(lines[1]).toBe('  last output of its pane:');
    expect(r.stderr).toContain('    fake-teammate: crashing at once (FAKE_CRASH=1)');
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('--backend in-process with no console running: exit 1, one line saying to start swarm lead; nothing written', async () => {
    const r = await run(['spawn', 'ip', '--prompt', 'hi', '--backend', 'in-process']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`swarm: no in-process host is running for team "cli": start the leader console first (swarm lead --team cli), or use --backend tmux`);
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('bad input is refused with exit 2 before anything happens', async () => {
    const bad = await run(['spawn', '../x', '--prompt', 'hi', '--backend', 'tmux']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^swarm: invalid member name "..\/x"/);
    const mode = await run(['spawn', 'x', '--prompt', 'hi', '--permission-mode', 'yolo']);
    expect(mode.exitCode).toBe(2);
    expect(mode.stderr).toBe('swarm: --permission-mode: expected default|acceptEdits|bypassPermissions|plan, got "yolo"; pass one of those (case matters)');
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('shutdown --all: one line per teammate saying what happened; exit 1 while one still runs', async () => {
    await spawnJson('alice');
    await spawnJson('bob', { SWARM_TEAMMATE_COMMAND: quote(['env', 'FAKE_REJECT=1', process.execPath, FAKE]) });
    const r = await run(['shutdown', '--all', '--timeout', '20']);
    expect(r.exitCode).toBe(1);
    const lines = r.stdout.trimEnd().split('\n').sort();
    expect(lines).toEqual([
      'alice: approved the shutdown; process exited, pane closed, removed from the team',
      'bob: rejected the shutdown: busy: still writing tests (FAKE_REJECT=1); still running (use --force to kill)',
    ]);
    const forced = await run(['shutdown', '--all', '--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    expect(forced.stdout.trimEnd()).toBe('bob: killed (--force after a rejection: busy: still writing tests (FAKE_REJECT=1)); pane and process gone, removed from the team');
    expect((await readTeam(new Team(root, TEAM))).members).toHaveLength(1);
  });

  it('shutdown needs a name or --all, not both; an unknown member is a one-line error', async () => {
    expect((await run(['shutdown'])).stderr).toBe('swarm: name one teammate or pass --all (not both)');
    expect((await run(['shutdown', 'x', '--all'])).exitCode).toBe(2);
    const r = await run(['kill', 'ghost']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('swarm: no member "ghost" in team "cli" (members: team-lead)');
  });
});
