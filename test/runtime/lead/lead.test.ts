// The agent lead's end condition (SPEC §9), in process: runLead against the stand-in Messages API
// on a real team in a temp root. A turn that ends while a teammate is still working does not end
// the run; the teammate's idle notification wakes the lead, and the run ends when it ends a turn
// with nobody working and no task open. A turn that ends with a task open and nobody working gets
// the nudge. At the team's budget the person is asked, and going on raises it in config.json.
import { afterEach, describe, expect, it } from 'vitest';
import { encodeControl } from '../../../src/protocol/control.js';
import { InboxMessageSchema, type InboxMessage } from '../../../src/protocol/message.js';
import { MAX_NUDGES, runLead, type LeadOptions, type LeadOutcome } from '../../../src/runtime/lead/lead.js';
import { LeadQueue } from '../../../src/runtime/lead/queue.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { SUMMARY_TAG } from '../../../src/runtime/compaction.js';
import { lastUserText, systemText } from '../../../src/standin/request.js';
import { startMessagesServer, type MessagesServer, type ScriptInput } from '../../../src/standin/messages-server.js';
import type { LimitHit } from '../../../src/runtime/lead/limits.js';
import { addMember, createTeam, readTeam } from '../../../src/team/team-store.js';
import type { Team } from '../../../src/team/team.js';
import { writeStatus } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-lead-');
let server: MessagesServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** The lead's queue, telling when the loop waits on it (idle with nothing to hear). */
class WatchedQueue extends LeadQueue {
  waits = 0;
  override changed(signal: AbortSignal): Promise<void> {
    this.waits += 1;
    return super.changed(signal);
  }
}

