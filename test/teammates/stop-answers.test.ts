// What a stop does with each answer a teammate can give, in process (the mutation run's tests of
// teammates/stop.ts): the teammate is played by this test, which reads the signed shutdown_request
// from its inbox and writes its answer to team-lead's, as a real one does; its process is a real
// `sleep` (support/team-fixture.ts). A member with a pane gets a stand-in backend through the
// `backendFor` seam that StopContext has for shutdownAll, so the pane's life is the test's to decide.
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/backends/process.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { readAudit } from '../../src/permissions/audit.js';
import { encodeControl, parseControl, type ControlMessage } from '../../src/protocol/control.js';
import type { Member } from '../../src/protocol/config.js';
import { TaskList } from '../../src/tasks/index.js';
import { addMember, readTeam, updateMember, updateTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { addWorktree, planWorktree } from '../../src/teammates/worktree.js';
import { backendsOnce, handleShutdownApproved, killTeammate, shutdownAll, shutdownTeammate, type StopOutcome } from '../../src/teammates/stop.js';
import { reapChildren, startSleeper } from '../support/team-fixture.js';
import { git, makeRepo } from '../support/git-repo.js';
import { settablePanes, useStandInTeam } from '../support/stand-in-panes.js';
import { tempRoot } from '../support/tmp-root.js';

const TEAM = 't';
/** The wait for an answer the test writes at once: long enough for a loaded machine, short for a mutant that never sees it. */
const ANSWER_MS = 4000;
let root: string;
let team: Team;
let mailbox: Mailbox;

useStandInTeam('swarm-stop-', (s) => {
  ({ root, team } = s);
  mailbox = new Mailbox({ team });
});

/** A teammate whose process is a live `sleep` and which has no pane; returns its pid. */
async function liveTeammate(name: string, extra: Partial<Member> = {}): Promise<number> {
  await addMember(team, { name });
  const pid = await startSleeper();
  await updateMember(team, name, { pid, ...extra });
  return pid;
}

/** The shutdown_request in `name`'s inbox (the newest). */
async function requestTo(name: string): Promise<Extract<ControlMessage, { type: 'shutdown_request' }>> {
  const frames = (await mailbox.read(name)).map((m) => parseControl(m.text)).flatMap((p) => (p.kind === 'control' && p.message.type === 'shutdown_request' ? [p.message] : []));
  const last = frames.at(-1);
  if (last === undefined) throw new Error(`no shutdown_request in ${name}'s inbox`);
  return last;
}

type Reply = { type: 'shutdown_approved'; graceExpired?: boolean } | { type: 'shutdown_rejected'; reason: string };

/** Answer `name`'s shutdown_request as that teammate (or as `from`, or to another request id), in team-lead's inbox. */
async function answer(name: string, reply: Reply, o: { from?: string; requestId?: string } = {}): Promise<void> {
  const req = await requestTo(name);
  const from = o.from ?? name;
  const text = encodeControl({ ...reply, requestId: o.requestId ?? req.requestId, from, timestamp: new Date().toISOString() } as ControlMessage);
  await mailbox.append('team-lead', { from, text });
}

/** onRequested that answers at once (then runs `after`, e.g. ending the process). */
function answering(reply: Reply, after: () => void | Promise<void> = () => undefined): { onRequested: (name: string) => void; done: () => Promise<void> } {
  let running: Promise<void> = Promise.resolve();
  return {
    onRequested: (name) => {
      running = answer(name, reply).then(after);
    },
    done: () => running,
  };
}

const roster = async (): Promise<string[]> => (await readTeam(team)).members.map((m) => m.name);
/** The shutdown lines of the audit log, without their time and chain link. */
const shutdowns = async () => (await readAudit(team.paths)).filter((e) => e.event === 'shutdown').map(({ prev: _prev, ...e }) => ({ ...e, at: 0 }));

describe('shutdownTeammate: the answer decides', () => {
  it('approved: the request is signed by team-lead, in the lead colour, with its reason; only its answer is consumed; the stop and the audit say approved', async () => {
    const pid = await liveTeammate('w1');
    await updateTeam(team, (c) => void (c.members[0]!.color = 'magenta'));
    await mailbox.append('team-lead', { from: 'w1', text: 'a note for the console' });
    const t = answering({ type: 'shutdown_approved' }, () => reapChildren());
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, reason: 'done for today', exitGraceMs: 2000, onRequested: t.onRequested });
    await t.done();
    expect(out).toEqual({ name: 'w1', outcome: 'approved', verified: true });
    expect(isProcessAlive(pid)).toBe(false);
    expect(await roster()).toEqual(['team-lead']);
    const [sent] = await mailbox.read('w1');
    expect(sent).toMatchObject({ from: 'team-lead', color: 'magenta', lead_sig: expect.any(String) });
    const req = await requestTo('w1');
    expect(req).toMatchObject({ type: 'shutdown_request', from: 'team-lead', reason: 'done for today' });
    expect(req.requestId).toMatch(/^shutdown-/);
    const lead = await mailbox.read('team-lead');
    expect(lead.map((m) => [m.text.includes('shutdown_approved') ? 'the answer' : m.text, m.read])).toEqual([
      ['a note for the console', false],
      ['the answer', true],
    ]);
    expect(await shutdowns()).toEqual([
      { event: 'shutdown', id: req.requestId, at: 0, worker: 'w1', status: 'requested', by: 'team-lead', reason: 'done for today' },
      { event: 'shutdown', id: req.requestId, at: 0, worker: 'w1', status: 'approved', by: 'team-lead' },
    ]);
  });

  it('without a reason and a lead colour, the request and its audit lines carry none', async () => {
    await liveTeammate('w1');
    await updateTeam(team, (c) => void delete c.members[0]!.color);
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 200 });
    expect(out.outcome).toBe('timeout');
    const [sent] = await mailbox.read('w1');
    expect(sent).not.toHaveProperty('color');
    expect(await requestTo('w1')).not.toHaveProperty('reason');
    expect((await shutdowns()).map((e) => Object.keys(e).sort())).toEqual([
      ['at', 'by', 'event', 'id', 'status', 'worker'],
      ['at', 'by', 'event', 'id', 'reason', 'status', 'worker'], // the timeout's reason
    ]);
  });

  it('rejected: the reason is the outcome, it keeps running and stays; the rejection is audited with it', async () => {
    const pid = await liveTeammate('w1');
    const t = answering({ type: 'shutdown_rejected', reason: 'busy: halfway through a migration' });
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, onRequested: t.onRequested });
    expect(out).toEqual({ name: 'w1', outcome: 'rejected', reason: 'busy: halfway through a migration', verified: false });
    expect(isProcessAlive(pid)).toBe(true);
    expect(await roster()).toEqual(['team-lead', 'w1']);
    expect((await shutdowns()).map((e) => [e.status, e.reason])).toEqual([
      ['requested', undefined],
      ['rejected', 'busy: halfway through a migration'],
    ]);
  });

  it('rejected with --force: killed, verified, saying it was after a rejection', async () => {
    const pid = await liveTeammate('w1');
    const t = answering({ type: 'shutdown_rejected', reason: 'busy' });
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, force: true, onRequested: t.onRequested });
    expect(out).toEqual({ name: 'w1', outcome: 'killed', reason: '--force after a rejection: busy', verified: true });
    expect(isProcessAlive(pid)).toBe(false);
    expect(await roster()).toEqual(['team-lead']);
  });

  it('an answer from someone else, to another request, its own request echoed, or in plain words is no answer: it times out', async () => {
    await liveTeammate('w1');
    await addMember(team, { name: 'w2' });
    const out = await shutdownTeammate(team, 'w1', {
      env: {},
      timeoutMs: 1500,
      onRequested: (name) => {
        void (async () => {
          await answer(name, { type: 'shutdown_approved' }, { from: 'w2' });
          await answer(name, { type: 'shutdown_approved' }, { requestId: 'shutdown-w1-not-this-one' });
          const req = await requestTo(name);
          await mailbox.append('team-lead', { from: name, text: encodeControl({ ...req, from: name }) }); // its own request echoed back
          await mailbox.append('team-lead', { from: name, text: `shutdown_approved ${(await requestTo(name)).requestId}` });
        })();
      },
    });
    expect(out).toMatchObject({ name: 'w1', outcome: 'timeout', verified: false });
    expect(await roster()).toEqual(['team-lead', 'w1', 'w2']);
    expect((await mailbox.read('team-lead')).map((m) => m.read)).toEqual([false, false, false, false]);
  });

  it('the answer found however its sender spelt the name (names are case-insensitive)', async () => {
    await liveTeammate('w1');
    const out = await shutdownTeammate(team, 'w1', {
      env: {},
      timeoutMs: ANSWER_MS,
      exitGraceMs: 100,
      onRequested: (name) => void answer(name, { type: 'shutdown_rejected', reason: 'no' }, { from: 'W1' }),
    });
    expect(out).toEqual({ name: 'w1', outcome: 'rejected', reason: 'no', verified: false });
  });

  it('a Claude Code leader holds the team: the answer is left unread for it', async () => {
    await liveTeammate('w1');
    const leader = await startSleeper();
    await updateTeam(team, (c) => void (c.leadProcess = { pid: leader, claimedAt: Date.now() })); // Claude Code's shape: no kind
    const t = answering({ type: 'shutdown_rejected', reason: 'busy' });
    expect(await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, onRequested: t.onRequested })).toMatchObject({ outcome: 'rejected', reason: 'busy' });
    expect((await mailbox.read('team-lead')).map((m) => m.read)).toEqual([false]);
  });

  it('the teammate answers, then exits at once: the answer, not "exited without answering"', async () => {
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { tmuxPaneId: '%2', backendType: 'tmux' });
    const panes = settablePanes();
    panes.alive.add('%2');
    // the wait's first look finds no answer and asks the pane: by then it has answered and exited
    const out = await shutdownTeammate(team, 'w1', {
      env: {},
      timeoutMs: ANSWER_MS,
      backendFor: () => panes.backend,
      onRequested: (n) =>
        panes.seen.push(async () => {
          await answer(n, { type: 'shutdown_approved' });
          panes.alive.delete('%2');
        }),
    });
    expect(out).toEqual({ name: 'w1', outcome: 'approved', verified: true });
  });

  it('an answer another reader already took (marked read) still counts', async () => {
    await liveTeammate('w1');
    const out = await shutdownTeammate(team, 'w1', {
      env: {},
      timeoutMs: ANSWER_MS,
      onRequested: (name) =>
        void (async () => {
          const req = await requestTo(name);
          const text = encodeControl({ type: 'shutdown_rejected', requestId: req.requestId, from: name, reason: 'busy', timestamp: new Date().toISOString() });
          await mailbox.append('team-lead', { ...mailbox.makeEntry({ from: name, text }), read: true });
        })(),
    });
    expect(out).toEqual({ name: 'w1', outcome: 'rejected', reason: 'busy', verified: false });
  });

  it('the teammate exits without answering: already gone, removed, saying so', async () => {
    await liveTeammate('w1');
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, onRequested: () => void reapChildren() });
    expect(out).toEqual({ name: 'w1', outcome: 'already_gone', reason: 'it exited without answering the shutdown request', verified: true });
    expect(await roster()).toEqual(['team-lead']);
  });

  it('the teammate hibernates instead of answering (asked while on its way to sleep): removed asleep, saying so', async () => {
    await liveTeammate('w1');
    const asleep = async (): Promise<void> => {
      await updateMember(team, 'w1', { isActive: false, hibernatedAt: Date.now() });
      await reapChildren();
    };
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: ANSWER_MS, onRequested: () => void asleep() });
    expect(out).toEqual({ name: 'w1', outcome: 'already_gone', reason: 'it was hibernating, and was not woken', verified: true });
    expect(await roster()).toEqual(['team-lead']);
  });

  it('a grace exit (the model never answered): reported as one, with the grace period in seconds', async () => {
    await liveTeammate('w1');
    const t = answering({ type: 'shutdown_approved', graceExpired: true }, () => reapChildren());
    const out = await shutdownTeammate(team, 'w1', { env: { SWARM_SHUTDOWN_GRACE_MS: '12400' }, timeoutMs: ANSWER_MS, onRequested: t.onRequested });
    expect(out).toEqual({ name: 'w1', outcome: 'grace_exit', reason: 'exited by itself when its 12 s grace period ended', verified: true });
    expect((await shutdowns()).map((e) => e.status)).toEqual(['requested', 'grace_exit']);
  });
});

