// A teammate on "another machine" end to end: `swarm spawn --host` over a
// private sshd on 127.0.0.1 (support/sshd.ts) into a private tmux server there, the real
// `swarm teammate` (SWARM_TEAMMATE_COMMAND: this repo's bin, as the remote side runs it) answered
// by the stand-in Messages API; a permission round trip (`swarm approve`), `swarm status` showing
// the host, and a verified shutdown. Then `swarm launch` with a team file's hosts: pool (fake teammates).
// The spawn over ssh runs the built executable; the other command lines run in-process (main(argv, io)).
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer } from '../../../src/backends/tmux/commands.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { createTeam, readTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { SSH_SKIP, SSH_TEST_HOST, startSshd, type TestSshd } from '../../support/sshd.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'far';
const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));

let root: string;
let work: string;
let socket: string;
let sshd: TestSshd;
let standin: MessagesServer | undefined;
const pids = new Set<number>();

useTempRoot((dir) => (root = dir), 'swarm-ssh-');
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  work = path.join(root, 'work');
  await fs.mkdir(work);
  socket = tmuxForThisTest(pids);
  sshd = await startSshd();
  sshd.closeMastersUnder(root);
});
afterEach(async () => {
  await standin?.close();
  standin = undefined;
});

const run = (args: string[], env: Record<string, string>) => swarmInProcess(root, ['--team', TEAM, ...args], env);

