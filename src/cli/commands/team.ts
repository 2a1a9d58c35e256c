// `swarm team create|list|show|delete`: manage team files. The command line only; what each does is
// cli/handlers/team.ts, loaded when it runs (the team files and their schemas would cost every
// other command start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { TeamCreateArgs, TeamNameArgs } from '../handlers/team.js';

const handlers = () => import('../handlers/team.js');

const create: CommandModule<GlobalArgs, TeamCreateArgs> = {
  command: 'create <name>',
  describe: 'create a team (teams/<name>/config.json and its directories)',
  builder: (y) =>
    refuseGlobals(y, 'team create', { team: 'the new team is named by the argument: swarm team create <name>' })
      .positional('name', { type: 'string', demandOption: true, describe: 'team name: lowercase letters, digits, -' })
      .option('description', { type: 'string', describe: 'what the team is for' })
      .option('rename', { type: 'boolean', default: false, describe: 'if the name is taken, create the team under a free name instead of failing (--no-rename, the default, is still accepted)' })
      .example('$0 team create review-squad --description "PR review"', 'create a team (exit 1 if the name is taken)')
      .example('$0 team create review-squad --rename', 'a second team: a free name such as brisk-otter-42 if review-squad is taken'),
  handler: async (args) => (await handlers()).teamCreate(args),
};

const list: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'list',
  describe: 'list teams under the root',
  builder: (y) => refuseGlobals(y, 'team list', { team: 'it lists every team under the root' }),
  handler: async (args) => (await handlers()).teamList(args),
};

const show: CommandModule<GlobalArgs, TeamNameArgs> = {
  command: 'show [name]',
  describe: 'show a team and its roster (--json prints config.json)',
  builder: (y) => y.positional('name', { type: 'string', describe: 'team (default: --team / SWARM_TEAM)' }),
  handler: async (args) => (await handlers()).teamShow(args),
};

const del: CommandModule<GlobalArgs, TeamNameArgs & { force: boolean }> = {
  command: 'delete [name]',
  describe: 'delete a team and all its files',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'team (default: --team / SWARM_TEAM)' })
      .option('force', { type: 'boolean', default: false, describe: 'delete even if teammates look alive' }),
  handler: async (args) => (await handlers()).teamDelete(args),
};

export const teamCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'team',
  describe: 'manage teams: create, list, show, delete',
  builder: (y) =>
    y
      .command(create)
      .command(list)
      .command(show)
      .command(del)
      .example('$0 team create review-squad --description "PR review"', 'create a team')
      .example('$0 team list --json', 'every team under the root')
      .example('$0 team show review-squad --json | jq .members', 'the roster as config.json has it')
      .example('$0 team delete review-squad', 'remove the team and its files')
      .demandCommand(1, 'say which: create, list, show or delete'),
  handler: () => undefined,
};