describe('shutdownTeammate: no answer in time', () => {
  it('a swarm teammate: the request stands, with the grace period it exits by', async () => {
    await liveTeammate('w1');
    expect(await shutdownTeammate(team, 'w1', { env: { SWARM_SHUTDOWN_GRACE_MS: '2600' }, timeoutMs: 250 })).toEqual({
      name: 'w1',
      outcome: 'timeout',
      reason: 'no answer within 0.3 s; the request stands: it exits by itself when its 3 s grace period ends',
      verified: false,
    });
  });

  it('a grace no longer than the wait, or a claude teammate (no grace of ours): nothing stands', async () => {
    await liveTeammate('w1');
    expect(await shutdownTeammate(team, 'w1', { env: { SWARM_SHUTDOWN_GRACE_MS: '250' }, timeoutMs: 250 })).toMatchObject({ outcome: 'timeout', reason: 'no answer within 0.3 s' });
    await updateMember(team, 'w1', { runtime: 'claude' });
    expect(await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 250 })).toMatchObject({ outcome: 'timeout', reason: 'no answer within 0.3 s' });
  });

  it('by default it waits the grace period plus a margin', async () => {
    const pid = await liveTeammate('w1');
    const out = await shutdownTeammate(team, 'w1', { env: { SWARM_SHUTDOWN_GRACE_MS: '0' } });
    expect(out).toMatchObject({ outcome: 'timeout', reason: 'no answer within 10 s' });
    expect(isProcessAlive(pid)).toBe(true);
  }, 30_000);
});

