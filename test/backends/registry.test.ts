// The detection order of SPEC §4.1 as a table: environment + what `tmux -V` / `it2` answer (a
// scripted exec that records every call) → the backend chosen and the notes printed. The
// in-process rows use a real team directory (the host registration lives in config.json).
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import type { Exec, ExecResult } from '../../src/backends/process.js';
import { backendForMember, backendForType, insideTmuxPane, mySession, selectBackend, teamSessions, tmuxSocketOf, type Env } from '../../src/backends/registry.js';
import { TmuxServer } from '../../src/backends/tmux/commands.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { isSwarmError, type Member } from '../../src/protocol/index.js';
import { createTeam, updateTeam } from '../../src/team/index.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';

const PY_HELP = 'Usage: it2 [OPTIONS] COMMAND\n\nCommands:\n  app      Control the app.\n  session  Manage sessions.\n';

interface World {
  tmux: boolean;
  it2: 'missing' | 'works' | 'api-off' | 'go';
}

/** A scripted exec: answers tmux -V / it2 --help / it2 session list from `world`, records calls. */
function scripted(world: World): { exec: Exec; calls: string[] } {
  const calls: string[] = [];
  const ok = (stdout: string): ExecResult => ({ exitCode: 0, stdout, stderr: '' });
  const missing: ExecResult = { exitCode: 127, stdout: '', stderr: 'not found' };
  const exec: Exec = async (file, args) => {
    calls.push([file, ...args].join(' '));
    if (file === 'tmux') return world.tmux ? ok('tmux 3.3a') : missing;
    if (file !== 'it2' || world.it2 === 'missing') return missing;
    if (args[0] === '--help') return ok(world.it2 === 'go' ? 'Available Commands:\n  split  Split\n' : PY_HELP);
    if (args[0] === 'session' && args[1] === 'list') {
      return world.it2 === 'api-off' ? { exitCode: 2, stdout: '', stderr: 'Python API disabled' } : ok('[]');
    }
    return missing;
  };
  return { exec, calls };
}

let root: string;
useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: 't' });
});

async function choose(env: Env, world: World, requested: 'auto' | 'tmux' | 'iterm2' | 'in-process' = 'auto') {
  const s = scripted(world);
  const r = await selectBackend({ requested, env, exec: s.exec, team: new Team(root, 't') });
  return { ...r, calls: s.calls };
}

const INSIDE = { TMUX: '/tmp/tmux-1000/default,123,0', TMUX_PANE: '%7' };
const ITERM = { TERM_PROGRAM: 'iTerm.app', ITERM_SESSION_ID: 'w0t0p0:ABCD-1234' };

async function registerHost(pid: number): Promise<void> {
  await updateTeam(new Team(root, 't'), (c) => {
    c.swarm = { ...c.swarm, inProcessHost: { pid, startedAt: Date.now() } };
  });
}

async function deadPid(): Promise<number> {
  const child = execa(process.execPath, ['-e', '0']);
  await child;
  return child.pid!;
}

