// `swarm team create|list|show|delete`: manage team files.
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { isProcessAlive } from '../../storage/pid.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { ensureLeadKey, removeTeam } from '../../permissions/keys.js';
import { createTeam, listTeams, readTeam } from '../../team/team-store.js';
import { renderTable, type Cell } from '../output/table.js';
import { chalk, paint } from '../output/render.js';
import { printJson, println, refuseGlobals, requireTeam, rootDir, type GlobalArgs } from '../context.js';

interface CreateArgs extends GlobalArgs {
  name: string;
  description?: string;
  rename: boolean;
}

const create: CommandModule<GlobalArgs, CreateArgs> = {
  command: 'create <name>',
  describe: 'create a team (teams/<name>/config.json and its directories)',
  builder: (y) =>
    refuseGlobals(y, 'team create', { team: 'the new team is named by the argument: swarm team create <name>' })
      .positional('name', { type: 'string', demandOption: true, describe: 'team name: lowercase letters, digits, -' })
      .option('description', { type: 'string', describe: 'what the team is for' })
      .option('rename', { type: 'boolean', default: false, describe: 'if the name is taken, create the team under a free name instead of failing (--no-rename, the default, is still accepted)' })
      .example('$0 team create review-squad --description "PR review"', 'create a team (exit 1 if the name is taken)')
      .example('$0 team create review-squad --rename', 'a second team: a free name such as brisk-otter-42 if review-squad is taken'),
  handler: async (args) => {
    const { team, config, renamedFrom } = await createTeam(rootDir(), {
      name: args.name,
      ...(args.description ? { description: args.description } : {}),
      rename: args.rename,
    });
    await ensureLeadKey(team);
    if (args.json) return printJson({ ...config, ...(renamedFrom ? { renamedFrom } : {}) });
    if (renamedFrom) println(chalk.yellow(`team "${renamedFrom}" exists; created "${config.name}" instead`));
    else println(`created team ${chalk.bold(config.name)}`);
    println(chalk.dim(`  export SWARM_TEAM=${config.name}`));
  },
};

const list: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'list',
  describe: 'list teams under the root',
  builder: (y) => refuseGlobals(y, 'team list', { team: 'it lists every team under the root' }),
  handler: async (args) => {
    const teams = await listTeams(rootDir());
    if (args.json) return printJson(teams);
    if (teams.length === 0) return println(chalk.dim(`no teams under ${rootDir()}; create one with: swarm team create <name>`));
    const rows = teams.map((t): Cell[] => [
      { text: t.name, style: chalk.bold },
      t.problem ? { text: t.problem, style: chalk.red } : { text: `${t.members} teammate${t.members === 1 ? '' : 's'}` },
      ...(t.description && !t.problem ? [{ text: t.description, style: chalk.dim }] : []),
    ]);
    for (const line of renderTable(rows)) println(line);
  },
};

const show: CommandModule<GlobalArgs, GlobalArgs & { name?: string }> = {
  command: 'show [name]',
  describe: 'show a team and its roster (--json prints config.json)',
  builder: (y) => y.positional('name', { type: 'string', describe: 'team (default: --team / SWARM_TEAM)' }),
  handler: async (args) => {
    const team = await requireTeam({ ...args, ...(args.name ? { team: args.name } : {}) });
    const config = await readTeam(team);
    if (args.json) return printJson({ ...config, leadVerifyKey: (await ensureLeadKey(team)).verifyKey });
    println(`${chalk.bold(config.name)}${config.description ? `  ${config.description}` : ''}`);
    println(chalk.dim(`created ${new Date(config.createdAt).toISOString()}  lead session ${config.leadSessionId}`));
    for (const m of config.members) {
      const role = m.name === LEAD_NAME ? 'leader' : (m.agentType ?? 'teammate');
      const pane = m.tmuxPaneId ? ` ${m.backendType ?? ''} ${m.tmuxPaneId}` : '';
      println(`  ${paint(m.color, m.name.padEnd(16))} ${role.padEnd(12)}${pane}${m.model ? chalk.dim(` ${m.model}`) : ''}`);
    }
  },
};

const del: CommandModule<GlobalArgs, GlobalArgs & { name?: string; force: boolean }> = {
  command: 'delete [name]',
  describe: 'delete a team and all its files',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'team (default: --team / SWARM_TEAM)' })
      .option('force', { type: 'boolean', default: false, describe: 'delete even if teammates look alive' }),
  handler: async (args) => {
    const team = await requireTeam({ ...args, ...(args.name ? { team: args.name } : {}) });
    const config = await readTeam(team);
    // A member on another machine (`host`) may be alive: its pid cannot be checked here.
    const alive = config.members.filter((m) => m.name !== LEAD_NAME && (m.host !== undefined || (m.pid !== undefined && isProcessAlive(m.pid))));
    if (alive.length > 0 && !args.force) {
      throw new SwarmError(
        'invalid_input',
        `team "${team.name}" has live teammates (${alive.map((m) => m.name).join(', ')}); stop them with 'swarm shutdown --all' or pass --force`,
      );
    }
    await removeTeam(team);
    if (args.json) return printJson({ deleted: team.name });
    println(`deleted team ${team.name}`);
  },
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