describe('shutdownTeammate: a member that is not there to ask', () => {
  it('the team lead, or nobody: refused, nothing sent', async () => {
    await expect(shutdownTeammate(team, 'team-lead', { env: {} })).rejects.toThrow('the team lead is not a teammate: stop the console itself, or delete the team');
    await expect(killTeammate(team, 'team-lead', { env: {} })).rejects.toThrow('the team lead is not a teammate: stop the console itself, or delete the team');
    await expect(shutdownTeammate(team, 'nobody', { env: {} })).rejects.toThrow(/no member "nobody"/);
    expect(await mailbox.read('team-lead')).toEqual([]);
    expect(await shutdowns()).toEqual([]);
  });

  it('a pid recorded for another machine is neither asked after nor signalled here: already gone, its process untouched', async () => {
    const pid = await liveTeammate('w1', { host: 'build1' });
    const terminated: number[] = [];
    const terminate = async (p: number): Promise<boolean> => (terminated.push(p), true);
    expect(await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 200, terminate })).toEqual({ name: 'w1', outcome: 'already_gone', reason: 'it had already exited', verified: true });
    expect(terminated).toEqual([]);
    expect(isProcessAlive(pid)).toBe(true);
    expect(await mailbox.read('w1')).toEqual([]);
  });

  it('a member with neither pane nor pid: already gone, nothing to signal', async () => {
    await addMember(team, { name: 'w1' });
    const terminated: number[] = [];
    expect(await killTeammate(team, 'w1', { env: {}, terminate: async (p) => (terminated.push(p), true) })).toEqual({ name: 'w1', outcome: 'killed', verified: true });
    expect(terminated).toEqual([]);
  });

  it('a hibernating teammate is removed without waking it: no request, its leftover pane closed', async () => {
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { tmuxPaneId: '%7', backendType: 'tmux', hibernatedAt: 1 });
    const panes = settablePanes();
    const out = await shutdownTeammate(team, 'w1', { env: {}, timeoutMs: 200, backendFor: () => panes.backend });
    expect(out).toEqual({ name: 'w1', outcome: 'already_gone', reason: 'it was hibernating, and was not woken', verified: true });
    expect(panes.kills.map((p) => p.paneId)).toEqual(['%7']);
    expect(await roster()).toEqual(['team-lead']);
    expect(await mailbox.read('w1')).toEqual([]);
    expect(await shutdowns()).toEqual([]);
  });
});

