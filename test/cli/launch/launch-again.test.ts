// `swarm launch` of a team that already exists (issues 13, 32): it never starts a twin. A running
// team is attached to, or — with --no-console, or not on a terminal — a one-line error gives the
// exact command that reaches it (exit 1), and --fresh refuses it; a team with no teammate running
// is started again from the file, its tasks and inbox history kept (a crashed member resumed),
// or with --fresh from nothing; a member whose process outlived its pane, or an open console,
// stops it; --rename launches a second team under a free name. The command line in-process
// (main(argv, io)); the built executable under script(1) where launch needs a terminal. tmux on a
// private socket per test (reaped afterwards), the fake teammate.
import { promises as fs } from 'node:fs';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { TaskList } from '../../../src/tasks/index.js';
import { addMember, readTeam, updateMember } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { useFakeTeammates, writeTeamFile } from '../../support/fake-team.js';
import { startSleeper } from '../../support/team-fixture.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let socket: string;
let env: Record<string, string>;
let file: string;

useFakeTeammates((t) => ({ root, socket, env } = t), 'swarm-launch-again-');
beforeEach(async () => {
  file = await writeTeamFile(root, ['name: again', 'members:', '  - name: w1', '    prompt: hi']);
});
const launch = (extra: string[], more: Record<string, string> = {}) => swarmInProcess(root, ['launch', file, '--backend', 'tmux', ...extra], { ...env, ...more });
const teamNames = async () => ((JSON.parse((await swarmInProcess(root, ['team', 'list', '--json'])).stdout) as { name: string }[]).map((t) => t.name));

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

    // --fresh never deletes a running team: refused, w1 untouched.
    const fresh = await launch(['--no-console', '--fresh']);
    expect(fresh.exitCode).toBe(1);
    expect(fresh.stderr).toBe(`swarm: team "again" is running (w1 alive); --fresh deletes a team only when none of it runs: stop it first (swarm shutdown --all --team again)`);
    expect((await readTeam(new Team(root, 'again'))).members[1]).toMatchObject({ name: 'w1', pid: w1.pid, tmuxPaneId: w1.tmuxPaneId });
    expect(isProcessAlive(w1.pid!)).toBe(true);

    for (const extra of [[], ['--fresh']]) {
      const dry = await launch(['--dry-run', ...extra]);
      expect(dry.exitCode, dry.stderr).toBe(0);
      expect(dry.stdout).toContain('# team "again" exists and runs: launch would attach to it (or print how), starting nothing');
      expect(dry.stdout).not.toContain('split-window');
    }

    const both = await launch(['--no-console', '--rename', '--fresh']);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toBe('swarm: --fresh and --rename do not go together: --fresh starts the team from nothing, --rename launches a second team under a free name');
    expect(await teamNames()).toEqual(['again']);

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

  it('shut down: launch starts it again, keeping its tasks and inbox history; --fresh starts from nothing', async () => {
    await fs.writeFile(file, 'name: again\nmembers:\n  - name: w1\n    prompt: hi\ntasks:\n  - subject: Ship it\n    owner: w1\n');
    const team = new Team(root, 'again');
    const mailbox = new Mailbox({ team });
    const subjects = async () => (await new TaskList(team).list()).tasks.map((t) => `${t.id} ${t.subject}`);
    const inbox = async (name: string) => (await mailbox.read(name)).map((m) => m.text);
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    await new TaskList(team).create({ subject: 'Added later', description: '' }, 'team-lead');
    await mailbox.append('w1', { from: 'team-lead', text: 'EARLIER' });
    await waitFor(async () => (await mailbox.read('w1')).every((m) => m.read), 10_000, 'w1 to read its inbox');
    const down = await swarmInProcess(root, ['shutdown', '--all', '--team', 'again'], env);
    expect(down.exitCode, down.stderr).toBe(0);
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead']);
    const leadInbox = await inbox('team-lead');
    expect(leadInbox.length).toBeGreaterThan(0);

    const dry = await launch(['--dry-run']);
    expect(dry.exitCode, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(
      '# team "again" exists with no teammate running: launch would start it again from this file, keeping its task list and inbox history: spawn w1',
    );
    expect(dry.stdout).not.toContain('split-window');
    const dryFresh = await launch(['--dry-run', '--fresh']);
    expect(dryFresh.stdout).toContain('# delete team "again" and its files: its tasks, inboxes and key (--fresh)\n# create team "again" with 1 member');

    const again = await launch(['--no-console']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^team "again" exists with no teammate running: starting it again from the file, its tasks and inbox history kept \(--fresh starts from nothing\)$/m);
    expect(again.stdout).not.toContain('created');
    const w1 = (await readTeam(team)).members[1]!;
    expect(w1.name).toBe('w1');
    expect(isProcessAlive(w1.pid!)).toBe(true);
    expect(await subjects()).toEqual(['1 Ship it', '2 Added later']); // the file's task not added twice
    expect(await inbox('w1')).toEqual(expect.arrayContaining(['hi', 'EARLIER']));
    expect((await inbox('w1')).filter((t) => t === 'hi')).toHaveLength(2); // the first prompt, then this run's
    expect((await inbox('team-lead')).slice(0, leadInbox.length)).toEqual(leadInbox);

    expect((await swarmInProcess(root, ['shutdown', '--all', '--team', 'again'], env)).exitCode).toBe(0);
    const fresh = await launch(['--no-console', '--fresh']);
    expect(fresh.exitCode, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/^deleted team "again" and its files \(--fresh\): starting from nothing\ncreated team again\n/);
    expect(await subjects()).toEqual(['1 Ship it']);
    expect(await inbox('w1')).not.toContain('EARLIER');
    expect(await inbox('team-lead')).not.toEqual(expect.arrayContaining(leadInbox));
  }, 90_000);

  it('a crashed teammate (stopped, never shut down) is resumed by launch, not spawned twice', async () => {
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    const team = new Team(root, 'again');
    const w1 = (await readTeam(team)).members[1]!;
    await new TmuxServer({ socket }).run(['kill-pane', '-t', w1.tmuxPaneId]);
    await waitFor(() => !isProcessAlive(w1.pid!), 10_000, 'w1 gone');
    const r = await launch(['--no-console']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^team "again" exists with no teammate running: starting it again from the file, its tasks and inbox history kept, resuming w1 \(stopped, never shut down\) with their conversation \(--fresh starts from nothing\)$/m);
    expect(r.stdout).toMatch(/^resumed w1: ready/m);
    expect(r.stdout).not.toMatch(/^spawned/m);
    const now = (await readTeam(team)).members;
    expect(now.map((m) => m.name)).toEqual(['team-lead', 'w1']);
    expect(now[1]!.agentId).toBe(w1.agentId);
    expect(isProcessAlive(now[1]!.pid!)).toBe(true);
    expect((await listAllPanes(new TmuxServer({ socket }))).filter((p) => !p.dead && !p.shell)).toHaveLength(1);
  });

  it('a teammate whose process outlived its pane, or an open console, stops it: nothing is started', async () => {
    expect((await launch(['--no-console'])).exitCode).toBe(0);
    const team = new Team(root, 'again');
    expect((await swarmInProcess(root, ['shutdown', '--all', '--team', 'again'], env)).exitCode).toBe(0);
    // w2, spawned later by the lead: its pane is gone, its process (a sleeper) still runs.
    await addMember(team, { name: 'w2', cwd: root });
    const lives = await startSleeper();
    await updateMember(team, 'w2', { tmuxPaneId: '%77', backendType: 'tmux', pid: lives, isActive: true });
    for (const extra of [[], ['--fresh']]) {
      const r = await launch(['--no-console', ...extra]);
      expect(r.exitCode).toBe(1);
      expect(r.stderr).toBe(
        `swarm: team "again" may still be running: w2 is dead (its pane is gone but its process ${lives} still runs); stop it first (swarm kill w2 --team again), then launch again`,
      );
    }
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead', 'w2']);
    expect((await listAllPanes(new TmuxServer({ socket }))).filter((p) => !p.dead && !p.shell)).toHaveLength(0);
    expect((await swarmInProcess(root, ['kill', 'w2', '--team', 'again'], env)).exitCode).toBe(0);

    // The team's console open (in a window of the team's server), no teammate: not a second console.
    const tmux = new TmuxServer({ socket });
    await tmux.run(['new-session', '-d', '-s', 'console', '-e', `CLAUDE_CONFIG_DIR=${root}`, '--', process.execPath, SWARM_BIN, 'lead', '--team', 'again']);
    await waitFor(async () => {
      const pid = (await readTeam(team)).leadProcess?.pid;
      return pid !== undefined && isProcessAlive(pid);
    }, 15_000, 'the console');
    const r = await launch(['--no-console']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^swarm: team "again" has no teammate running, but its console is open \(pid \d+\); spawn from that console, or quit it \(\/quit\) and launch again$/);
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead']);
  });
});
