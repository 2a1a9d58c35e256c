// `swarm launch` of a team that already exists (issue 13): it never starts a twin. A running team
// is attached to, or — with --no-console, or not on a terminal — a one-line error gives the exact
// command that reaches it (exit 1); a team whose teammates are all dead is a one-line error
// pointing to `swarm team delete`; --rename launches a second team under a free name. The built
// executable, tmux on a private socket per test (reaped afterwards), the fake teammate.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));

let root: string;
let socket: string;
let env: Record<string, string>;
let file: string;

useTempRoot((dir) => (root = dir), 'swarm-launch-again-');
beforeEach(async () => {
  socket = tmuxForThisTest();
  env = { SWARM_TMUX_SOCKET: socket, SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE]), TMUX: '', TMUX_PANE: '' };
  file = path.join(root, 'team.yaml');
  await fs.writeFile(file, 'name: again\nmembers:\n  - name: w1\n    prompt: hi\n');
});
const launch = (extra: string[], more: Record<string, string> = {}) => swarm(root, ['launch', file, '--backend', 'tmux', ...extra], { ...env, ...more });
const teamNames = async () => ((JSON.parse((await swarm(root, ['team', 'list', '--json'])).stdout) as { name: string }[]).map((t) => t.name));

describe('swarm launch of a team that exists', () => {
  it('running: no twin; --no-console or no terminal says so with the exact attach command, exit 1; --rename makes a second team', async () => {
    const first = await launch(['--no-console']);
    expect(first.exitCode, first.stderr).toBe(0);
    const w1 = (await readTeam(new Team(root, 'again'))).members[1]!;

    for (const [extra, why] of [[['--no-console'], '--no-console'], [[], 'not a terminal']] as const) {
      const r = await launch([...extra], { SWARM_TMUX_SOCKET: '' }); // from a shell on another tmux server
      expect(r.exitCode, r.stdout).toBe(1);
      expect(r.stdout).toBe('');
      const m = new RegExp(
        `^swarm: team "again" is already running \\(1 teammate alive\\); not attaching \\(${why}\\); to attach: tmux -S (\\S+) attach -t (%\\d+); its console: swarm lead --team again \\(--rename launches a second team under a free name\\)$`,
      ).exec(r.stderr);
      expect(m, r.stderr).not.toBeNull();
      // The printed command names w1's own server and pane.
      expect(m![2]).toBe(w1.tmuxPaneId);
      expect((await new TmuxServer({ socketPath: m![1] }).run(['display-message', '-p', '-t', m![2]!, '#{pane_pid}'])).trim()).toBe(String(w1.pid));
    }
    expect(await teamNames()).toEqual(['again']);
    expect((await listAllPanes(new TmuxServer({ socket }))).filter((p) => !p.dead)).toHaveLength(1); // w1 alone: --no-console closed the session's first pane

    const dry = await launch(['--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('# team "again" exists: launch would attach to it while a teammate of it runs, else stop with an error; it creates nothing');
    expect(dry.stdout).not.toContain('split-window');

    const second = await launch(['--no-console', '--rename']);
    expect(second.exitCode, second.stderr).toBe(0);
    const renamed = /^team "again" exists; created "([a-z]+-[a-z]+-\d{2})" instead$/m.exec(second.stdout);
    expect(renamed, second.stdout).not.toBeNull();
    expect((await teamNames()).sort()).toEqual(['again', renamed![1]!].sort());
  });

  it('on a terminal with no console running: opens the team console here instead of a twin', async () => {
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    // script(1) gives launch a terminal; /quit leaves the console at once.
    const cmd = quote([process.execPath, SWARM_BIN, 'launch', file, '--backend', 'tmux']);
    const r = await execa('script', ['-qefc', cmd, '/dev/null'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env },
      input: '/quit\n',
      reject: false,
      timeout: 30_000,
    });
    expect(r.exitCode, String(r.stdout)).toBe(0);
    expect(String(r.stdout)).toContain('team "again" is already running (1 teammate alive): opening its console here');
    expect(String(r.stdout)).toContain('swarm lead · team again');
    expect(await teamNames()).toEqual(['again']);
  });

  it('on a terminal with its console open elsewhere: attaches to the team (tmux attach on its server) until detached', async () => {
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    const tmux = new TmuxServer({ socket });
    const w1 = (await readTeam(new Team(root, 'again'))).members[1]!;
    // The console runs in a window of its own on the team's server.
    await tmux.run(['new-window', '-d', '-t', 'swarm-again', '-e', `CLAUDE_CONFIG_DIR=${root}`, '--', process.execPath, SWARM_BIN, 'lead', '--team', 'again']);
    await waitFor(async () => {
      const pid = (await readTeam(new Team(root, 'again'))).leadProcess?.pid;
      return pid !== undefined && isProcessAlive(pid);
    }, 15_000, 'the console');
    const cmd = quote([process.execPath, SWARM_BIN, 'launch', file, '--backend', 'tmux']);
    const child = execa('script', ['-qefc', cmd, '/dev/null'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env, SWARM_TMUX_SOCKET: '', TMUX: '' },
      reject: false,
    });
    // A client shows up on the team's server, looking at w1's pane; detaching it ends launch.
    let out = '';
    child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const client = await waitFor(async () => (await tmux.run(['list-clients', '-F', '#{client_name} #{pane_id}'])).trim(), 15_000, 'an attached client').catch((e: unknown) => {
      throw new Error(`${String(e)}; launch printed: ${out}`);
    });
    expect(client.split(' ')[1]).toBe(w1.tmuxPaneId);
    await tmux.run(['detach-client', '-t', client.split(' ')[0]!]);
    const r = await child;
    expect(r.exitCode, String(r.stdout)).toBe(0);
    // The line before attaching may be flushed away by tmux; the one after detaching is not.
    expect(String(r.stdout)).toMatch(/detached; team "again" runs on \(back to it: tmux -S \S+ attach -t %\d+\)/);
    expect(await teamNames()).toEqual(['again']);
  });

  it('all teammates dead (or none): one line pointing to swarm team delete; after a delete, launch works again', async () => {
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    const w1 = (await readTeam(new Team(root, 'again'))).members[1]!;
    await new TmuxServer({ socket }).run(['kill-pane', '-t', w1.tmuxPaneId]);
    await waitFor(() => !isProcessAlive(w1.pid!), 10_000, 'w1 gone');
    for (const extra of [['--no-console'], []]) {
      const r = await launch(extra);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(
        "swarm: team \"again\" already exists and its teammate is not running; remove it with 'swarm team delete again' and launch again, or launch a second team under a free name with --rename",
      );
    }
    expect((await swarm(root, ['team', 'delete', 'again'])).exitCode).toBe(0);
    const fresh = await launch(['--no-console']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/^created team again$/m);
  });
});