describe('handleShutdownApproved: the leader side of an approval', () => {
  async function paneTeammate(name: string, paneId: string): Promise<void> {
    await addMember(team, { name });
    await updateMember(team, name, { tmuxPaneId: paneId, backendType: 'tmux' });
  }

  it('a pane that exits within the grace: closed (remain-on-exit keeps it), removed, approved with no reason', async () => {
    await paneTeammate('w1', '%3');
    const panes = settablePanes(); // not alive: it has exited
    expect(await handleShutdownApproved(team, { from: 'w1' }, { env: {}, exitGraceMs: 5000, backendFor: () => panes.backend })).toEqual({ name: 'w1', outcome: 'approved', verified: true });
    expect(panes.kills).toEqual([{ paneId: '%3', backendType: 'tmux', name: 'w1' }]);
    expect(await roster()).toEqual(['team-lead']);
  });

  it('a pane still running after the grace: killed, and the outcome says so in seconds', async () => {
    await paneTeammate('w1', '%3');
    const panes = settablePanes();
    panes.alive.add('%3');
    expect(await handleShutdownApproved(team, { from: 'w1' }, { env: {}, exitGraceMs: 600, backendFor: () => panes.backend })).toEqual({
      name: 'w1',
      outcome: 'approved',
      reason: 'still running 1 s after approving; killed',
      verified: true,
    });
    expect(panes.kills.map((p) => p.paneId)).toEqual(['%3']);
  });

  it('a grace exit still running: killed, saying so; a bad SWARM_SHUTDOWN_GRACE_MS here leaves the seconds out', async () => {
    await paneTeammate('w1', '%3');
    await paneTeammate('w2', '%4');
    const panes = settablePanes();
    panes.alive.add('%3');
    const ctx = { exitGraceMs: 1400, backendFor: () => panes.backend };
    expect(await handleShutdownApproved(team, { from: 'w1', graceExpired: true }, { ...ctx, env: { SWARM_SHUTDOWN_GRACE_MS: '4000' } })).toEqual({
      name: 'w1',
      outcome: 'grace_exit',
      reason: 'exited by itself when its 4 s grace period ended, and was killed 1 s later',
      verified: true,
    });
    expect(await handleShutdownApproved(team, { from: 'w2', graceExpired: true }, { ...ctx, env: { SWARM_SHUTDOWN_GRACE_MS: 'soon' } })).toEqual({
      name: 'w2',
      outcome: 'grace_exit',
      reason: 'exited by itself when its grace period ended',
      verified: true,
    });
  });

  it('a grace exit with the default grace and the default exit wait', async () => {
    await paneTeammate('w1', '%3');
    const panes = settablePanes();
    expect(await handleShutdownApproved(team, { from: 'w1', graceExpired: true }, { env: {}, backendFor: () => panes.backend })).toMatchObject({
      outcome: 'grace_exit',
      reason: 'exited by itself when its 30 s grace period ended',
    });
  });

  it('the default exit grace is 5 s', async () => {
    await paneTeammate('w1', '%3');
    const panes = settablePanes();
    panes.alive.add('%3');
    const out = await handleShutdownApproved(team, { from: 'w1' }, { env: {}, backendFor: () => panes.backend });
    expect(out).toMatchObject({ outcome: 'approved', reason: 'still running 5 s after approving; killed' });
  });

  it('a paneless member: its process terminated (verified) before it is removed', async () => {
    const pid = await liveTeammate('w1');
    expect(await handleShutdownApproved(team, { from: 'w1' }, { env: {}, exitGraceMs: 100 })).toEqual({ name: 'w1', outcome: 'approved', verified: true });
    expect(isProcessAlive(pid)).toBe(false);
  });

  it('from someone no longer in the roster, or from team-lead: already handled, nothing removed', async () => {
    await paneTeammate('w1', '%3');
    const panes = settablePanes();
    const ctx = { env: {}, backendFor: () => panes.backend };
    expect(await handleShutdownApproved(team, { from: 'gone' }, ctx)).toEqual({ name: 'gone', outcome: 'already_gone', verified: true, reason: 'no longer in the roster' });
    expect(await handleShutdownApproved(team, { from: 'team-lead' }, ctx)).toEqual({ name: 'team-lead', outcome: 'already_gone', verified: true, reason: 'no longer in the roster' });
    expect(await roster()).toEqual(['team-lead', 'w1']);
    expect(panes.kills).toEqual([]);
  });

  it('shutdownTeammate after another reader (the console) already handled the approval: still approved, or a grace exit', async () => {
    for (const [name, graceExpired, expected] of [
      ['w1', false, { name: 'w1', outcome: 'approved', verified: true }],
      ['w2', true, { name: 'w2', outcome: 'grace_exit', verified: true, reason: 'exited by itself when its grace period ended' }],
    ] as const) {
      await paneTeammate(name, '%5');
      const panes = settablePanes();
      panes.alive.add('%5');
      const ctx = { env: {}, exitGraceMs: 100, backendFor: () => panes.backend };
      const out = await shutdownTeammate(team, name, {
        ...ctx,
        timeoutMs: ANSWER_MS,
        // the wait's first look finds no answer and asks the pane: the answer comes, and the console handles it, first
        onRequested: (n) =>
          panes.seen.push(async () => {
            await answer(n, { type: 'shutdown_approved', graceExpired });
            panes.alive.delete('%5');
            expect(await handleShutdownApproved(team, { from: n }, ctx)).toMatchObject({ outcome: 'approved' });
            panes.alive.add('%5'); // the waiter still sees it once, then the answer
          }),
      });
      expect(out).toEqual(expected);
    }
  });
});

