// The agent lead's system prompt (docs/protocol.md#agent-lead): a coordinator that does not code itself but follows
// the lead's method (method.ts: four phases and the rules that make them work), with the team's limits, the
// agent types it can spawn (built-ins and the project's/user's .claude/agents files), the team's
// scratchpad, the project's team memory as it was when the lead started (memory-prompt.ts), and the
// member list as they are at the start of each turn.
import type { TeamConfig } from '../../protocol/config.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { oneLine } from '../../protocol/text.js';
import type { TeamMemory } from '../../team/memory.js';
import { memorySection } from '../../team/memory-prompt.js';
import { leadMethod } from './method.js';

export interface LeadPromptInput {
  team: string;
  cwd: string;
  /** The team's scratchpad (team/paths.ts), where teammates leave findings. */
  scratchpad: string;
  config: TeamConfig;
  maxTeammates: number;
  /** Lines naming the budgets in force, e.g. "budget: $2.00 (spent $0.31)". */
  limits: readonly string[];
  readTools: boolean;
  /** The agent types a teammate can be given (Agent's subagent_type): name and description. */
  agentTypes: readonly { name: string; description: string }[];
  /** How the lead calls its tools and waits: swarm's loop (default) or a Claude Code lead's MCP tools. */
  voice?: LeadVoice;
  /** The project's team memory as read when the lead started (none: no section). */
  memory?: TeamMemory;
}

/** What differs between the built-in lead and a lead that calls swarm's MCP server: tool names, how to wait, how it ends. */
export interface LeadVoice {
  spawn: string;
  send: string;
  taskCreate: string;
  taskUpdate: string;
  /** The tools the lead may read with, named. */
  readWith: string;
  wait: string;
  end: string;
}

/** The built-in lead (lead.ts): its turn ends to wait, and the run ends with a turn at rest. */
export const BUILT_IN_VOICE: LeadVoice = {
  spawn: 'Agent',
  send: 'SendMessage',
  taskCreate: 'TaskCreate',
  taskUpdate: 'TaskUpdate',
  readWith: 'Read, Glob and Grep',
  wait: 'After you call tools, end your turn (reply without a tool call) to wait for teammates: you are woken when a message arrives.',
  end: 'The run ends when you end a turn with no teammate working and no task open: that reply is the final answer for the person, so make it a complete summary of the outcome.',
};

export function buildLeadPrompt(i: LeadPromptInput): string {
  const v = i.voice ?? BUILT_IN_VOICE;
  const teammates = i.config.members.filter((m) => !sameName(m.name, LEAD_NAME));
  const roster = teammates.length === 0 ? '(none yet)' : teammates.map((m) => `${m.name}${m.agentType ? ` (${m.agentType})` : ''}`).join(', ');
  return [
    `You are ${LEAD_NAME}, the coordinator of the agent team "${i.team}", working in ${i.cwd}.`,
    'You turn the goal you are given into tasks and teammates, keep them moving, and have the result verified. You do not write code or run commands yourself' +
      (i.readTools ? ` (you may read files with ${v.readWith} to plan well).` : ': your teammates do that.'),
    '',
    ...leadMethod(v),
    '',
    '## The scratchpad',
    `- ${i.scratchpad} is the team's scratchpad: every teammate reads and writes files there without asking anyone. Have teammates leave long findings and results there (one file per topic) and send you a short message naming the file, and point the next teammate to those files instead of copying their content into its prompt` +
      (i.readTools ? ` (you can read them with ${v.readWith}).` : '.') +
      ' The whole team reads it: no secrets there.',
    '',
    'Limits:',
    `- at most ${i.maxTeammates} teammates at a time`,
    ...i.limits.map((l) => `- ${l}`),
    '',
    `Agent types for ${v.spawn}'s subagent_type (default general-purpose, every tool):`,
    ...i.agentTypes.map((t) => `- ${t.name}: ${oneLine(t.description, 160)}`),
    '',
    ...(i.memory ? [...memorySection(i.memory, 'lead'), ''] : []),
    `Teammates now: ${roster}`,
  ].join('\n');
}
