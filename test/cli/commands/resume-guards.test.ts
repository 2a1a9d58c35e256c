// What `swarm resume` must never do, on a private tmux server, with the
// fake teammate as `claude` on PATH (a stopped `--runtime claude` member c1): two `swarm resume c1`
// at once start one c1, not two (the other says it is already running or being started, and
// config.json names the one that runs); a resume whose teammate dies before it is ready takes back
// the prompt it sent again; `swarm resume` without names leaves alone a member whose process
// still runs. The racing resumes are two processes of the built executable (run `npm run build`
// first); the other command lines run in-process through main(argv, io).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { addMember, createTeam, readTeam, updateMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { quote } from 'shell-quote';
import { swarm, swarmInProcess, type CliResult } from '../../support/cli.js';
import { deadPid, startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'rg';
const FAKE = path.resolve(import.meta.dirname, '../../support/fake-teammate.mjs');

let root: string;
let work: string;
let socket: string;
let team: Team;
const pids = new Set<number>();

useTempRoot((dir) => (root = dir), 'swarm-resume-guards-');
beforeEach(async () => {
  work = path.join(root, 'work');
  await fs.mkdir(work);
  await createTeam(root, { name: TEAM, cwd: work });
  team = new Team(root, TEAM);
  socket = tmuxForThisTest(pids);
});

/** The env of a CLI whose `claude` is the fake teammate, started with `fakeEnv` (FAKE_GATE, FAKE_CRASH). */
async function claudeEnv(fakeEnv: Record<string, string> = {}): Promise<Record<string, string>> {
  const bin = path.join(root, 'bin');
  await fs.mkdir(bin, { recursive: true });
  const vars = Object.entries(fakeEnv).map(([k, v]) => `${k}=${quote([v])} `).join('');
  await fs.writeFile(path.join(bin, 'claude'), `#!/bin/sh\n${vars}exec ${quote([process.execPath, FAKE])} "$@"\n`, { mode: 0o755 });
  return { ...tmuxEnv(socket, []), SWARM_TEAMMATE_COMMAND: '', SWARM_TEAM: TEAM, PATH: `${bin}:${process.env.PATH ?? ''}` };
}

/** A claude teammate c1 that crashed: its pane %7 (on no server now) and its pid are gone. */
async function stoppedClaude(name = 'c1'): Promise<void> {
  await addMember(team, { name, cwd: work, runtime: 'claude', prompt: 'ORIGINAL PROMPT' });
  await updateMember(team, name, { tmuxPaneId: '%7', backendType: 'tmux', pid: await deadPid(), isActive: true });
}

/** Live teammate panes of the test's tmux server (not the session's first pane, a shell), with their pids (remembered for the cleanup). */
async function livePanes(): Promise<{ paneId: string; pid: number }[]> {
  const panes = (await listAllPanes(new TmuxServer({ socket }))).filter((p) => !p.shell && !p.dead && isProcessAlive(p.pid));
  for (const p of panes) pids.add(p.pid);
  return panes.map((p) => ({ paneId: p.paneId, pid: p.pid }));
}

describe('swarm resume guards', () => {
  it('two `swarm resume c1` at once: one c1 runs, the other resume says so and starts nothing; config.json names the one that runs', async () => {
    await stoppedClaude();
    const gate = path.join(root, 'gate', 'open');
    await fs.mkdir(path.dirname(gate));
    // The fake takes its prompt (and so becomes ready) only once the gate opens: both resumes are
    // in flight together, whichever order they take the lock in.
    const env = await claudeEnv({ FAKE_GATE: gate });
    const settled: CliResult[] = [];
    const both = [0, 1].map(() => swarm(root, ['resume', 'c1'], env).then((r) => (settled.push(r), r)));
    // Open the gate once one resume has given up, or (without the guard) once both started a c1.
    await waitFor(async () => settled.length > 0 || (await livePanes()).length >= 2, 30_000, 'one resume to refuse, or two c1 panes');
    await fs.writeFile(gate, '');
    const results = await Promise.all(both);

    expect(results.map((r) => r.exitCode).sort()).toEqual([0, 1]);
    const won = results.find((r) => r.exitCode === 0)!;
    const lost = results.find((r) => r.exitCode === 1)!;
    expect(won.stdout).toMatch(/^resumed c1: ready \(its original prompt sent again\)/);
    expect(lost.stderr).toMatch(/^swarm: (resume of c1 failed: )?c1 is already (running|being started) \(pid \d+, \w+\): only a stopped member \(process and pane gone\) can be resumed$/);
    const running = await livePanes();
    expect(running).toHaveLength(1);
    const c1 = (await readTeam(team)).members[1]!;
    expect([c1.tmuxPaneId, c1.pid]).toEqual([running[0]!.paneId, running[0]!.pid]);
    // The prompt went out once, from the resume that ran.
    const prompts = (await new Mailbox({ team }).read('c1')).filter((m) => m.text === 'ORIGINAL PROMPT');
    expect(prompts.map((m) => m.read)).toEqual([true]);
  }, 60_000);

  it('a claude teammate that dies before it is ready: the prompt sent again is taken back, the queued message stays unread', async () => {
    await stoppedClaude();
    await new Mailbox({ team }).append('c1', { from: 'team-lead', text: 'QUEUED' });
    const env = await claudeEnv({ FAKE_CRASH: '1' });
    const died = await swarmInProcess(root, ['resume', 'c1'], env);
    expect(died.exitCode).toBe(1);
    expect(died.stderr).toMatch(/^swarm: resume of c1 failed: c1 exited before it was ready( \(exit status 3\))?; c1 is still stopped\n/);
    const inbox = await new Mailbox({ team }).read('c1');
    expect(inbox.map((m) => [m.text, m.read])).toEqual([
      ['QUEUED', false],
      ['ORIGINAL PROMPT', true],
    ]);
    expect(await livePanes()).toEqual([]);
    expect((await readTeam(team)).members[1]).toMatchObject({ tmuxPaneId: '%7', isActive: true });
  }, 60_000);

  it('`swarm resume` without names starts nothing for a member whose process lives on without its pane', async () => {
    const lives = await startSleeper();
    await addMember(team, { name: 'w1', cwd: work });
    await updateMember(team, 'w1', { tmuxPaneId: '%7', backendType: 'tmux', pid: lives, isActive: true });
    const env = await claudeEnv();
    const status = await swarmInProcess(root, ['status', '--json'], env);
    expect((JSON.parse(status.stdout) as { members: { name: string; state: string }[] }).members[1]).toMatchObject({ name: 'w1', state: 'dead' });

    const r = await swarmInProcess(root, ['resume'], { ...env, SWARM_TEAMMATE_COMMAND: quote([process.execPath, FAKE]) });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe(`no stopped members in team ${TEAM} (swarm status shows each member's state)`);
    expect(await livePanes()).toEqual([]);
    expect((await readTeam(team)).members[1]).toMatchObject({ tmuxPaneId: '%7', pid: lives });
  }, 60_000);
});