describe('what a departure tells team-lead', () => {
  it("a kill or a forced shutdown says terminated; a shutdown, a teammate gone already and a hibernating one's removal say shut down: each releases its tasks", async () => {
    const tasks = new TaskList(team);
    for (const name of ['k', 's', 'g', 'h', 'f']) {
      await addMember(team, { name });
      await tasks.create({ subject: `${name}'s task`, description: 'x', owner: name }, 'team-lead');
    }
    await updateMember(team, 'h', { hibernatedAt: 1 });
    await updateMember(team, 's', { pid: await startSleeper() });
    await updateMember(team, 'f', { pid: await startSleeper() });
    await killTeammate(team, 'k', { env: {} });
    const t = answering({ type: 'shutdown_approved' });
    await shutdownTeammate(team, 's', { env: {}, timeoutMs: ANSWER_MS, exitGraceMs: 100, onRequested: t.onRequested });
    await shutdownTeammate(team, 'g', { env: {}, timeoutMs: ANSWER_MS });
    await shutdownTeammate(team, 'h', { env: {}, timeoutMs: ANSWER_MS });
    await shutdownTeammate(team, 'f', { env: {}, timeoutMs: 200, force: true });
    const notices = (await mailbox.read('team-lead')).filter((m) => m.from === 'system').map((m) => m.text.split('.')[0]);
    expect(notices).toEqual(['k was terminated', 's has shut down', 'g has shut down', 'h has shut down', 'f was terminated']);
  });
});

