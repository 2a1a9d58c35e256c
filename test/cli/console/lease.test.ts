// Two leader consoles on one team (real `swarm lead` processes in panes of a private tmux server,
// read with capture-pane): the first holds the leader lease and takes delivery of team-lead's inbox,
// the second watches — every message is shown by both and consumed once; a permission question
// approved from the watcher is answered once; the holder killed with SIGKILL → the watcher takes
// the lease over within a few seconds and consumes from then on; `swarm inbox team-lead --consume`
// is refused while it holds it (unless --force); a third console with --take-over is handed the lease.
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane } from '../../../src/backends/tmux/commands.js';
import { isProcessAlive } from '../../../src/backends/process.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { requestPermission } from '../../../src/permissions/worker.js';
import { readTeam } from '../../../src/team/team-store.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { responseFrames, setupTeam, TEAM, type Harness } from '../../support/perm-harness.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let socket: string;
let tmux: TmuxServer;

useTempRoot((dir) => (root = dir), 'swarm-lease-');
beforeEach(() => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
});

/** `swarm lead --team t` in a new pane of the private server; returns the pane id. */
async function openConsole(first: boolean, extra: string[] = []): Promise<string> {
  const env = { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' };
  const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const cmd = `${quote([process.execPath, SWARM_BIN, 'lead', '--team', TEAM, ...extra])}; echo LEAD-EXIT=$?; sleep 300`;
  const where = first ? ['new-session', '-d', '-s', 'main', '-x', '160', '-y', '50'] : ['new-window', '-d', '-t', 'main'];
  const r = await execa('tmux', ['-L', socket, ...where, '-P', '-F', '#{pane_id}', ...flags, '-c', root, cmd], { env: { ...process.env, TMUX: '' } });
  return r.stdout.trim();
}

describe('the leader lease: a second console watches', () => {
  it('both show every message, one consumes; approve from the watcher answers once; the watcher takes over from a killed holder', async () => {
    const h: Harness = await setupTeam(root);
    const team = h.base.team;
    const mailbox = new Mailbox({ team });
    const screen = (pane: string): Promise<string> => capturePane(tmux, pane, 300);

    const a = await openConsole(true);
    const holderPid = await waitFor(async () => {
      const pid = (await readTeam(team)).leadProcess?.pid;
      return pid !== undefined && isProcessAlive(pid) && (await screen(a)).includes(`swarm lead · team ${TEAM}`) ? pid : undefined;
    }, 15_000, 'the first console');
    const b = await openConsole(false);
    await waitFor(async () => (await screen(b)).includes(`watching: pid ${holderPid} (a console) takes delivery`), 15_000, 'the second console watching');

    for (const text of ['first report', 'second report', 'third report']) await mailbox.append('team-lead', { from: 'w1', text });
    for (const pane of [a, b]) await waitFor(async () => (await screen(pane)).includes("third report"), 10_000, `every message in ${pane}`).catch(async (e: Error) => { throw new Error(`${e.message}:\n${await screen(pane)}`); });
    for (const pane of [a, b]) for (const text of ['first report', 'second report']) expect(await screen(pane)).toContain(text);
    const inbox = await mailbox.read('team-lead');
    expect(inbox.filter((m) => m.text.endsWith(' report')).map((m) => [m.text, m.read])).toEqual([['first report', true], ['second report', true], ['third report', true]]);

    // A question reaches both; `y` in the watcher answers it, once.
    const asked = requestPermission({ ...h.base, pollMs: 200 });
    for (const pane of [a, b]) await waitFor(async () => (await screen(pane)).includes('[y] allow once'), 10_000, `the question in ${pane}`);
    await tmux.run(['send-keys', '-t', b, 'y']);
    const answer = await asked;
    // The frame goes out before the resolved file is written: the worker may read either first.
    expect(answer).toMatchObject({ decision: 'allow', source: expect.stringMatching(/^(resolved|inbox)$/) });
    await waitFor(async () => (await screen(b)).includes('approved w1 Bash'), 5000, 'the approval line');
    expect(await responseFrames(h.paths, 'w1', answer.id)).toHaveLength(1);

    // The holder dies without a word: the watcher takes the lease over on its tick and consumes.
    process.kill(holderPid, 'SIGKILL');
    const killedAt = Date.now();
    await waitFor(async () => (await screen(b)).includes("this console takes delivery of team-lead's inbox now"), 10_000, 'the take-over');
    const tookMs = Date.now() - killedAt;
    expect(tookMs).toBeLessThan(5000);
    const newHolder = (await readTeam(team)).leadProcess;
    expect(newHolder?.pid).not.toBe(holderPid);
    expect(newHolder?.kind).toBe('console');
    await mailbox.append('team-lead', { from: 'w2', text: 'fourth report' });
    await waitFor(async () => (await mailbox.read('team-lead')).find((m) => m.text === 'fourth report')?.read, 10_000, 'the watcher consuming');
    // Marked read before it is drawn: wait for the screen, then check it is shown once.
    await waitFor(async () => (await screen(b)).includes('fourth report'), 10_000, 'the fourth report on the watcher-turned-holder');
    expect((await screen(b)).split('fourth report')).toHaveLength(2);

    // A plain command may not take the holder's messages without --force.
    const refused = await swarmInProcess(root, ['inbox', 'team-lead', '--consume', '--team', TEAM]);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr.trim()).toBe(`swarm: pid ${newHolder?.pid} (a console) takes delivery of team-lead's inbox: consuming here would take its messages; read without --consume, or add --force`);
    const forced = await swarmInProcess(root, ['inbox', 'team-lead', '--consume', '--force', '--team', TEAM]);
    expect(forced.exitCode).toBe(0);
    expect(forced.stderr).toContain('warning: pid');

    // --take-over: the holder hands over and watches; the new console takes delivery.
    const c = await openConsole(false, ['--take-over']);
    await waitFor(async () => (await screen(b)).includes('handed over to pid'), 15_000, 'the hand-over');
    await waitFor(async () => (await screen(c)).includes(`swarm lead · team ${TEAM}`), 5000, 'the new holder');
    expect(await screen(c)).not.toContain('watching:');
    await mailbox.append('team-lead', { from: 'w2', text: 'fifth report' });
    for (const pane of [b, c]) await waitFor(async () => (await screen(pane)).includes('fifth report'), 10_000, `the fifth report in ${pane}`);
    expect((await readTeam(team)).leadProcess?.pid).not.toBe(newHolder?.pid);
  }, 60_000);
});