describe('auto detection order (SPEC §4.1)', () => {
  const rows: { env: Env; world: World; type: Backend['type']; describe: RegExp; note?: RegExp; noIt2?: boolean }[] = [
    // 1. inside tmux wins, even inside iTerm2 (tmux sets TERM_PROGRAM=tmux; ITERM_* may be inherited)
    { env: { ...INSIDE, ...ITERM }, world: { tmux: true, it2: 'works' }, type: 'tmux', describe: /beside the leader's pane %7/, noIt2: true },
    // 2. iTerm2 with a working it2
    { env: ITERM, world: { tmux: true, it2: 'works' }, type: 'iterm2', describe: /iTerm2/ },
    { env: { ITERM_SESSION_ID: 'w0t0p0:X' }, world: { tmux: false, it2: 'works' }, type: 'iterm2', describe: /iTerm2/ },
    // iTerm2 without a working it2: a note with the install hint, then tmux
    { env: ITERM, world: { tmux: true, it2: 'missing' }, type: 'tmux', describe: /^tmux attach -t swarm-t$/, note: /not installed.*pipx install it2/ },
    { env: ITERM, world: { tmux: true, it2: 'api-off' }, type: 'tmux', describe: /^tmux attach -t swarm-t$/, note: /Python API.*pipx install it2/ },
    { env: ITERM, world: { tmux: true, it2: 'go' }, type: 'tmux', describe: /^tmux attach -t swarm-t$/, note: /different tool/ },
    // 3. tmux installed: the visible swarm-<team> session on the default server
    { env: {}, world: { tmux: true, it2: 'works' }, type: 'tmux', describe: /^tmux attach -t swarm-t$/, noIt2: true },
    // ... or on the private server SWARM_TMUX_SOCKET names
    { env: { SWARM_TMUX_SOCKET: 'priv' }, world: { tmux: true, it2: 'missing' }, type: 'tmux', describe: /^tmux -L priv attach -t swarm-t$/ },
    // inside another tmux than SWARM_TMUX_SOCKET's: not "inside"; a session on the private server
    {
      env: { ...INSIDE, SWARM_TMUX_SOCKET: 'priv' },
      world: { tmux: true, it2: 'works' },
      type: 'tmux',
      describe: /^tmux -L priv attach -t swarm-t$/,
      note: /SWARM_TMUX_SOCKET=priv/,
      noIt2: true,
    },
    // inside the very server SWARM_TMUX_SOCKET names: split the leader's window
    { env: { TMUX: '/tmp/tmux-1000/priv,1,0', TMUX_PANE: '%3', SWARM_TMUX_SOCKET: 'priv' }, world: { tmux: true, it2: 'missing' }, type: 'tmux', describe: /%3/ },
  ];

  for (const [i, row] of rows.entries()) {
    it(`row ${i + 1}: ${JSON.stringify(row.env)} with tmux=${row.world.tmux}, it2=${row.world.it2} → ${row.type}`, async () => {
      const r = await choose(row.env, row.world);
      expect(r.backend.type).toBe(row.type);
      expect(r.backend.describe()).toMatch(row.describe);
      if (row.note) expect(r.notes.join('\n')).toMatch(row.note);
      else expect(r.notes).toEqual([]);
      if (row.noIt2) expect(r.calls.filter((c) => c.startsWith('it2'))).toEqual([]);
    });
  }

  it('4. no tmux, no iTerm2: in-process when a live host is registered', async () => {
    await registerHost(process.pid);
    const r = await choose({}, { tmux: false, it2: 'missing' });
    expect(r.backend.type).toBe('in-process');
    expect(r.notes.join('\n')).toMatch(/tmux is not installed/);
  });

  it('4. no tmux, iTerm2 with it2 off, no host: the it2 note, then a one-line error saying to start swarm lead', async () => {
    await registerHost(await deadPid());
    const err = await choose(ITERM, { tmux: false, it2: 'api-off' }).catch((e: unknown) => e);
    expect(isSwarmError(err, 'not_found')).toBe(true);
    expect((err as Error).message).toMatch(/^no tmux or iTerm2 to open panes in, and no in-process host is running for team "t": start the leader console first \(swarm lead --team t\)/);
    expect((err as Error).message).not.toContain('\n');
  });
});

describe('explicit --backend', () => {
  it('tmux without tmux installed → a clear error', async () => {
    await expect(choose({}, { tmux: false, it2: 'works' }, 'tmux')).rejects.toThrow(/tmux is not installed/);
  });

  it('tmux inside tmux splits the leader window without asking tmux -V', async () => {
    const r = await choose(INSIDE, { tmux: false, it2: 'missing' }, 'tmux');
    expect(r.backend.describe()).toMatch(/%7/);
    expect(r.calls).toEqual([]);
  });

  it('iterm2 needs a working it2, else the reason and the install hint', async () => {
    expect((await choose({}, { tmux: true, it2: 'works' }, 'iterm2')).backend.type).toBe('iterm2');
    await expect(choose({}, { tmux: true, it2: 'missing' }, 'iterm2')).rejects.toThrow(/--backend iterm2: it2 is not installed.*pipx install it2/);
  });

  it('in-process: an error without a live host (none, or a dead pid); fine with one', async () => {
    await expect(choose({}, { tmux: true, it2: 'works' }, 'in-process')).rejects.toThrow(/no in-process host is running.*swarm lead/);
    await registerHost(await deadPid());
    await expect(choose({}, { tmux: true, it2: 'works' }, 'in-process')).rejects.toThrow(/swarm lead/);
    await registerHost(process.pid);
    expect((await choose({}, { tmux: true, it2: 'works' }, 'in-process')).backend.type).toBe('in-process');
  });
});

describe('backendForMember: the recorded backendType → its implementation', () => {
  const member = (backendType?: string): Member =>
    ({ agentId: 'a@t', name: 'a', joinedAt: 0, tmuxPaneId: '%1', cwd: '/', subscriptions: [], ...(backendType ? { backendType } : {}) }) as Member;

  it('maps tmux, iterm2 and in-process, and refuses anything else', () => {
    const ctx = { env: { SWARM_TMUX_SOCKET: 'priv' } };
    expect(backendForMember(member('tmux'), new Team(root, 't'), ctx).describe()).toBe('tmux -L priv attach -t swarm-t');
    expect(backendForMember(member('iterm2'), new Team(root, 't'), ctx).type).toBe('iterm2');
    expect(backendForMember(member('in-process'), new Team(root, 't'), ctx).type).toBe('in-process');
    expect(() => backendForMember(member('screen'), new Team(root, 't'), ctx)).toThrow(/no known backend/);
    expect(() => backendForMember(member(), new Team(root, 't'), ctx)).toThrow(/no known backend/);
  });

  it('insideTmuxPane needs both $TMUX and $TMUX_PANE', () => {
    expect(insideTmuxPane({ TMUX: INSIDE.TMUX })).toBeUndefined();
    expect(insideTmuxPane({ TMUX_PANE: '%1' })).toBeUndefined();
    expect(insideTmuxPane(INSIDE)).toBe('%7');
  });
});

describe('SWARM_TMUX_SOCKET: checked once where it is read, before tmux runs', () => {
  const refusal = (v: string): string =>
    `SWARM_TMUX_SOCKET=${JSON.stringify(v)} is not a tmux server name (tmux -L): use up to 64 letters, digits, _ . and -, not starting with . or - (e.g. swarm-work), or unset it for the default server`;

  it('a name tmux -L can take is used as it is; unset or empty is the default server', () => {
    for (const ok of ['priv', 'swarm-test-x1', 'a.b_c-d', '9', 'x'.repeat(64)]) expect(tmuxSocketOf({ SWARM_TMUX_SOCKET: ok })).toBe(ok);
    expect(tmuxSocketOf({})).toBeUndefined();
    expect(tmuxSocketOf({ SWARM_TMUX_SOCKET: '' })).toBeUndefined();
  });

  it('a path, a flag, a dot name, a space, or too long: one line saying what is allowed, for every use of it', async () => {
    for (const bad of ['a/b', '/tmp/s', '-x', '-Lfoo', '.', '..', '.hidden', 'a b', 'x;y', 'x'.repeat(65)]) {
      const env = { SWARM_TMUX_SOCKET: bad };
      expect(() => tmuxSocketOf(env)).toThrow(refusal(bad));
      const picked = await choose(env, { tmux: true, it2: 'missing' }, 'tmux').catch((e: unknown) => e);
      expect(picked).toMatchObject({ kind: 'invalid_input', message: refusal(bad) });
      await expect(choose(env, { tmux: true, it2: 'missing' })).rejects.toThrow(refusal(bad)); // auto
      expect(() => insideTmuxPane({ ...env, ...INSIDE })).toThrow(refusal(bad));
      expect(() => backendForType('tmux', new Team(root, 't'), { env })).toThrow(refusal(bad));
      expect(() => backendForType('ssh', new Team(root, 't'), { env })).toThrow(refusal(bad));
      expect(() => teamSessions({ env })).toThrow(refusal(bad));
    }
  });

});

describe('mySession: the tmux session this shell is in', () => {
  it("names the session, its team (swarm-<team>) and its panes, asked of $TMUX's server; outside tmux, nothing", async () => {
    const socket = tmuxForThisTest();
    const server = new TmuxServer({ socket });
    await server.run(['new-session', '-d', '-s', 'swarm-crew', 'sleep 600']);
    await server.run(['split-window', '-t', 'swarm-crew', 'sleep 600']);
    const [socketPath, pane] = (await server.run(['display-message', '-p', '-t', 'swarm-crew', '#{socket_path} #{pane_id}'])).trim().split(' ');
    const panes = (await server.run(['list-panes', '-s', '-t', 'swarm-crew', '-F', '#{pane_id}'])).trim().split('\n');
    expect(await mySession({ TMUX: `${socketPath},1,0`, TMUX_PANE: pane })).toEqual({ name: 'swarm-crew', team: 'crew', paneIds: panes });
    expect(await mySession({})).toBeUndefined();
    expect(await mySession({ TMUX: `${socketPath},1,0`, TMUX_PANE: '%999' })).toBeUndefined(); // a pane that is not there
  });
});