describe('a worktree teammate', () => {
  it('its clean worktree is removed with its branch when it is forgotten, and the outcome says so', async () => {
    const repo = await makeRepo(await tempRoot('swarm-stop-repo-'));
    const plan = await planWorktree(TEAM, 'w1', repo);
    await addWorktree(plan);
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { worktreePath: plan.path, cwd: plan.cwd });
    expect(await killTeammate(team, 'w1', { env: {} })).toEqual({
      name: 'w1',
      outcome: 'killed',
      verified: true,
      worktree: { fate: 'removed', path: plan.path, branch: 'swarm/t/w1' },
    });
    expect(await git(repo, 'branch', '--list', 'swarm/t/w1')).toBe('');
  });
});

describe('shutdownAll', () => {
  it('every teammate asked at once, each outcome told as it settles; a failure for one is its `failed` outcome, in one line', async () => {
    await liveTeammate('w1');
    await liveTeammate('w2');
    await addMember(team, { name: 'w3' });
    await updateMember(team, 'w3', { tmuxPaneId: '%9', backendType: 'screen' }); // no such backend: its stop throws
    const told: StopOutcome[] = [];
    const requested: string[] = [];
    const outcomes = await shutdownAll(team, {
      env: {},
      timeoutMs: ANSWER_MS,
      onRequested: (name) => {
        requested.push(name);
        if (requested.length === 2) void Promise.all(requested.map((n) => answer(n, { type: 'shutdown_rejected', reason: `${n} is busy` })));
      },
      onOutcome: (o) => told.push(o),
    });
    expect(outcomes).toEqual([
      { name: 'w1', outcome: 'rejected', reason: 'w1 is busy', verified: false },
      { name: 'w2', outcome: 'rejected', reason: 'w2 is busy', verified: false },
      { name: 'w3', outcome: 'failed', reason: 'member w3 has no known backend (backendType "screen"); stop its process by hand', verified: false },
    ]);
    expect([...told].sort((a, b) => a.name.localeCompare(b.name))).toEqual(outcomes);
    expect(requested.sort()).toEqual(['w1', 'w2']);
  });

  it("a failure's reason is its first line only", async () => {
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { tmuxPaneId: '%1', backendType: 'tmux' });
    const backendFor = (): never => {
      throw new Error('the backend could not be made\n  details on a second line');
    };
    expect(await shutdownAll(team, { env: {}, timeoutMs: 100, backendFor })).toEqual([{ name: 'w1', outcome: 'failed', reason: 'the backend could not be made', verified: false }]);
  });

  it('no teammates: nothing to do', async () => {
    expect(await shutdownAll(team, { env: {}, timeoutMs: 100 })).toEqual([]);
  });

  it('the backend of each kind is built once for the whole team', async () => {
    for (const [name, pane] of [['w1', '%1'], ['w2', '%2']] as const) {
      await addMember(team, { name });
      await updateMember(team, name, { tmuxPaneId: pane, backendType: 'tmux' });
    }
    const built: string[] = [];
    const outcomes = await shutdownAll(team, {
      env: {},
      timeoutMs: 100,
      backendFor: (m) => (built.push(m.name), settablePanes().backend), // every pane already exited
    });
    expect(outcomes.map((o) => [o.name, o.outcome])).toEqual([
      ['w1', 'already_gone'],
      ['w2', 'already_gone'],
    ]);
    expect(built).toHaveLength(1);
  });
});

