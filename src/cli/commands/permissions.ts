// `swarm permissions [list] | rules | allow/deny/remove <rule> | clear <id>` and
// `swarm approve <id> [--always] [--feedback]`, `swarm deny <id> [--feedback]` (docs/protocol.md#permission-requests, docs/protocol.md#cli).
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { addRule, clearOrphaned, decide, removeRule, type DecideResult } from '../../permissions/leader.js';
import { listPending } from '../../permissions/pending-list.js';
import { checkRule, formatRule, parseRule, type RuleSet } from '../../permissions/rules.js';
import { isProcessAlive } from '../../storage/pid.js';
import { findMember, readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { printJson, println, requireTeam, type GlobalArgs } from '../context.js';
import { oneLine } from '../../protocol/text.js';
import { chalk, describeToolInput, paint } from '../output/render.js';
import { renderPending } from '../output/permission.js';
import { cliIo } from '../io.js';

function warn(message: string): void {
  cliIo().stderr.write(`${chalk.yellow('swarm:')} ${message}\n`);
}

const list: CommandModule<GlobalArgs, GlobalArgs> = {
  command: ['list', '$0'],
  describe: 'pending requests, oldest first (worker, tool, input, age, orphaned)',
  handler: async (args) => {
    const team = await requireTeam(args);
    const pending = await listPending(team, { onProblem: warn });
    if (args.json) return printJson(pending);
    if (pending.length === 0) return println(chalk.dim('no pending permission requests'));
    for (const p of pending) println(renderPending(p));
    if (pending.some((p) => p.orphaned)) println(chalk.dim("orphaned: the worker is gone (a stopped worker waits for no answer; once resumed it asks again if it still needs to); remove with 'swarm permissions clear <id>'"));
  },
};

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

const rules: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'rules',
  describe: "the team's allow/deny rules (deny wins)",
  handler: async (args) => {
    const current = await readRules(await requireTeam(args));
    if (args.json) return printJson(current);
    printRules(current);
  },
};

interface RuleArgs extends GlobalArgs {
  rule: string;
}

function ruleEdit(list: 'allow' | 'deny'): CommandModule<GlobalArgs, RuleArgs> {
  return {
    command: `${list} <rule>`,
    describe: `add ${list === 'allow' ? 'an' : 'a'} ${list} rule: Tool, Bash(cmd), Bash(prefix:*), Edit(glob), Read(glob)`,
    builder: (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'the rule (quote it in the shell)' }),
    handler: async (args) => {
      const team = await requireTeam(args);
      const rule = checkRule(String(args.rule));
      const added = await addRule(team, list, rule);
      if (args.json) return printJson(await readRules(team));
      println(added ? `added ${list} rule ${chalk.bold(rule)}` : chalk.dim(`${list} rule ${rule} is already there`));
    },
  };
}

const remove: CommandModule<GlobalArgs, RuleArgs> = {
  command: 'remove <rule>',
  describe: 'remove a rule from the allow and deny lists',
  builder: (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'the rule as listed by `swarm permissions rules`' }),
  handler: async (args) => {
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
  },
};

interface IdArgs extends GlobalArgs {
  id: string;
}

const clear: CommandModule<GlobalArgs, IdArgs & { force: boolean }> = {
  command: 'clear <id>',
  describe: 'remove an orphaned request (its worker is gone)',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'request id from `swarm permissions`' })
      .option('force', { type: 'boolean', default: false, describe: 'clear even if the worker looks alive' }),
  handler: async (args) => {
    const record = await clearOrphaned(await requireTeam(args), String(args.id), { force: args.force });
    if (args.json) return printJson({ id: record.id, cleared: true });
    println(`cleared ${record.id} (${record.workerName} ${record.toolName})`);
  },
};

export const permissionsCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'permissions',
  describe: 'pending permission requests and the team rules',
  builder: (y) =>
    y
      .command(list)
      .command(rules)
      .command(ruleEdit('allow'))
      .command(ruleEdit('deny'))
      .command(remove)
      .command(clear)
      .example('$0 permissions', 'what is waiting, oldest first')
      .example('$0 permissions --json | jq -r ".[] | [.id, .workerName, .toolName, .ageMs] | @tsv"', 'as data')
      .example('$0 permissions rules', 'allow/deny rules')
      .example('$0 permissions allow "Bash(npm test:*)"', 'approve `npm test ...` without asking')
      .example('$0 permissions deny "Bash(rm:*)"', 'refuse rm without asking (deny beats allow)')
      .example('$0 permissions remove "Bash(npm test:*)"', 'drop a rule')
      .example('$0 permissions clear perm-1733140000000-a1b2c3d4e5f6', 'remove a request whose worker died'),
  handler: () => undefined,
};

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

interface ApproveArgs extends IdArgs {
  always: boolean;
  feedback?: string;
}

export const approveCommand: CommandModule<GlobalArgs, ApproveArgs> = {
  command: 'approve <id>',
  describe: 'allow a pending permission request',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'request id from `swarm permissions`' })
      .option('always', { type: 'boolean', default: false, describe: 'also add the matching allow rule (e.g. Bash(npm test:*))' })
      .option('feedback', { type: 'string', describe: 'a note passed to the worker' })
      .example('$0 approve perm-1733140000000-a1b2c3d4e5f6', 'allow once')
      .example('$0 approve perm-1733140000000-a1b2c3d4e5f6 --always', 'allow, and the same kind of request from now on'),
  handler: async (args) => {
    const r = await decide(await requireTeam(args), String(args.id), 'allow', {
      always: args.always,
      ...(args.feedback ? { feedback: args.feedback } : {}),
    });
    printDecision(args, r, await onAnotherMachine(await requireTeam(args), r.request.workerName));
  },
};

export const denyCommand: CommandModule<GlobalArgs, IdArgs & { feedback?: string }> = {
  command: 'deny <id>',
  describe: 'deny a pending permission request',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'request id from `swarm permissions`' })
      .option('feedback', { type: 'string', describe: 'why, or what to do instead (the worker sees it)' })
      .example('$0 deny perm-1733140000000-a1b2c3d4e5f6 --feedback "use npm run test:unit"', 'deny with a hint'),
  handler: async (args) => {
    const r = await decide(await requireTeam(args), String(args.id), 'deny', args.feedback ? { feedback: args.feedback } : {});
    printDecision(args, r, await onAnotherMachine(await requireTeam(args), r.request.workerName));
  },
};
