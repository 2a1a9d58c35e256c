// Liveness for `swarm status` and `swarm doctor`: recorded panes grouped by backend through the
// registry, one Backend.probe call per kind whatever the roster size, combined with the pid check.
import { Team } from '../../src/team/team.js';
import { describe, expect, it } from 'vitest';
import type { Exec } from '../../src/backends/process.js';
import { gatherLivenessFacts, judgeLiveness, paneKey, type RecordedPane } from '../../src/teammates/liveness.js';
import { useTempRoot } from '../support/tmp-root.js';
import { ensureDir, formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { createTeam, updateTeam } from '../../src/team/team-store.js';

describe('gatherLivenessFacts + judgeLiveness', () => {
  it('asks each backend once for its whole group and judges pane and pid together', async () => {
    const calls: string[][] = [];
    const exec: Exec = async (file, args) => {
      calls.push([file, ...args]);
      if (file === 'tmux') return { exitCode: 0, stdout: '%1 11 0  @1 cmd swarm-t\n%2 12 1 0 @1 cmd swarm-t\n', stderr: '' };
      if (file === 'it2') return { exitCode: 0, stdout: '[{"id":"S1"}]', stderr: '' };
      return { exitCode: 127, stdout: '', stderr: 'not found' };
    };
    const panes: RecordedPane[] = [
      { backendType: 'tmux', paneId: '%1', pid: 11 },
      { backendType: 'tmux', paneId: '%2', pid: 12 },
      { paneId: '%3' }, // an old record without backendType: tmux by the id's shape
      { backendType: 'iterm2', paneId: 'S1' },
      { backendType: 'iterm2', paneId: 'S2' },
      { paneId: '', pid: 11 }, // not created yet: the pid decides
      { backendType: 'screen', paneId: 'x', pid: 13 }, // no known backend
    ];
    const facts = await gatherLivenessFacts(panes, { team: new Team('/nonexistent', 't'), env: { SWARM_TMUX_SOCKET: 'priv' }, exec, isAlive: (pid) => pid === 11 });
    expect(calls.map((c) => c[0]).sort()).toEqual(['it2', 'tmux']); // concurrently, once each
    expect(calls.find((c) => c[0] === 'tmux')!.slice(1, 3)).toEqual(['-L', 'priv']); // the server the env given names
    expect(panes.map((p) => judgeLiveness(p, facts))).toEqual([
      { pane: 'alive', pidAlive: true, alive: true },
      { pane: 'dead', pidAlive: false, alive: false },
      { pane: 'gone', pidAlive: null, alive: false },
      { pane: 'alive', pidAlive: null, alive: true },
      { pane: 'gone', pidAlive: null, alive: false },
      { pane: 'none', pidAlive: true, alive: true },
      { pane: 'none', pidAlive: false, alive: false },
    ]);
  });

  it('a dead pane is not alive while its pid lives on; a roster with no pane asks no backend, and the pid decides', async () => {
    const p: RecordedPane = { backendType: 'tmux', paneId: '%1', pid: 7 };
    expect(judgeLiveness(p, { panes: new Map([[paneKey(p), 'dead']]), isAlive: () => true })).toEqual({ pane: 'dead', pidAlive: true, alive: false });
    const calls: string[][] = [];
    const exec: Exec = async (file, args) => (calls.push([file, ...args]), { exitCode: 127, stdout: '', stderr: 'not found' });
    const q: RecordedPane = { paneId: '', pid: 7 };
    const facts = await gatherLivenessFacts([q], { team: new Team('/nonexistent', 't'), env: {}, exec, isAlive: () => false });
    expect(judgeLiveness(q, facts)).toEqual({ pane: 'none', pidAlive: false, alive: false });
    expect(calls).toEqual([]);
  });

  it('panes that differ only in backend, tmux server or host get their own answers; a pane id reused by another pid is gone', async () => {
    const listing = '%1 99 0  @1 cmd swarm-t\n';
    const exec: Exec = async (file, args) => {
      if (file === 'tmux') return { exitCode: 0, stdout: args.includes('/srv/a') ? listing : '', stderr: '' };
      if (file === 'ssh') return { exitCode: 0, stdout: args.some((a) => a === 'h1') ? listing : '', stderr: '' };
      if (file === 'it2') return { exitCode: 0, stdout: '[{"id":"X"}]', stderr: '' };
      return { exitCode: 127, stdout: '', stderr: 'not found' };
    };
    const panes: RecordedPane[] = [
      { backendType: 'tmux', paneId: '%1', server: '/srv/a' },
      { backendType: 'tmux', paneId: '%1', server: '/srv/b' },
      { backendType: 'tmux', paneId: 'X' },
      { backendType: 'iterm2', paneId: 'X' },
      { backendType: 'ssh', paneId: '%1', host: 'h1' },
      { backendType: 'ssh', paneId: '%1', host: 'h2' },
    ];
    const opts = { team: new Team('/nonexistent', 't'), env: {}, exec, isAlive: () => true };
    const facts = await gatherLivenessFacts(panes, opts);
    expect(panes.map((p) => judgeLiveness(p, facts).pane)).toEqual(['alive', 'gone', 'gone', 'alive', 'alive', 'gone']);
    const reused: RecordedPane = { backendType: 'tmux', paneId: '%1', server: '/srv/a', pid: 11 };
    expect(judgeLiveness(reused, await gatherLivenessFacts([reused], opts)).pane).toBe('gone');
  });

  it('a backend that cannot be asked leaves the pid to decide', async () => {
    const exec: Exec = async () => ({ exitCode: 127, stdout: '', stderr: 'tmux: not found' });
    const p: RecordedPane = { backendType: 'tmux', paneId: '%1', pid: 7 };
    const facts = await gatherLivenessFacts([p], { team: new Team('/nonexistent', 't'), env: {}, exec, isAlive: () => true });
    expect(judgeLiveness(p, facts)).toEqual({ pane: 'unknown', pidAlive: true, alive: true });
  });
});

describe('in-process members (they all share the pane id `in-process`)', () => {
  let root = '';
  useTempRoot((r) => (root = r), 'swarm-live-ip-');

  it('each is told apart by its name: one running, one exited, one the host never had', async () => {
    const { team } = await createTeam(root, { name: 't' });
    await updateTeam(team, (c) => void (c.swarm = { ...c.swarm, inProcessHost: { pid: process.pid, startedAt: Date.now() } })); // this process plays the host
    const state = (name: string, s: 'running' | 'exited') => writeFileAtomic(team.paths.hostedFile(name, 'state'), formatJson({ id: `${name}-1`, name, state: s, pid: process.pid, startedAt: 1, output: [] }));
    await ensureDir(team.paths.hosted);
    await state('ann', 'running');
    await state('bob', 'exited');
    const panes: RecordedPane[] = ['ann', 'bob', 'cy'].map((name) => ({ backendType: 'in-process', paneId: 'in-process', name, pid: process.pid }));
    const facts = await gatherLivenessFacts(panes, { team });
    expect(panes.map((p) => judgeLiveness(p, facts).pane)).toEqual(['alive', 'dead', 'gone']);
    expect(new Set(panes.map(paneKey)).size).toBe(3);
  });
});

describe('a member on another machine (ssh)', () => {
  // The ssh tests' "remote" host is 127.0.0.1, where the recorded pid may well be alive: a local
  // pid check would wrongly call a gone teammate alive. Only its backend (asked over ssh) decides.
  let root: string;
  useTempRoot((r) => (root = r));

  const sshExec = (answer: { exitCode: number; stdout: string; stderr: string }, calls: string[][]): Exec => async (file, args) => {
    calls.push([file, ...args]);
    return file === 'ssh' ? answer : { exitCode: 127, stdout: '', stderr: `${file}: never run locally` };
  };

  it('is judged by its pane over ssh, never by a local pid check', async () => {
    const calls: string[][] = [];
    const asked: number[] = [];
    // Its tmux (over there) lists another pane only: this one is gone.
    const exec = sshExec({ exitCode: 0, stdout: '%9 999 0  @1 cmd swarm-t\n', stderr: '' }, calls);
    const p: RecordedPane = { backendType: 'ssh', paneId: '%1', pid: process.pid, host: 'build1' };
    const facts = await gatherLivenessFacts([p], { team: new Team(root, 't'), env: {}, exec, isAlive: (pid) => (asked.push(pid), true) });
    expect(judgeLiveness(p, facts)).toEqual({ pane: 'gone', pidAlive: null, alive: false });
    expect(asked).toEqual([]);
    expect(calls.map((c) => c[0])).toEqual(['ssh']);
    expect(calls[0]!.slice(-2)).toEqual(['--', "tmux list-panes -a -F '#{pane_id} #{pane_pid} #{pane_dead} #{pane_dead_status} #{window_id} #{?pane_start_command,cmd,shell} #{session_name}'"]);
  });

  it('a backend that cannot even be made (a relative SWARM_REMOTE_ROOT) leaves it unknown, asking nothing', async () => {
    const calls: string[][] = [];
    const p: RecordedPane = { backendType: 'ssh', paneId: '%1', pid: process.pid, host: 'build1' };
    const facts = await gatherLivenessFacts([p], { team: new Team(root, 't'), env: { SWARM_REMOTE_ROOT: 'mnt/claude' }, exec: sshExec({ exitCode: 0, stdout: '', stderr: '' }, calls), isAlive: () => true });
    expect(judgeLiveness(p, facts)).toEqual({ pane: 'unknown', pidAlive: null, alive: null });
    expect(calls).toEqual([]);
  });

  it('an unreachable host leaves it unknown (not alive by a local pid)', async () => {
    const exec = sshExec({ exitCode: 255, stdout: '', stderr: 'ssh: connect to host build1 port 22: Connection refused' }, []);
    const p: RecordedPane = { backendType: 'ssh', paneId: '%1', pid: process.pid, host: 'build1' };
    const facts = await gatherLivenessFacts([p], { team: new Team(root, 't'), env: {}, exec, isAlive: () => true });
    expect(judgeLiveness(p, facts)).toEqual({ pane: 'unknown', pidAlive: null, alive: null });
  });
});
