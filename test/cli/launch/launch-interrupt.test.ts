// Ctrl-C while `swarm launch` starts its members (a real child process, tmux on a private socket,
// the fake teammate): w1 is ready, w2 is still waiting for readiness (FAKE_GATE never opens). SIGINT
// stops w1 (verified), undoes w2's spawn, removes the team and the session, says so, and dies of
// SIGINT (a shell shows 130): no phantom member, no pane, no process left. Once started, the team is
// meant to outlive launch: the terminal attached to its session going away (SIGHUP) ends launch and
// leaves the session running, said on stderr, even when the tmux client hung up first
// (test/support/attach-hangup.mjs).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));
const ATTACH_HANGUP = fileURLToPath(new URL('../../support/attach-hangup.mjs', import.meta.url));
let root: string;
let socket: string;
const pids = new Set<number>();

useTempRoot((dir) => (root = dir), 'swarm-launch-int-');
beforeEach(() => {
  socket = tmuxForThisTest(pids);
});

/** Every unread-or-not entry of w1's inbox is read (the fake consumed its prompt): w1 is ready. */
async function promptTaken(file: string): Promise<boolean> {
  const raw = await fs.readFile(file, 'utf8').catch(() => '');
  return raw !== '' && (JSON.parse(raw) as { read: boolean }[]).every((m) => m.read);
}

describe('swarm launch, interrupted', () => {
  it('Ctrl-C while members start: the ready one is stopped, the pending spawn undone, the team removed; dies of SIGINT', async () => {
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(file, ['name: int', 'backend: tmux', 'members:', '  - name: w1', '    prompt: hi', '  - name: w2', '    prompt: hi', ''].join('\n'));
    // w2 waits for a gate that never opens, so its spawn is still waiting for readiness.
    const gated = `case " $* " in *" w2 "*) export FAKE_GATE=${quote([path.join(root, 'never')])};; esac; exec ${quote([process.execPath, FAKE])} "$@"`;
    const child = execa(process.execPath, [SWARM_BIN, 'launch', file, '--no-console'], {
      cwd: root,
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', TMUX: '', TMUX_PANE: '', SWARM_TMUX_SOCKET: socket, SWARM_TEAMMATE_COMMAND: quote(['sh', '-c', gated, 'fake']) },
      reject: false,
      stdin: 'ignore',
    });
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const team = new Team(root, 'int');
    const started = await waitFor(async () => {
      const members = (await readTeam(team).catch(() => undefined))?.members ?? [];
      const w2 = members.find((m) => m.name === 'w2');
      return w2?.pid !== undefined && (await promptTaken(team.paths.inbox('w1'))) ? members.flatMap((m) => (m.pid === undefined ? [] : [m.pid])) : undefined;
    }, 20_000, 'w1 ready and w2 started');
    for (const p of started) pids.add(p);
    expect(started).toHaveLength(2);
    // w1's prompt is taken; launch counts it as started once its own handshake says so (its line).
    await waitFor(() => /spawned w1\b.*: ready/.test(out), 20_000, "launch's line: spawned w1 … ready");

    child.kill('SIGINT');
    const r = await child;
    expect(r.signal, String(r.stderr)).toBe('SIGINT'); // dies of it after the cleanup: a shell shows 130 and stops a loop
    expect(String(r.stdout).split('\n').slice(-2)).toEqual([
      'Ctrl-C: stopping what launch started…',
      'interrupted: stopped w1; not started or undone: w2; removed team int. Nothing is left.',
    ]);
    await expect(fs.access(team.paths.dir)).rejects.toThrow(/ENOENT/);
    expect(started.filter((p) => isProcessAlive(p))).toEqual([]);
    const panes = await listAllPanes(new TmuxServer({ socket })).catch(() => []); // no server left is fine
    expect(panes).toEqual([]);
  }, 60_000);

  it('SIGHUP while this terminal is attached to the started team (its window closed): launch ends, the session runs on, said on stderr', async () => {
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(file, ['name: att', 'backend: tmux', 'members:', '  - name: w1', '    prompt: hi', ''].join('\n'));
    const errFile = path.join(root, 'launch.err');
    const env = { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', SWARM_TMUX_SOCKET: socket, SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE]) };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // launch in a terminal of its own (a pane), outside tmux: it makes the swarm-att session and attaches to it.
    const cmd = `unset TMUX TMUX_PANE; exec ${quote([process.execPath, SWARM_BIN, 'launch', file])} 2>${quote([errFile])}`;
    const tmux = new TmuxServer({ socket });
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '160', '-y', '40', ...flags, '-c', root, cmd], { env: { ...process.env, TMUX: '' } });
    const [launch] = await listAllPanes(tmux);
    await waitFor(async () => (await tmux.run(['list-clients', '-F', '#{session_name}'])).includes('swarm-att'), 20_000, 'launch attached to swarm-att');
    const team = new Team(root, 'att');
    const w1 = (await readTeam(team)).members.find((m) => m.name === 'w1')?.pid;
    if (w1 === undefined) throw new Error('w1 has no pid');
    pids.add(w1);
    const consolePane = (await listAllPanes(tmux)).find((p) => p.sessionName === 'swarm-att')!; // its first pane
    const consoleShown = async (): Promise<boolean> => (await capturePane(tmux, consolePane.paneId, 50)).includes('swarm lead · team att');
    await waitFor(consoleShown, 15_000, 'the console in the session');

    await tmux.run(['kill-pane', '-t', launch!.paneId]);
    await waitFor(() => !isProcessAlive(launch!.pid), 10_000, 'launch gone');
    expect(await fs.readFile(errFile, 'utf8')).toBe(
      `swarm launch: SIGHUP (the terminal closed): team att runs on in its tmux session (its console in pane ${consolePane.paneId}); back to it: tmux -L ${socket} attach -t swarm-att\n`,
    );
    expect(isProcessAlive(w1)).toBe(true);
    expect((await listAllPanes(tmux)).filter((p) => p.sessionName === 'swarm-att')).toHaveLength(2);
    expect(await consoleShown()).toBe(true);
  }, 60_000);

  it('SIGHUP that comes just after the attach ended (the tmux client hung up first): still the terminal gone, said on stderr, dies of it', async () => {
    const r = await execa(process.execPath, [ATTACH_HANGUP, '30'], { reject: false, stdin: 'ignore', env: { ...process.env, NO_COLOR: '1' } });
    expect(r.signal, `${r.stdout}\n${r.stderr}`).toBe('SIGHUP');
    expect(r.stdout).not.toContain('detached');
    expect(r.stderr).toBe(
      "swarm launch: SIGHUP (the terminal closed): team att runs on in its tmux session (its console in pane %1); back to it: tmux -L sock attach -t swarm-att",
    );
  });
});
