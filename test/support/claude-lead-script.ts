// The stand-in script of a Claude Code lead on swarm's MCP server (issue 33): the lead makes a task,
// spawns a swarm-runtime teammate, waits until the teammate's result arrives, shuts it down and
// answers; the teammate runs a Bash command (asked of the person), reports, and finishes the task
// it claims. Side requests of Claude Code (titles, summaries) get a short answer.
import { lastToolResultNames, lastUserText, type IncomingRequest } from '../../src/standin/request.js';
import type { ScriptInput } from '../../src/standin/messages-server.js';

export const LEAD_GOAL = 'Have out.txt written by a teammate.';
export const WORKER_PROMPT = 'Write out.txt saying checked, then tell team-lead.';
export const LEAD_ANSWER = 'Done: the worker wrote out.txt and was shut down.';

/** A request of the lead's conversation: it offers swarm's MCP tools (side requests offer none). */
export const leadRequest = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'mcp__swarm__spawn_teammate');
/** The lead's request after a call of swarm's tool `tool`. */
export const afterMcp = (tool: string) => (r: IncomingRequest): boolean => leadRequest(r) && lastToolResultNames(r.body).includes(`mcp__swarm__${tool}`);

export function claudeLeadScript(): ScriptInput {
  const lead = leadRequest;
  const after = afterMcp;
  return {
    shutdown: 'approve',
    turns: [
      { match: (r) => lead(r) && lastToolResultNames(r.body).length === 0 && lastUserText(r.body).includes(LEAD_GOAL), reply: { content: [{ type: 'tool_use', name: 'mcp__swarm__task_create', input: { subject: 'Write out.txt', description: 'echo checked > out.txt' } }] } },
      { match: after('task_create'), reply: { content: [{ type: 'tool_use', name: 'mcp__swarm__spawn_teammate', input: { name: 'worker', prompt: WORKER_PROMPT, runtime: 'swarm' } }] } },
      { match: (r) => after('wait_for_messages')(r) && lastUserText(r.body).includes('out.txt written'), reply: { content: [{ type: 'tool_use', name: 'mcp__swarm__send_message', input: { to: 'worker', message: { type: 'shutdown_request', reason: 'done' } } }] } },
      { match: after('send_message'), reply: LEAD_ANSWER },
      // After the spawn, and after a wait that did not bring the result yet: wait (again).
      ...Array.from({ length: 12 }, () => ({ match: (r: IncomingRequest) => after('spawn_teammate')(r) || after('wait_for_messages')(r), reply: { content: [{ type: 'tool_use' as const, name: 'mcp__swarm__wait_for_messages', input: { timeout_seconds: 30 } }] } })),
      // The teammate (swarm's runtime names itself in a header).
      { match: { agent: 'worker', lastUser: WORKER_PROMPT }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo checked > out.txt' } }] } },
      { match: { agent: 'worker', toolResult: 'Bash' }, reply: { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: 'out.txt written' } }] } },
      { match: { agent: 'worker', toolResult: 'SendMessage' }, reply: 'Done.' },
      // Idle, it claims the open task (the lead made it for this work): done already.
      { match: { agent: 'worker', lastUser: 'You claimed task #1' }, reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }] } },
      { match: { agent: 'worker', toolResult: 'TaskUpdate' }, reply: 'Task #1 was done already.' },
      // Side requests of Claude Code (titles, summaries): a short answer, as often as asked.
      ...Array.from({ length: 40 }, () => ({ match: (r: IncomingRequest) => !lead(r) && r.agent === '', reply: 'ok' })),
    ],
  };
}
