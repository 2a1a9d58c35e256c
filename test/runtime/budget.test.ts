// The team's budget binding a teammate (runtime/budget-gate.ts), end to end: a real teammate process
// against the stand-in Messages API, with the budget in config.json as a run records it. A step
// whose usage takes the team to its budget is the last one: no further model request (counted at
// the stand-in), state `waiting_budget`, team-lead told once per wait. Raising the budget in
// config.json (what the console's "go on" does) lets it take the next step; a signed
// shutdown_request while it waits ends it at once (not after its grace period), approved by the runtime.
import { describe, expect, it } from 'vitest';
import { encodeControl } from '../../src/protocol/control.js';
import { raiseTeamBudget, setTeamBudget } from '../../src/team/spend.js';
import { Team } from '../../src/team/team.js';
import { controls, readStatus, setupRuntime, TEAM, waitFor, waitForControl } from '../support/runtime-harness.js';

/** A Glob call whose step costs $1.20 on claude-sonnet-4-5 ($3 per million input tokens). */
const costlyGlob = { content: [{ type: 'tool_use' as const, name: 'Glob', input: { pattern: '*' } }], usage: { input_tokens: 400_000, output_tokens: 0 } };

describe("the team's budget in a teammate", () => {
  it('stops taking model steps at the budget, goes on when it is raised, and a shutdown request ends the wait', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'List the files' }, reply: costlyGlob },
        { match: { agent: 'w1', toolResult: 'Glob' }, reply: costlyGlob },
        { match: { agent: 'w1', toolResult: 'Glob' }, reply: 'Listed them.' },
      ],
    });
    const team = new Team(env.root, TEAM);
    await setTeamBudget(team, { usd: 1 });
    await env.lead.append('w1', { from: 'team-lead', text: 'List the files' });
    const requests = () => env.server.requests.filter((r) => r.agent === 'w1').length;
    const waiting = async () => (await env.plain.read('team-lead')).filter((m) => m.from === 'w1' && m.summary === 'waiting at the budget');
    // No compaction of the large prompts; a grace period the test would notice.
    const t = env.start(['--model', 'claude-sonnet-4-5'], { SWARM_COMPACT_AT: '100000000', SWARM_SHUTDOWN_GRACE_MS: '600000' });

    // $1.20 of --budget-usd 1 after the first step: held before the second, and team-lead is told.
    await waitFor(async () => (await readStatus(env))?.state === 'waiting_budget', 10_000, 'w1 waiting at the budget');
    expect((await readStatus(env))?.costUsd).toBe(1.2);
    expect(requests()).toBe(1);
    const told = await waitFor(async () => ((await waiting()).length === 1 ? await waiting() : undefined), 5000, "w1's message to team-lead");
    expect(told[0]!.text).toBe("[swarm] w1 is waiting: the team's budget is reached ($1.20 spent of --budget-usd 1). It takes no model step until the budget is raised, or it is shut down.");

    // The person goes on: the budget grows in config.json, w1 takes its next step ($2.40 of 2) and is held again.
    await raiseTeamBudget(team, 'budget-usd', 1);
    await waitFor(async () => requests() === 2 && (await readStatus(env))?.costUsd === 2.4 && (await readStatus(env))?.state === 'waiting_budget', 10_000, 'the second step, then held again');
    expect(await waitFor(async () => ((await waiting()).length === 2 ? await waiting() : undefined), 5000, 'the second message')).toHaveLength(2);
    expect(t.output()).toContain("the team's budget was raised (--budget-usd 2); going on");

    // A signed shutdown request while held: exit 0 at once with shutdown_approved, no model step taken.
    await env.lead.append('w1', { from: 'team-lead', text: encodeControl({ type: 'shutdown_request', requestId: 'shutdown-1@w1', from: 'team-lead', reason: 'over budget', timestamp: new Date().toISOString() }) });
    expect(await t.exited).toEqual({ code: 0, signal: null });
    const [approved] = await waitForControl(env, 'team-lead', 'shutdown_approved');
    expect(approved!.message).toMatchObject({ requestId: 'shutdown-1@w1', from: 'w1', note: "waiting at the team's budget, so the model could not be asked; exited without a model step" });
    expect(approved!.message.graceExpired).toBeUndefined();
    expect(requests()).toBe(2);
    expect((await controls(env, 'team-lead', 'idle_notification')).filter((c) => c.message.idleReason === 'failed')).toEqual([]);
  }, 40_000);
});
