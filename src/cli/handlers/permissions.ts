// What `swarm permissions [list] | rules | allow/deny/remove <rule> | clear <id>` and `swarm approve
// <id> [--always] [--feedback]`, `swarm deny <id> [--feedback]` do (docs/protocol.md#permission-requests,
// docs/protocol.md#cli; the command lines are commands/permissions.ts).
import { SwarmError } from '../../protocol/errors.js';
import { addRule, clearOrphaned, decide, removeRule, type DecideResult } from '../../permissions/leader.js';
import { listPending } from '../../permissions/pending-list.js';
import { checkRule, formatRule, parseRule, type RuleSet } from '../../permissions/rules.js';
import { isProcessAlive } from '../../storage/pid.js';
import { findMember, readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { oneLine } from '../../protocol/text.js';
import { chalk, describeToolInput, paint } from '../output/render.js';
import { renderPending } from '../output/permission.js';
import { cliIo } from '../io.js';

export interface RuleArgs extends GlobalArgs {
  rule: string;
}

export interface IdArgs extends GlobalArgs {
  id: string;
}

export interface ApproveArgs extends IdArgs {
  always: boolean;
  feedback?: string;
}

export type DenyArgs = IdArgs & { feedback?: string };

function warn(message: string): void {
  cliIo().stderr.write(`${chalk.yellow('swarm:')} ${message}\n`);
}

export async function permissionsList(args: GlobalArgs): Promise<void> {
  const team = await requireTeam(args);
  const pending = await listPending(team, { onProblem: warn });
  if (args.json) return printJson(pending);
  if (pending.length === 0) return println(chalk.dim('no pending permission requests'));
  for (const p of pending) println(renderPending(p));
  if (pending.some((p) => p.orphaned)) println(chalk.dim("orphaned: the worker is gone (a stopped worker waits for no answer; once resumed it asks again if it still needs to); remove with 'swarm permissions clear <id>'"));
}

async function readRules(team: Team): Promise<{ allow: string[]; deny: string[] }> {
  const rules = (await readTeam(team)).swarm?.rules;
  return { allow: [...(rules?.allow ?? [])], deny: [...(rules?.deny ?? [])] };
}

function printRules(rules: RuleSet): void {
  if (rules.allow.length === 0 && rules.deny.length === 0) {
    return println(chalk.dim("no rules; add one with 'swarm permissions allow \"Bash(npm test:*)\"'"));
  }
  for (const r of rules.deny) println(`${chalk.red('deny ')}  ${r}`);
  for (const r of rules.allow) println(`${chalk.green('allow')}  ${r}`);
}

export async function permissionsRules(args: GlobalArgs): Promise<void> {
  const current = await readRules(await requireTeam(args));
  if (args.json) return printJson(current);
  printRules(current);
}

/** `swarm permissions allow <rule>` and `deny <rule>`. */
export async function permissionsAddRule(list: 'allow' | 'deny', args: RuleArgs): Promise<void> {
  const team = await requireTeam(args);
  const rule = checkRule(String(args.rule));
  const added = await addRule(team, list, rule);
  if (args.json) return printJson(await readRules(team));
  println(added ? `added ${list} rule ${chalk.bold(rule)}` : chalk.dim(`${list} rule ${rule} is already there`));
}

export async function permissionsRemove(args: RuleArgs): Promise<void> {
  const team = await requireTeam(args);
  const raw = String(args.rule);
  let removedFrom = await removeRule(team, raw);
  if (removedFrom.length === 0) {
    let normalised: string | undefined;
    try {
      normalised = formatRule(parseRule(raw));
    } catch {
      normalised = undefined; // a hand-written rule that no longer parses can only be removed verbatim
    }
    if (normalised !== undefined && normalised !== raw) removedFrom = await removeRule(team, normalised);
  }
  if (removedFrom.length === 0) throw new SwarmError('not_found', `no rule ${JSON.stringify(raw)}; see 'swarm permissions rules'`);
  if (args.json) return printJson(await readRules(team));
  println(`removed ${raw} from ${removedFrom.join(' and ')}`);
}

export async function permissionsClear(args: IdArgs & { force: boolean }): Promise<void> {
  const record = await clearOrphaned(await requireTeam(args), String(args.id), { force: args.force });
  if (args.json) return printJson({ id: record.id, cleared: true });
  println(`cleared ${record.id} (${record.workerName} ${record.toolName})`);
}

/** True when `name` is a member recorded on another machine (the ssh backend's `host`). */
async function onAnotherMachine(team: Team, name: string): Promise<boolean> {
  const config = await readTeam(team).catch(() => undefined);
  return config !== undefined && findMember(config, name)?.host !== undefined;
}

function describeDecision(r: DecideResult): string {
  const what = oneLine(describeToolInput(r.request.toolName, r.request.input), 100);
  return `${paint(r.request.workerColor, r.request.workerName)} ${r.request.toolName}${what ? `: ${what}` : ''}`;
}

/** Print what was decided; `remote`: the worker runs on another machine, whose pids mean nothing here. */
function printDecision(args: GlobalArgs, r: DecideResult, remote: boolean): void {
  if (args.json) {
    return printJson({ id: r.id, status: r.status, worker: r.request.workerName, toolName: r.request.toolName, frameSent: r.frameSent, ...(r.rule ? { rule: r.rule } : {}) });
  }
  println(`${r.status === 'approved' ? chalk.green('approved') : chalk.red('denied')} ${r.id}  ${describeDecision(r)}`);
  if (r.rule) println(`added allow rule ${chalk.bold(r.rule)}`);
  if (!r.frameSent) warn(`${r.request.workerName} is no longer a member; no response frame was sent`);
  else if (!remote && r.request.workerPid !== undefined && !isProcessAlive(r.request.workerPid)) {
    warn(`${r.request.workerName}'s process ${r.request.workerPid} is not running, so nobody acts on this until it is respawned`);
  }
}

export async function approve(args: ApproveArgs): Promise<void> {
  const r = await decide(await requireTeam(args), String(args.id), 'allow', {
    always: args.always,
    ...(args.feedback ? { feedback: args.feedback } : {}),
  });
  printDecision(args, r, await onAnotherMachine(await requireTeam(args), r.request.workerName));
}

export async function deny(args: DenyArgs): Promise<void> {
  const r = await decide(await requireTeam(args), String(args.id), 'deny', args.feedback ? { feedback: args.feedback } : {});
  printDecision(args, r, await onAnotherMachine(await requireTeam(args), r.request.workerName));
}
