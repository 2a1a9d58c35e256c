// What `swarm team create|list|show|delete` do (the command line is commands/team.ts): manage team files.
import { SwarmError } from '../../protocol/errors.js';
import { isProcessAlive } from '../../storage/pid.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { ensureLeadKey, removeTeam } from '../../permissions/keys.js';
import { createTeam, listTeams, readTeam } from '../../team/team-store.js';
import { renderTable, type Cell } from '../output/table.js';
import { chalk, paint } from '../output/render.js';
import { printJson, println, requireTeam, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';

export interface TeamCreateArgs extends GlobalArgs {
  name: string;
  description?: string;
  rename: boolean;
}

export type TeamNameArgs = GlobalArgs & { name?: string };

export async function teamCreate(args: TeamCreateArgs): Promise<void> {
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
}

export async function teamList(args: GlobalArgs): Promise<void> {
  const teams = await listTeams(rootDir());
  if (args.json) return printJson(teams);
  if (teams.length === 0) return println(chalk.dim(`no teams under ${rootDir()}; create one with: swarm team create <name>`));
  const rows = teams.map((t): Cell[] => [
    { text: t.name, style: chalk.bold },
    t.problem ? { text: t.problem, style: chalk.red } : { text: `${t.members} teammate${t.members === 1 ? '' : 's'}` },
    ...(t.description && !t.problem ? [{ text: t.description, style: chalk.dim }] : []),
  ]);
  for (const line of renderTable(rows)) println(line);
}

export async function teamShow(args: TeamNameArgs): Promise<void> {
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
}

export async function teamDelete(args: TeamNameArgs & { force: boolean }): Promise<void> {
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
}
