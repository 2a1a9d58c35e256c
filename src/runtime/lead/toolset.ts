// The agent lead's tools and the context they run in (docs/protocol.md#agent-lead), one recipe for
// every front end: the built-in lead (lead.ts) and the MCP server a Claude Code lead calls
// (cli/mcp). So each rule the tools keep exists once: the roster limit (--max-teammates) and the
// team's budget before a spawn, the mode ceiling (the spawn path's), messages signed as team-lead,
// shutdowns verified, the task list's claim and ownership rules (tools/tasks.ts).
import { openLeadMailbox } from '../../permissions/lead-mailbox.js';
import { sendMessage } from '../../mailbox/send.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { homeDir } from '../../team/paths.js';
import { readBudgetState } from '../../team/spend.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { TeamTasks } from '../team-tasks.js';
import { AgentConfigPaths } from '../tools/agent-config.js';
import { globTool } from '../tools/glob.js';
import { grepTool } from '../tools/grep.js';
import { PathGuard } from '../tools/paths.js';
import { ProcessGroups } from '../tools/process-groups.js';
import { readTool } from '../tools/read.js';
import { Scratchpad } from '../tools/scratchpad.js';
import { SecretPaths } from '../tools/secrets.js';
import { TASK_TOOLS } from '../tools/tasks.js';
import type { AnyTool, ToolContext } from '../tools/types.js';
import type { Transcript } from '../transcript.js';
import type { PaneView } from '../view.js';
import { agentTool, leadSendTool, stopTool, type LeadPowers } from './tools.js';

/** What spawning and stopping do, as the front end's command line chose (cli/run/lead-powers.ts). */
export type LeadBackend = Pick<LeadPowers, 'spawn' | 'stop' | 'stopAll' | 'kill' | 'resumeStopped'>;

export interface LeadToolsetOptions {
  team: Team;
  cwd: string;
  env: NodeJS.ProcessEnv;
  backend: LeadBackend;
  /** --max-teammates: teammates on the roster at once. */
  maxTeammates: number;
  /** Offer Read/Glob/Grep (`--lead-tools read`; a Claude Code lead has its own). */
  readTools?: boolean;
  /** Where the task list's notices (claims, assignments) are shown and logged. */
  view: PaneView;
  transcript: Transcript;
}

export interface LeadToolset {
  /** Agent, SendMessage, TaskStop, the task tools (and the read tools when asked). */
  tools: AnyTool[];
  ctx: ToolContext;
  powers: LeadPowers;
}

/** The one rule for adding a teammate now: room on the roster and budget left; throws the reason the model can act on. */
export async function mayAddTeammate(team: Team, maxTeammates: number): Promise<void> {
  const config = await readTeam(team);
  const teammates = config.members.filter((m) => !sameName(m.name, LEAD_NAME));
  if (teammates.length >= maxTeammates) {
    throw new Error(
      `the team already has ${teammates.length} teammates (--max-teammates ${maxTeammates}): give one of them the work (SendMessage) or stop one whose work is done (shutdown_request) first`,
    );
  }
  const { hit } = await readBudgetState(team, config);
  if (hit !== undefined) throw new Error(`no new teammates: ${hit.why}`);
}

export async function leadToolset(o: LeadToolsetOptions): Promise<LeadToolset> {
  const { mailbox } = await openLeadMailbox({ team: o.team });
  const powers: LeadPowers = {
    mayAddTeammate: () => mayAddTeammate(o.team, o.maxTeammates),
    spawn: (req) => o.backend.spawn(req),
    stop: (name, reason) => o.backend.stop(name, reason),
    stopAll: (reason) => o.backend.stopAll(reason),
    kill: (name) => o.backend.kill(name),
    send: async (to, text, summary) => (await sendMessage(mailbox, { to, text, ...(summary ? { summary } : {}) })).recipients,
    ...(o.backend.resumeStopped ? { resumeStopped: (recipients: readonly string[]) => o.backend.resumeStopped!(recipients) } : {}),
  };
  const tools: AnyTool[] = [agentTool(powers), leadSendTool(powers), stopTool(powers), ...TASK_TOOLS, ...(o.readTools ? [readTool, globTool, grepTool] : [])];
  const ctx: ToolContext = {
    cwd: o.cwd,
    guard: await PathGuard.create(o.team.root, o.cwd, await Scratchpad.open(o.team)),
    secrets: await SecretPaths.create(o.team.root, homeDir(o.env)),
    agentConfig: await AgentConfigPaths.create(o.team.root, { cwd: o.cwd, home: homeDir(o.env) }),
    teamRules: async () => (await readTeam(o.team)).swarm?.rules ?? { allow: [], deny: [] },
    processes: new ProcessGroups(),
    shellEnv: {},
    messaging: {
      self: LEAD_NAME,
      send: (to, text, summary) => powers.send(to, text, summary),
      answerShutdown: () => Promise.reject(new Error('the lead answers no shutdown requests')),
    },
    plan: { mode: 'default', submit: () => Promise.reject(new Error('the lead has no plan mode')) },
    tasks: new TeamTasks({ team: o.team, name: LEAD_NAME, mailbox, view: o.view, transcript: o.transcript }),
  };
  return { tools, ctx, powers };
}
