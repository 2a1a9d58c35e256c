// `swarm run -p` ended by a signal (the real CLI process, the stand-in Messages API, a real
// `swarm teammate` in a private tmux server), while its teammate waits for a permission question:
//   - SIGHUP (its terminal closed): the teammate is shut down (verified), and the run dies of SIGHUP;
//   - SIGKILL (no cleanup possible): the teammate keeps waiting; a second `run -p` on the team shows
//     the question asked before it (its frame was taken by the dead run) once, with the approve
//     line; approved from another shell, the teammate goes on; SIGTERM then stops that run the same
//     way: teammate gone (verified), the run dies of SIGTERM.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { listAllPanes, TmuxServer } from '../../../src/backends/tmux/commands.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { useTempRoot, afterThisTest } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';
import { endAfterThisTest } from '../../support/children.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-run-sig-');
let server: MessagesServer;
let socket = '';
const pids = new Set<number>();

const FIRST = 'Write out.txt saying checked.';
const SECOND = 'Carry on with the check.';

beforeEach(async () => {
  socket = tmuxForThisTest(pids);
  server = await startMessagesServer({
    script: {
      shutdown: 'approve',
      exhaustedReply: 'Waiting.',
      turns: [
        { match: { agent: 'team-lead', lastUser: FIRST }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { name: 'worker', prompt: 'Write out.txt saying checked.' } }] } },
        { match: { agent: 'team-lead', toolResult: 'Agent' }, reply: 'Waiting for worker.' },
        { match: { agent: 'worker' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo checked > out.txt', description: 'write the check file' } }] } },
        { match: { agent: 'worker', toolResult: 'Bash' }, reply: 'Finished.' },
      ],
    },
  });
  afterThisTest(() => server.close());
});

/** `swarm run -p <goal> --team t` in root/work, its stderr collected as it comes. */
function run(goal: string) {
  const child = execa(process.execPath, [SWARM_BIN, 'run', '-p', goal, '--team', 't', '--backend', 'tmux'], {
    env: {
      CLAUDE_CONFIG_DIR: root,
      NO_COLOR: '1',
      SWARM_TEAM: '',
      ...tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-test',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
    },
    cwd: path.join(root, 'work'),
    reject: false,
    stdin: 'ignore',
    // execa's own SIGKILL 5 s after a SIGTERM would cut the run's shutdown short on a loaded machine.
    forceKillAfterDelay: false,
  });
  endAfterThisTest(child); // a run a failed test left behind; its teammates go with the tmux server
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const stderr = (): string => err;
  /** The `swarm approve …` command of the approval line, once it is shown. */
  const approveLine = () =>
    waitFor(() => /waiting for approval: worker Bash .*→ (swarm approve \S+ --team t)/.exec(err)?.[1], 30_000, 'the approval line').catch((e: Error) => {
      throw new Error(`${e.message}; stderr:\n${err}`);
    });
  return { child, stderr, approveLine };
}

/** The worker's pid, recorded for the reaper too. */
async function workerPid(): Promise<number> {
  const pid = (await readTeam(new Team(root, 't'))).members.find((m) => m.name === 'worker')?.pid;
  if (pid === undefined) throw new Error('the worker has no pid');
  pids.add(pid);
  return pid;
}

/**
 * The lead's second model step, which carries the Agent tool's result: the spawn is complete. A
 * loaded machine can show the worker's question first, while the spawn still waits for its
 * readiness; a signal then undoes that spawn (the pane killed, the member removed) instead of
 * shutting a teammate down.
 */
async function leadHasItsSpawnResult(): Promise<void> {
  await waitFor(() => server.requests.filter((q) => q.agent === 'team-lead').length >= 2, 20_000, "the lead's second model step (the spawn's result)");
}

/** Nothing left: no teammate process, no pane, only team-lead on the roster. */
async function expectTeamStopped(worker: number): Promise<void> {
  expect(isProcessAlive(worker)).toBe(false);
  expect(await listAllPanes(new TmuxServer({ socket })).catch(() => [])).toEqual([]);
  expect((await readTeam(new Team(root, 't'))).members.map((m) => m.name)).toEqual(['team-lead']);
}

describe('swarm run -p ended by a signal', () => {
  beforeEach(async () => {
    await fs.mkdir(path.join(root, 'work'));
  });

  it('SIGHUP (its terminal closed) while a teammate waits for approval: the teammate is shut down, verified; the run dies of SIGHUP', async () => {
    const r = run(FIRST);
    await r.approveLine();
    const worker = await workerPid();
    await leadHasItsSpawnResult();
    r.child.kill('SIGHUP');
    const done = await r.child;
    expect(done.signal, r.stderr()).toBe('SIGHUP');
    expect(r.stderr()).toContain('worker: approved the shutdown; process exited, pane closed, removed from the team');
    await expectTeamStopped(worker);
  }, 60_000);

  it('after a SIGKILLed run, a second run shows the open question once; approved, the teammate goes on; SIGTERM stops the run and its teammate', async () => {
    const first = run(FIRST);
    const approve = await first.approveLine();
    const worker = await workerPid();
    // The lead has had both of its scripted turns: the second run's lead then gets the script's
    // exhausted reply, not an unmatched request.
    await leadHasItsSpawnResult();
    first.child.kill('SIGKILL');
    await first.child;
    expect(isProcessAlive(worker)).toBe(true); // left waiting on a question nobody will answer

    const second = run(SECOND);
    expect(await second.approveLine()).toBe(approve);
    expect(second.stderr()).toContain('1 question asked before this run still open:');
    const answered = await swarmInProcess(root, approve.split(' ').slice(1));
    expect(answered.exitCode, answered.stderr).toBe(0);
    await waitFor(async () => (await fs.readFile(path.join(root, 'work', 'out.txt'), 'utf8').catch(() => '')) === 'checked\n', 20_000, 'the approved Bash to run');
    expect(second.stderr().split('waiting for approval:')).toHaveLength(2); // asked once

    second.child.kill('SIGTERM');
    const done = await second.child;
    expect(done.signal, second.stderr()).toBe('SIGTERM');
    expect(second.stderr()).toMatch(/worker: approved the shutdown; process exited, pane closed, removed from the team/);
    await expectTeamStopped(worker);
  }, 90_000);
});