describe.skipIf(SSH_SKIP !== undefined)('swarm spawn --host (ssh backend)', () => {
  it('a remote teammate asks permission, is approved, shows its host in status, and shuts down verified', async () => {
    standin = await startMessagesServer({
      script: {
        shutdown: 'approve',
        turns: [
          { match: { agent: 'remo' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo remote-ok > done.txt' } }] } },
          { match: { agent: 'remo', toolResult: 'Bash' }, reply: 'Done.' },
        ],
      },
    });
    const env = {
      ...tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']),
      SWARM_SSH_COMMAND: sshd.sshCommand,
      ANTHROPIC_BASE_URL: standin.url,
      ANTHROPIC_API_KEY: 'sk-test',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
    };
    const spawned = await swarm(root, ['--team', TEAM, 'spawn', 'remo', '-p', 'write done.txt', '--host', SSH_TEST_HOST, '--cwd', work, '--json'], env);
    expect(spawned.exitCode, spawned.stderr).toBe(0);
    const r = JSON.parse(spawned.stdout) as { backendType: string; host: string; pid: number };
    expect(r).toMatchObject({ backendType: 'ssh', host: SSH_TEST_HOST });
    pids.add(r.pid);
    const member = (await readTeam(new Team(root, TEAM))).members[1];
    expect(member).toMatchObject({ name: 'remo', backendType: 'ssh', host: SSH_TEST_HOST });

    const pending = await waitFor(async () => {
      const list = JSON.parse((await run(['permissions', '--json'], env)).stdout) as { id: string; toolName: string }[];
      return list[0];
    }, 20_000, "remo's permission request");
    expect(pending.toolName).toBe('Bash');
    const approved = await run(['approve', pending.id], env);
    expect(approved.exitCode, approved.stderr).toBe(0);
    await waitFor(() => existsSync(path.join(work, 'done.txt')), 20_000, 'done.txt written after the approval');

    const status = JSON.parse((await run(['status', '--json'], env)).stdout) as { members: { name: string; host: string | null; alive: boolean | null }[] };
    expect(status.members.find((m) => m.name === 'remo')).toMatchObject({ host: SSH_TEST_HOST, alive: true });
    expect((await run(['status'], env)).stdout).toMatch(new RegExp(`remo +ssh ${SSH_TEST_HOST} +%\\d+`));

    const stopped = await run(['shutdown', 'remo', '--json'], env);
    expect(stopped.exitCode, stopped.stderr).toBe(0);
    expect(JSON.parse(stopped.stdout)).toEqual([{ name: 'remo', outcome: 'approved', verified: true }]);
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toEqual(['team-lead']);
  }, 60_000);

  it('swarm launch: a team file with a hosts: pool puts its members there, ready without a local pid check; kill goes over ssh, verified; a stopped one is resumed on its host; a second launch attaches over ssh', async () => {
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(file, ['name: pool', 'backend: ssh', `hosts: [${SSH_TEST_HOST}]`, 'members:', '  - name: w1', '    prompt: hi', '  - name: w2', '    prompt: hi', ''].join('\n'));
    // Their status files name a pid that is dead here, as another machine's pid would be: readiness
    // must not hang on a local pid check (on 127.0.0.1 their real pids would pass one).
    const exited = execa('true');
    const dead = exited.pid!;
    await exited;
    const env = { ...tmuxEnv(socket, ['env', `FAKE_STATUS_PID=${dead}`, process.execPath, FAKE]), SWARM_SSH_COMMAND: sshd.sshCommand };
    const r = await swarmInProcess(root, ['launch', file, '--no-console', '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { backend: string; spawned: string[]; status: { members: { name: string; host: string | null; alive: boolean | null; pid: number | null }[] } };
    expect(out).toMatchObject({ backend: 'ssh', spawned: ['w1', 'w2'] });
    expect(r.stderr).toMatch(new RegExp(`spawned w1 in ssh pane %\\d+ on ${SSH_TEST_HOST}: ready`));
    let teammates = out.status.members.slice(1);
    expect(teammates.map((m) => [m.name, m.host, m.alive])).toEqual([['w1', SSH_TEST_HOST, true], ['w2', SSH_TEST_HOST, true]]);
    for (const m of teammates) pids.add(m.pid!);

    // w1's pane dies under it (its machine's tmux lost it): stopped; swarm resume brings it back
    // on the same host, through the ssh backend (not this machine's tmux).
    const w1 = (await readTeam(new Team(root, 'pool'))).members[1]!;
    await new TmuxServer({ socket }).run(['kill-pane', '-t', w1.tmuxPaneId]);
    await waitFor(async () => JSON.parse((await swarmInProcess(root, ['status', '--team', 'pool', '--json'], env)).stdout).members[1].state === 'stopped', 15_000, 'w1 stopped');
    const resumed = await swarmInProcess(root, ['resume', 'w1', '--team', 'pool', '--json'], env);
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject([{ ok: true, name: 'w1', backendType: 'ssh', host: SSH_TEST_HOST }]);
    teammates = (JSON.parse((await swarmInProcess(root, ['status', '--team', 'pool', '--json'], env)).stdout) as typeof out.status).members.slice(1);
    expect(teammates.map((m) => [m.name, m.host, m.alive])).toEqual([['w1', SSH_TEST_HOST, true], ['w2', SSH_TEST_HOST, true]]);
    for (const m of teammates) pids.add(m.pid!);

    // A second launch of the running team, on a terminal, with its console open elsewhere: it takes
    // the terminal to w1's pane on its host (ssh -t … tmux attach) until the person detaches.
    const tmux = new TmuxServer({ socket });
    await tmux.run(['new-window', '-d', '-t', 'swarm-pool', '-e', `CLAUDE_CONFIG_DIR=${root}`, '--', process.execPath, SWARM_BIN, 'lead', '--team', 'pool']);
    await waitFor(async () => {
      const pid = (await readTeam(new Team(root, 'pool'))).leadProcess?.pid;
      return pid !== undefined && isProcessAlive(pid);
    }, 15_000, 'the console');
    const again = execa('script', ['-qefc', quote([process.execPath, SWARM_BIN, 'launch', file]), '/dev/null'], {
      env: { ...process.env, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...env, TMUX: '' },
      reject: false,
    });
    const client = await waitFor(async () => (await tmux.run(['list-clients', '-F', '#{client_name} #{pane_id}'])).trim(), 15_000, 'a client attached over ssh');
    const w1Now = (await readTeam(new Team(root, 'pool'))).members[1]!;
    expect(client.split(' ')[1]).toBe(w1Now.tmuxPaneId);
    await tmux.run(['detach-client', '-t', client.split(' ')[0]!]);
    const attached = await again;
    expect(attached.exitCode, String(attached.stdout)).toBe(0);
    expect(String(attached.stdout)).toMatch(new RegExp(`detached; team "pool" runs on \\(back to it: ssh .*-t ${SSH_TEST_HOST} tmux -L \\S+ attach -t swarm-pool\\)`));

    for (const m of teammates) {
      const killed = await swarmInProcess(root, ['kill', m.name, '--team', 'pool', '--json'], env);
      expect(killed.exitCode, killed.stderr).toBe(0);
      expect(isProcessAlive(m.pid!)).toBe(false); // the "remote" host is this one: checkable here
    }
    expect((await readTeam(new Team(root, 'pool'))).members.map((m) => m.name)).toEqual(['team-lead']);
  }, 40_000);
});
