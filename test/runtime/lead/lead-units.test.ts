// Units of the agent lead (SPEC §9): what its queue passes on and how it wakes (queue.ts), its
// limits (limits.ts; the team's spend and budget are team/spend.ts's, test/team/spend.test.ts),
// and what its SendMessage tells it about a shutdown (tools.ts).
import { describe, expect, it } from 'vitest';
import { encodeControl } from '../../../src/protocol/control.js';
import { InboxMessageSchema, type InboxMessage } from '../../../src/protocol/message.js';
import { LeadLimits } from '../../../src/runtime/lead/limits.js';
import { LeadQueue, staysWithPerson } from '../../../src/runtime/lead/queue.js';
import { leadSendTool, stopTool, type LeadPowers, type StopReport } from '../../../src/runtime/lead/tools.js';
import type { ToolContext, ToolOutput } from '../../../src/runtime/tools/types.js';

const at = new Date().toISOString();
function entry(from: string, text: string, extra: Partial<InboxMessage> = {}): InboxMessage {
  return InboxMessageSchema.parse({ from, text, timestamp: at, ...extra });
}
const permission = entry('w1', encodeControl({ type: 'permission_request', request_id: 'perm-1', agent_id: 'w1@t', tool_name: 'Bash', tool_use_id: 'toolu_1', description: 'run it', input: { command: 'ls' }, permission_suggestions: [] }));
const plan = entry('w1', encodeControl({ type: 'plan_approval_request', from: 'w1', timestamp: at, planFilePath: '', planContent: '1. do it', requestId: 'plan-1' }));
const idle = entry('w1', encodeControl({ type: 'idle_notification', from: 'w1', timestamp: at, summary: 'wrote out.txt' }), { color: 'blue' });
const shutdownRejected = entry('w1', encodeControl({ type: 'shutdown_rejected', requestId: 'shutdown-1@w1', from: 'w1', reason: 'busy', timestamp: at }));

describe('LeadQueue', () => {
  it('keeps permission requests and plan approvals for the person; everything else goes to the lead, wrapped', async () => {
    expect([permission, plan].map(staysWithPerson)).toEqual([true, true]);
    expect([idle, shutdownRejected, entry('w1', 'hello')].map(staysWithPerson)).toEqual([false, false, false]);
    const q = new LeadQueue();
    expect(q.offer(permission)).toBe(false);
    expect(q.offer(plan)).toBe(false);
    expect(q.size).toBe(0);
    expect(q.offer(entry('w1', 'out.txt written', { color: 'blue', summary: 'check "done"' }))).toBe(true);
    expect(q.offer(idle)).toBe(true);
    q.say('a line from the person');
    expect([q.size, q.count]).toEqual([3, 3]);
    const blocks = await q.take();
    expect(blocks.map((b) => b.text)).toEqual([
      '<teammate-message teammate_id="w1" color="blue" summary="check &quot;done&quot;">\nout.txt written\n</teammate-message>',
      `<teammate-message teammate_id="w1" color="blue">\n${idle.text}\n</teammate-message>`,
      'a line from the person',
    ]);
    expect(await q.take()).toEqual([]);
    expect([q.size, q.count]).toEqual([0, 3]); // count is arrivals so far, not what is queued
  });

  it('changed() resolves at once when something is queued, else on the next arrival; an abort rejects it', async () => {
    const q = new LeadQueue();
    const stop = new AbortController();
    let woke = false;
    const waiting = q.changed(stop.signal).then(() => (woke = true));
    await Promise.resolve();
    expect(woke).toBe(false);
    expect(q.offer(permission)).toBe(false); // stays with the person: does not wake the lead
    await Promise.resolve();
    expect(woke).toBe(false);
    q.offer(idle);
    await waiting;
    expect(woke).toBe(true);
    await q.changed(stop.signal); // still queued: resolves at once
    await q.take();
    const aborted = q.changed(stop.signal);
    stop.abort(new Error('run stopped'));
    await expect(aborted).rejects.toThrow('run stopped');
    await expect(q.changed(stop.signal)).rejects.toThrow('run stopped');
  });
});

const none = { hit: undefined, budget: undefined, spent: { costUsd: 0, tokens: 0, unpriced: [] } };