async function lead(
  team: Team,
  script: ScriptInput,
  queue: LeadQueue,
  onFinished: (answer: string) => boolean,
  env: Record<string, string> = {},
  more: Partial<LeadOptions> = {},
): Promise<{ outcome: Promise<LeadOutcome> }> {
  server = await startMessagesServer({ script });
  const fail = (): Promise<never> => Promise.reject(new Error('not in this test'));
  const o: LeadOptions = {
    team,
    goal: 'Get w1 to finish.',
    queue,
    model: 'claude-sonnet-4-5',
    cwd: root,
    limits: { maxTeammates: 4 },
    spawn: fail,
    stop: fail,
    stopAll: fail,
    kill: fail,
    onLimit: () => Promise.resolve('stop'),
    onFinished,
    env: { ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test', HOME: root, CLAUDE_CONFIG_DIR: root, SWARM_RETRY_BASE_MS: '10', ...env },
    write: () => undefined,
    ...more,
  };
  return { outcome: runLead(o) }; // not awaited: the test acts while the lead runs
}

/**
 * Team t with w1 in `state`, then (after `before`) a lead told to get w1 to finish, which waits
 * for w1 and finishes once it hears "w1 is done"; `answers` are what it finished with.
 */
async function leadOfW1(state: 'working' | 'idle', before: (team: Team, queue: LeadQueue) => Promise<void> = async () => undefined) {
  const { team } = await createTeam(root, { name: 't', cwd: root });
  await addMember(team, { name: 'w1', cwd: root });
  await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', state });
  const queue = new WatchedQueue();
  await before(team, queue);
  const answers: string[] = [];
  const turns = [
    { match: { agent: 'team-lead', lastUser: 'Get w1 to finish.' }, reply: 'Waiting for w1.' },
    { match: { agent: 'team-lead', lastUser: 'w1 is done' }, reply: 'FINAL: w1 finished.' },
  ];
  const { outcome } = await lead(team, { turns }, queue, (a) => (answers.push(a), true));
  return { team, queue, answers, outcome };
}

const leadTexts = () => server!.requests.filter((q) => q.agent === 'team-lead').map((q) => lastUserText(q.body!));

describe('the agent lead', () => {
  it('does not end the run while a teammate is working; its idle notification wakes the lead, which then finishes', async () => {
    const { team, queue, answers, outcome } = await leadOfW1('working');
    // The turn ended and the lead waits for news: w1 is working, so nothing is finished.
    await waitFor(() => queue.waits > 0 && server!.requests.length === 1, 10_000, 'the lead waiting after its first turn');
    expect(answers).toEqual([]);
    // w1 finishes: its status says idle, and its idle notification reaches the lead.
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', state: 'idle' });
    const at = new Date().toISOString();
    queue.offer(InboxMessageSchema.parse({ from: 'w1', timestamp: at, text: encodeControl({ type: 'idle_notification', from: 'w1', timestamp: at, summary: 'w1 is done' }) }));
    expect(await outcome).toEqual({ kind: 'finished', answer: 'FINAL: w1 finished.' });
    expect(answers).toEqual(['FINAL: w1 finished.']);
    expect(server!.requests).toHaveLength(2);
    expect(systemText(server!.requests[0]!.body!)).toContain(`- ${team.paths.scratchpad} is the team's scratchpad: every teammate reads and writes files there without asking anyone.`);
  });

  it("does not end the run on a teammate's report that is in team-lead's inbox but not offered yet: it hears it, then finishes", async () => {
    // w1 did its work within the lead's first turn: idle, its report already in team-lead's inbox,
    // which the inbox's consumer (console, run -p) offers to the lead a moment later.
    let report: InboxMessage | undefined;
    let team: Team | undefined;
    const { queue, answers, outcome } = await leadOfW1('idle', async (t) => {
      team = t;
      report = await new Mailbox({ team: t }).append('team-lead', { from: 'w1', text: 'w1 is done' });
    });
    await waitFor(() => server!.requests.length === 1, 10_000, "the lead's first turn");
    // A consumer slowed down by a loaded machine: longer than the 3 s the lead once waited at most
    // (the README's run example then printed the answer of the turn before the report).
    await new Promise((r) => setTimeout(r, 3_500));
    expect(answers).toEqual([]);
    // What the consumer does: take delivery (marked read), then offer it, saying it is taking meanwhile.
    queue.setTaking(true);
    await new Mailbox({ team: team! }).consume('team-lead');
    queue.offer(report!);
    queue.setTaking(false);
    expect(await outcome).toEqual({ kind: 'finished', answer: 'FINAL: w1 finished.' });
    expect(answers).toEqual(['FINAL: w1 finished.']);
  });

  it('does not end the run on a report its consumer has taken (marked read) and not offered yet: it waits for the offer, then finishes', async () => {
    let report: InboxMessage | undefined;
    const { queue, answers, outcome } = await leadOfW1('idle', async (t, q) => {
      report = await new Mailbox({ team: t }).append('team-lead', { from: 'w1', text: 'w1 is done' });
      // The consumer's consume has written (nothing unheard in the file) and it has not offered yet.
      q.setTaking(true);
      await new Mailbox({ team: t }).consume('team-lead');
    });
    await waitFor(() => server!.requests.length === 1, 10_000, "the lead's first turn");
    await new Promise((r) => setTimeout(r, 300));
    expect(answers).toEqual([]);
    queue.offer(report!);
    queue.setTaking(false);
    expect(await outcome).toEqual({ kind: 'finished', answer: 'FINAL: w1 finished.' });
    expect(answers).toEqual(['FINAL: w1 finished.']);
  });

  it("ends at once when the entry waiting in team-lead's inbox is taken by another reader (read, never offered)", async () => {
    let team: Team | undefined;
    const { answers, outcome } = await leadOfW1('idle', async (t) => {
      team = t;
      await new Mailbox({ team: t }).append('team-lead', { from: 'w1', text: 'w1 is done' });
    });
    await waitFor(() => server!.requests.length === 1, 10_000, "the lead's first turn");
    const taken = Date.now();
    await new Mailbox({ team: team! }).consume('team-lead');
    expect(await outcome).toEqual({ kind: 'finished', answer: 'Waiting for w1.' });
    expect(answers).toEqual(['Waiting for w1.']);
    expect(Date.now() - taken).toBeLessThan(5_000);
  });

  it('compacts its conversation past SWARM_COMPACT_AT like a teammate (the same loop)', async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    const usage = (input_tokens: number) => ({ input_tokens, output_tokens: 5 });
    const { outcome } = await lead(
      team,
      {
        turns: [
          { match: { agent: 'team-lead', lastUser: 'Get w1 to finish.' }, reply: { content: [{ type: 'tool_use', name: 'TaskList', input: {} }], usage: usage(5000) } },
          { match: { agent: 'team-lead', lastUser: SUMMARY_TAG }, reply: { content: [{ type: 'text', text: 'LEAD-SUMMARY' }], usage: usage(900) } },
          { match: { agent: 'team-lead', toolResult: 'TaskList' }, reply: { content: [{ type: 'text', text: 'FINAL: nothing to do.' }], usage: usage(300) } },
        ],
      },
      new LeadQueue(),
      () => true,
      { SWARM_COMPACT_AT: '1000' },
    );
    expect(await outcome).toEqual({ kind: 'finished', answer: 'FINAL: nothing to do.' });
    const last = server!.requests.at(-1)!.body!.messages;
    expect(last.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(last[0])).toContain('LEAD-SUMMARY');
    expect(JSON.stringify(last)).not.toContain('Get w1 to finish.');
  });

  it(`nudges a lead that ends its turn with a task open and nobody working, and fails after ${MAX_NUDGES} nudges in a row`, async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    const queue = new LeadQueue();
    const { outcome } = await lead(
      team,
      {
        exhaustedReply: 'I will wait.',
        turns: [{ match: { agent: 'team-lead', lastUser: 'Get w1 to finish.' }, reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Write it', description: 'write it' } }] } }],
      },
      queue,
      () => true,
    );
    expect(await outcome).toEqual({ kind: 'failed', why: `the lead stopped ${MAX_NUDGES} times with 1 task open and no teammate working` });
    const texts = leadTexts();
    // the goal, the TaskCreate result, then one request per nudge
    expect(texts).toHaveLength(2 + MAX_NUDGES);
    for (const t of texts.slice(2)) {
      expect(t).toMatch(/^\[swarm\] The run is not finished: 1 task is still open \(#1 pending: Write it\) and no teammate is working, so nothing will happen by itself\. There are no teammates\./);
    }
  });

  it("at --budget-usd asks the person; going on raises the team's budget in config.json by its first size; spend before the run does not count", async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    await addMember(team, { name: 'w1', cwd: root });
    // Spent before this run: w1's, and a previous lead's (whose status file this lead's replaces).
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 1, state: 'idle', totalTokens: 5000, costUsd: 5 });
    await writeStatus(root, 't', 'team-lead', { pid: process.pid, agentId: 'team-lead@t', startedAt: 1, state: 'idle', totalTokens: 2000, costUsd: 2 });
    const asked: LimitHit[] = [];
    const { outcome } = await lead(
      team,
      {
        turns: [
          // $1.50 at claude-sonnet-4-5's $3 per million input tokens.
          { match: { agent: 'team-lead', lastUser: 'Get w1 to finish.' }, reply: { content: [{ type: 'tool_use', name: 'TaskList', input: {} }], usage: { input_tokens: 500_000, output_tokens: 0 } } },
          { match: { agent: 'team-lead', toolResult: 'TaskList' }, reply: { content: [{ type: 'text', text: 'FINAL: nothing to do.' }], usage: { input_tokens: 1000, output_tokens: 0 } } },
        ],
      },
      new LeadQueue(),
      () => true,
      { SWARM_COMPACT_AT: '100000000' },
      {
        limits: { maxTeammates: 4, budgetUsd: 1 },
        onLimit: async (hit) => {
          asked.push(hit);
          expect((await readTeam(team)).swarm?.budget?.usd).toBe(1); // still held while the person decides
          return 'continue';
        },
      },
    );
    expect(await outcome).toEqual({ kind: 'finished', answer: 'FINAL: nothing to do.' });
    expect(asked).toEqual([{ kind: 'budget-usd', why: '$1.50 spent of --budget-usd 1' }]);
    expect((await readTeam(team)).swarm?.budget).toEqual({ usd: 2, spentBefore: { costUsd: 7, tokens: 7000 } });
    expect(server!.requests).toHaveLength(2);
  });

  it('a teammate held at the budget is still working: the run does not end under it', async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    await addMember(team, { name: 'w1', cwd: root });
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', state: 'waiting_budget' });
    const queue = new WatchedQueue();
    const answers: string[] = [];
    const stop = new AbortController();
    const { outcome } = await lead(team, { turns: [{ match: { agent: 'team-lead', lastUser: 'Get w1 to finish.' }, reply: 'Waiting for w1.' }] }, queue, (a) => (answers.push(a), true), {}, { signal: stop.signal });
    await waitFor(() => queue.waits > 0 && server!.requests.length === 1, 10_000, 'the lead waiting after its first turn');
    expect(answers).toEqual([]);
    stop.abort(new Error('test over'));
    expect(await outcome).toEqual({ kind: 'stopped' });
  });
});
