// The team's spend and budget on disk (team/spend.ts): every member's status file plus what members
// that left had spent (spent.json, written when their status file is retired), each member process
// counted once; the budget in config.json, counted from the team's spend when it was set, raised
// by its first size.
import { existsSync, promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SpentLedgerSchema } from '../../src/protocol/budget.js';
import { addMember, createTeam, readTeam, removeMember } from '../../src/team/team-store.js';
import { raiseTeamBudget, readBudgetState, readTeamSpend, retireStatus, setTeamBudget } from '../../src/team/spend.js';
import type { Team } from '../../src/team/team.js';
import { writeStatus } from '../support/team-fixture.js';
import { useTempRoot } from '../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-spend-');

const spendOf = async (team: Team) => readTeamSpend(team, await readTeam(team));

describe('readTeamSpend and retireStatus', () => {
  it("sums every member's status file and what retired ones spent, each member process once", async () => {
    const { team } = await createTeam(root, { name: 't' });
    await addMember(team, { name: 'w1' });
    await addMember(team, { name: 'w2', model: 'some-unknown-model' });
    expect(await spendOf(team)).toEqual({ costUsd: 0, tokens: 0, unpriced: [] });
    await writeStatus(root, 't', 'team-lead', { pid: process.pid, agentId: 'team-lead@t', startedAt: 1, totalTokens: 100, costUsd: 0.25 });
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 1, totalTokens: 1000, costUsd: 1 });
    await writeStatus(root, 't', 'w2', { pid: process.pid, agentId: 'w2@t', startedAt: 1, totalTokens: 50 });
    expect(await spendOf(team)).toEqual({ costUsd: 1.25, tokens: 1150, unpriced: ['w2'] });

    // w1 leaves: its figures go to spent.json before its status file goes; they still count.
    await retireStatus(team, 'w1');
    expect(existsSync(team.paths.status('w1'))).toBe(false);
    expect(SpentLedgerSchema.parse(JSON.parse(await fs.readFile(team.paths.spent, 'utf8'))).left).toEqual({ 'w1@t@1': { name: 'w1', tokens: 1000, costUsd: 1 } });
    expect(await spendOf(team)).toEqual({ costUsd: 1.25, tokens: 1150, unpriced: ['w2'] });
    await removeMember(team, 'w1');
    expect(await spendOf(team)).toEqual({ costUsd: 1.25, tokens: 1150, unpriced: ['w2'] });

    // A process in both spent.json and a status file (read between the two steps) counts once, at its higher figure.
    await writeStatus(root, 't', 'team-lead', { pid: process.pid, agentId: 'team-lead@t', startedAt: 1, totalTokens: 200, costUsd: 0.5 });
    await retireStatus(team, 'team-lead');
    await writeStatus(root, 't', 'team-lead', { pid: process.pid, agentId: 'team-lead@t', startedAt: 1, totalTokens: 200, costUsd: 0.5 });
    expect(await spendOf(team)).toEqual({ costUsd: 1.5, tokens: 1250, unpriced: ['w2'] });

    // A new w1 (a new process: another startedAt) adds its own spend; a resumed or respawned one too.
    await addMember(team, { name: 'w1' });
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 2, totalTokens: 5, costUsd: 0.5 });
    expect(await spendOf(team)).toEqual({ costUsd: 2, tokens: 1255, unpriced: ['w2'] });
    await retireStatus(team, 'w1');
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 3, totalTokens: 1, costUsd: 0.25 });
    expect(await spendOf(team)).toEqual({ costUsd: 2.25, tokens: 1256, unpriced: ['w2'] });

    // Retiring a member with no status file (or one that spent nothing) writes nothing.
    await retireStatus(team, 'nobody');
    expect(Object.keys(SpentLedgerSchema.parse(JSON.parse(await fs.readFile(team.paths.spent, 'utf8'))).left)).toHaveLength(3);
  });
});

describe('the budget in config.json', () => {
  it("is counted from the team's spend when it was set, raised by the person, and removed by a run without one", async () => {
    const { team } = await createTeam(root, { name: 't' });
    await addMember(team, { name: 'w1' });
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 1, totalTokens: 3000, costUsd: 3 });
    expect(await readBudgetState(team)).toEqual({ budget: undefined, spent: { costUsd: 3, tokens: 3000, unpriced: [] }, hit: undefined });

    await setTeamBudget(team, { usd: 1 });
    expect((await readTeam(team)).swarm?.budget).toEqual({ usd: 1, spentBefore: { costUsd: 3, tokens: 3000 } });
    expect((await readBudgetState(team)).hit).toBeUndefined(); // an earlier run's spend is not this run's
    await writeStatus(root, 't', 'w1', { pid: process.pid, agentId: 'w1@t', startedAt: 1, totalTokens: 3500, costUsd: 4.2 });
    const state = await readBudgetState(team);
    expect(state.spent.costUsd).toBeCloseTo(1.2);
    expect(state.hit).toEqual({ kind: 'budget-usd', why: '$1.20 spent of --budget-usd 1' });

    await raiseTeamBudget(team, 'budget-usd', 1);
    expect((await readTeam(team)).swarm?.budget).toEqual({ usd: 2, spentBefore: { costUsd: 3, tokens: 3000 } });
    expect((await readBudgetState(team)).hit).toBeUndefined();
    await raiseTeamBudget(team, 'budget-tokens', 100); // no token budget: nothing to raise
    expect((await readTeam(team)).swarm?.budget).toEqual({ usd: 2, spentBefore: { costUsd: 3, tokens: 3000 } });

    await setTeamBudget(team, { tokens: 400 });
    expect((await readTeam(team)).swarm?.budget).toEqual({ tokens: 400, spentBefore: { costUsd: 4.2, tokens: 3500 } });
    await setTeamBudget(team, {});
    expect((await readTeam(team)).swarm?.budget).toBeUndefined();
  });
});