describe('LeadLimits', () => {
  it('reaches --max-turns after that many steps; continuing grows it by its first size', () => {
    const l = new LeadLimits({ maxTeammates: 2, maxTurns: 2 });
    expect(l.reached(none)).toBeUndefined();
    l.step();
    expect(l.reached(none)).toBeUndefined();
    l.step();
    expect(l.reached(none)).toEqual({ kind: 'max-turns', why: 'the lead took 2 model steps (--max-turns 2)' });
    l.extendTurns();
    expect(l.reached(none)).toBeUndefined();
    expect(l.describe(none)).toEqual(['model steps: 2 of 4']);
    l.step();
    l.step();
    expect(l.reached(none)?.why).toBe('the lead took 4 model steps (--max-turns 4)');
    expect(l.maxTeammates).toBe(2);
  });

  it("passes on the team's budget (read from config.json); a budget grows by its first size; the steps come first", () => {
    const l = new LeadLimits({ maxTeammates: 4, maxTurns: 1, budgetUsd: 0.5, budgetTokens: 1000 });
    expect(l.budget).toEqual({ usd: 0.5, tokens: 1000 });
    expect([l.growth('budget-usd'), l.growth('budget-tokens')]).toEqual([0.5, 1000]);
    const hit = { kind: 'budget-usd', why: '$0.50 spent of --budget-usd 0.5' } as const;
    expect(l.reached({ hit })).toBe(hit);
    l.step();
    expect(l.reached({ hit })?.kind).toBe('max-turns');
    const budget = { usd: 1, tokens: 2000, spentBefore: { costUsd: 0, tokens: 0 } };
    expect(l.describe({ budget, spent: { costUsd: 0.99, tokens: 1500, unpriced: [] } })).toEqual([
      'model steps: 1 of 1',
      'budget: $1.00 (the team has spent $0.99)',
      'token budget: 2000 (the team has used 1500)',
    ]);
    expect(new LeadLimits({ maxTeammates: 4 }).describe(none)).toEqual([]);
  });
});

describe("the lead's SendMessage {type: shutdown_request}", () => {
  const report = (name: string, outcome: StopReport['outcome']): StopReport => ({
    name,
    outcome,
    verified: outcome !== 'timeout' && outcome !== 'failed' && outcome !== 'rejected',
    ...(outcome === 'timeout' ? { reason: 'no answer within 5 s' } : outcome === 'failed' ? { reason: 'tmux is gone' } : outcome === 'rejected' ? { reason: 'busy' } : {}),
  });
  /** The tool, run as the lead's model would call it, with stops that end as `reports` say. */
  async function shutdown(to: string, reports: StopReport[]): Promise<ToolOutput> {
    const powers: LeadPowers = {
      mayAddTeammate: () => Promise.resolve(),
      spawn: () => Promise.reject(new Error('not in this test')),
      stop: (name) => Promise.resolve(reports.find((r) => r.name === name)!),
      stopAll: () => Promise.resolve(reports),
      kill: () => Promise.reject(new Error('not in this test')),
      send: () => Promise.resolve([]),
    };
    const invocation = await leadSendTool(powers).prepare({ to, message: { type: 'shutdown_request', reason: 'done' } }, {} as ToolContext);
    return invocation.execute(new AbortController().signal);
  }

  it('a shutdown that timed out (or failed) is an error to the lead; one that ended, or was refused, is not', async () => {
    expect(await shutdown('w1', [report('w1', 'timeout')])).toEqual({ content: 'w1 did not answer in time: no answer within 5 s; it may still be running.', isError: true });
    expect(await shutdown('w1', [report('w1', 'failed')])).toEqual({ content: 'stopping w1 failed: tmux is gone.', isError: true });
    for (const outcome of ['approved', 'grace_exit', 'killed', 'already_gone', 'rejected'] as const) {
      expect((await shutdown('w1', [report('w1', outcome)])).isError, outcome).toBeUndefined();
    }
    // "*": one timeout among stops that ended makes the whole result an error, every line kept.
    const all = await shutdown('*', [report('w1', 'approved'), report('w2', 'timeout')]);
    expect(all.isError).toBe(true);
    expect(all.content.split('\n')).toEqual(['w1 approved the shutdown and is gone (verified).', 'w2 did not answer in time: no answer within 5 s; it may still be running.']);
  });
});

describe("the lead's TaskStop (swarm mcp's stop_teammate)", () => {
  const powers = (kill: LeadPowers['kill']): LeadPowers => ({
    mayAddTeammate: () => Promise.resolve(),
    spawn: () => Promise.reject(new Error('not in this test')),
    stop: () => Promise.reject(new Error('not in this test')),
    stopAll: () => Promise.resolve([]),
    kill,
    send: () => Promise.resolve([]),
  });
  const run = async (p: LeadPowers, input: unknown): Promise<ToolOutput> => (await stopTool(p).prepare(input, {} as ToolContext)).execute(new AbortController().signal);

  it('kills at once and says so; a failure is a tool error; the lead itself is refused before anything runs', async () => {
    const killed: string[] = [];
    const ok = await run(powers((name) => (killed.push(name), Promise.resolve({ name, outcome: 'killed', verified: true }))), { name: 'w1' });
    expect(ok).toEqual({ content: 'w1 did not answer in time and was killed; it is gone (verified).' });
    expect(killed).toEqual(['w1']);
    const failed = await run(powers((name) => Promise.resolve({ name, outcome: 'failed', reason: 'tmux is gone', verified: false })), { name: 'w1' });
    expect(failed).toEqual({ content: 'stopping w1 failed: tmux is gone.', isError: true });
    await expect(run(powers(() => Promise.reject(new Error('never called'))), { name: 'Team-Lead' })).rejects.toThrow('that is you; name a teammate');
    await expect(run(powers(() => Promise.reject(new Error('never called'))), {})).rejects.toThrow(/^invalid TaskStop input: name: /);
  });
});