describe('backendsOnce', () => {
  it('one backend per team and backend kind, built by the given backendFor (or the registry)', async () => {
    const built: string[] = [];
    const backendFor = backendsOnce({ env: {}, backendFor: (m, t) => (built.push(`${t.name}/${m.name}`), settablePanes().backend) });
    const m = (name: string, backendType?: string): Member => ({ name, agentId: `${name}@t`, joinedAt: 0, tmuxPaneId: '%1', cwd: '', subscriptions: [], ...(backendType ? { backendType } : {}) });
    const a = backendFor(m('w1', 'tmux'), team);
    expect(backendFor(m('w2', 'tmux'), team)).toBe(a);
    const other = new Team(root, 'u');
    expect(backendFor(m('w3', 'tmux'), other)).not.toBe(a);
    expect(backendFor(m('w4'), team)).not.toBe(a); // no kind recorded is its own key
    expect(backendFor(m('w5', 'iterm2'), team)).not.toBe(a);
    expect(built).toEqual(['t/w1', 'u/w3', 't/w4', 't/w5']);
    const registry = backendsOnce({ env: {} });
    expect(registry(m('w1', 'in-process'), team).type).toBe('in-process');
    expect(registry(m('w2', 'in-process'), team)).toBe(registry(m('w1', 'in-process'), team));
  });
});
