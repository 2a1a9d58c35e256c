// `swarm permissions [list] | rules | allow/deny/remove <rule> | clear <id>` and
// `swarm approve <id> [--always] [--feedback]`, `swarm deny <id> [--feedback]` (docs/protocol.md#permission-requests, docs/protocol.md#cli).
// The command lines only; what each does is cli/handlers/permissions.ts, loaded when it runs (the
// permission files, rules and team files would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { ApproveArgs, DenyArgs, IdArgs, RuleArgs } from '../handlers/permissions.js';

const handlers = () => import('../handlers/permissions.js');

const list: CommandModule<GlobalArgs, GlobalArgs> = {
  command: ['list', '$0'],
  describe: 'pending requests, oldest first (worker, tool, input, age, orphaned)',
  handler: async (args) => (await handlers()).permissionsList(args),
};

const rules: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'rules',
  describe: "the team's allow/deny rules (deny wins)",
  handler: async (args) => (await handlers()).permissionsRules(args),
};

function ruleEdit(list: 'allow' | 'deny'): CommandModule<GlobalArgs, RuleArgs> {
  return {
    command: `${list} <rule>`,
    describe: `add ${list === 'allow' ? 'an' : 'a'} ${list} rule: Tool, Bash(cmd), Bash(prefix:*), Edit(glob), Read(glob)`,
    builder: (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'the rule (quote it in the shell)' }),
    handler: async (args) => (await handlers()).permissionsAddRule(list, args),
  };
}

const remove: CommandModule<GlobalArgs, RuleArgs> = {
  command: 'remove <rule>',
  describe: 'remove a rule from the allow and deny lists',
  builder: (y) => y.positional('rule', { type: 'string', demandOption: true, describe: 'the rule as listed by `swarm permissions rules`' }),
  handler: async (args) => (await handlers()).permissionsRemove(args),
};

const clear: CommandModule<GlobalArgs, IdArgs & { force: boolean }> = {
  command: 'clear <id>',
  describe: 'remove an orphaned request (its worker is gone)',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'request id from `swarm permissions`' })
      .option('force', { type: 'boolean', default: false, describe: 'clear even if the worker looks alive' }),
  handler: async (args) => (await handlers()).permissionsClear(args),
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
  handler: async (args) => (await handlers()).approve(args),
};

export const denyCommand: CommandModule<GlobalArgs, DenyArgs> = {
  command: 'deny <id>',
  describe: 'deny a pending permission request',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'request id from `swarm permissions`' })
      .option('feedback', { type: 'string', describe: 'why, or what to do instead (the worker sees it)' })
      .example('$0 deny perm-1733140000000-a1b2c3d4e5f6 --feedback "use npm run test:unit"', 'deny with a hint'),
  handler: async (args) => (await handlers()).deny(args),
};
