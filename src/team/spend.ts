// The team's spend and budget on disk (docs/protocol.md#spend-and-budget), declared once for every member process: the agent
// lead's limits and each swarm-runtime teammate's budget gate read the same sum and the same budget,
// and judge them by the same rule (protocol/budget.ts).
//
//   spend  = the cost and tokens in each roster member's status/<name>.json (the lead's too), plus
//            spent.json: the last figures of every member process whose status file was removed
//            (retireStatus: a teammate shut down, killed, respawned or resumed), so what it spent
//            still counts. One entry per process, keyed `<agentId>@<startedAt>`; a process found in
//            both (read between the two steps of its retirement) counts once, at its higher figure.
//   budget = config.json's `swarm.budget`, written under the config lock: setTeamBudget when a run
//            starts, raiseTeamBudget when the person goes on at the limit.
//
// spent.json is changed under its lock (storage/json-file); status files are read without one
// (each is written whole by its own process). A read takes config.json, then the status files,
// then spent.json: a retirement writes spent.json before it removes the status file, and removes
// the status file before the member leaves the roster, so no process is ever missed.
import { promises as fs } from 'node:fs';
import { budgetReached, spentSince, SpentLedgerSchema, type BudgetHit, type BudgetKind, type Spend, type SpentLedger, type TeamBudget } from '../protocol/budget.js';
import type { TeamConfig } from '../protocol/config.js';
import { StatusFileSchema, type StatusFile } from '../protocol/status.js';
import { mutateJsonFile, readJsonFile } from '../storage/json-file.js';
import { readTeam, updateTeam } from './team-store.js';
import type { Team } from './team.js';

const LEDGER = { schema: SpentLedgerSchema, init: (): SpentLedger => ({ left: {} }) };

/** Member `name`'s status/<name>.json, or undefined when it has none (or it cannot be read). */
export async function statusOf(team: Team, name: string): Promise<StatusFile | undefined> {
  return readJsonFile(team.paths.status(name), { schema: StatusFileSchema }).catch(() => undefined);
}

function keyOf(name: string, s: StatusFile): string {
  return `${s.agentId ?? name}@${s.startedAt ?? 0}`;
}

/** One member process's figures: its name, tokens, cost (none: unpriced). */
type Figures = SpentLedger['left'][string];

function higher(a: Figures | undefined, b: Figures): Figures {
  if (a === undefined) return b;
  const costUsd = a.costUsd === undefined || b.costUsd === undefined ? undefined : Math.max(a.costUsd, b.costUsd);
  return { name: b.name, tokens: Math.max(a.tokens, b.tokens), ...(costUsd === undefined ? {} : { costUsd }) };
}

/** Everything the team has spent, its members' and those that left (`config`: config.json as just read). */
export async function readTeamSpend(team: Team, config: TeamConfig): Promise<Spend> {
  const seen = new Map<string, Figures>();
  for (const m of config.members) {
    const s = await statusOf(team, m.name);
    if (s !== undefined) seen.set(keyOf(m.name, s), { name: m.name, tokens: s.totalTokens, costUsd: s.costUsd });
  }
  const ledger = await readJsonFile(team.paths.spent, { schema: SpentLedgerSchema }).catch(() => undefined);
  for (const [key, f] of Object.entries(ledger?.left ?? {})) seen.set(key, higher(seen.get(key), f));
  let costUsd = 0;
  let tokens = 0;
  const unpriced = new Set<string>();
  for (const f of seen.values()) {
    tokens += f.tokens;
    if (f.costUsd === undefined) unpriced.add(f.name);
    else costUsd += f.costUsd;
  }
  return { costUsd, tokens, unpriced: [...unpriced] };
}

/** The budget in force, what the team spent since it was set, and whether that reaches it. */
export interface BudgetState {
  budget: TeamBudget | undefined;
  spent: Spend;
  hit: BudgetHit | undefined;
}

/** The team's budget as it is now (config.json read once; `config`: as the caller just read it). */
export async function readBudgetState(team: Team, config?: TeamConfig): Promise<BudgetState> {
  config ??= await readTeam(team);
  const budget = config.swarm?.budget;
  const spent = spentSince(budget, await readTeamSpend(team, config));
  return { budget, spent, hit: budgetReached(budget, spent) };
}

/**
 * Remove member `name`'s status file, first adding its figures to spent.json so they still count.
 * Every removal of a status file goes through here (a departure, a respawn, a resume).
 */
export async function retireStatus(team: Team, name: string): Promise<void> {
  const s = await statusOf(team, name);
  if (s !== undefined && (s.totalTokens > 0 || (s.costUsd ?? 0) > 0)) {
    const figures: Figures = { name: s.name, tokens: s.totalTokens, ...(s.costUsd === undefined ? {} : { costUsd: s.costUsd }) };
    await mutateJsonFile(team.paths.spent, LEDGER, (ledger) => {
      const key = keyOf(name, s);
      ledger.left[key] = higher(ledger.left[key], figures);
      return { write: ledger, result: undefined };
    });
  }
  await fs.rm(team.paths.status(name), { force: true });
}

/** The limits a run was given (`--budget-usd`, `--budget-tokens`); neither: no budget. */
export interface BudgetLimits {
  usd?: number | undefined;
  tokens?: number | undefined;
}

/** Record the run's budget in config.json, counted from what the team has spent so far; no limits: none binds. */
export async function setTeamBudget(team: Team, limits: BudgetLimits): Promise<void> {
  const none = limits.usd === undefined && limits.tokens === undefined;
  const total = none ? undefined : await readTeamSpend(team, await readTeam(team));
  await updateTeam(team, (config) => {
    if (total === undefined) {
      if (config.swarm !== undefined) delete config.swarm.budget;
      return;
    }
    const budget: TeamBudget = {
      ...(limits.usd === undefined ? {} : { usd: limits.usd }),
      ...(limits.tokens === undefined ? {} : { tokens: limits.tokens }),
      spentBefore: { costUsd: total.costUsd, tokens: total.tokens },
    };
    config.swarm = { ...config.swarm, budget };
  });
}

/** Raise the budget `kind` by `by` (the person went on at the limit); waiting teammates see it and go on. */
export async function raiseTeamBudget(team: Team, kind: BudgetKind, by: number): Promise<void> {
  await updateTeam(team, (config) => {
    const budget = config.swarm?.budget;
    if (budget === undefined) return;
    if (kind === 'budget-usd' && budget.usd !== undefined) budget.usd = Math.round((budget.usd + by) * 1e6) / 1e6;
    if (kind === 'budget-tokens' && budget.tokens !== undefined) budget.tokens += by;
  });
}
