// The agent lead's own tools (docs/protocol.md#agent-lead), beside the task tools every member has (tools/tasks.ts):
//   Agent {name, prompt, description?, subagent_type?, model?, isolation?, runtime?, mode?} spawns a teammate
//     through the normal spawn path (readiness included) and returns its agentId; a refusal (the
//     team's --max-teammates, a budget, a bad name, a pane that never came up, a `mode` above the
//     person's: the powers refuse it, protocol/mode-ceiling.ts) is an is_error result.
//   SendMessage {to, message, summary?}: plain text to a teammate or "*", signed like every leader
//     entry; {type: "shutdown_request", reason?} stops a teammate (or "*": all of them), verified,
//     and the result says what really happened (approved / rejected with the reason / killed). A
//     recipient that is stopped (crashed: docs/protocol.md#transcripts-and-resume) is resumed by the powers, and the result says so.
//   TaskStop {name} stops a runaway teammate at once, without asking it (verified gone; a worktree
//     with changes kept): swarm mcp's stop_teammate.
// All are kind `message`: no permission is asked. What they do is injected (LeadPowers): the
// command line chose the backend, the inherited flags and the stop context.
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { TEAMMATE_RUNTIMES, type TeammateRuntime } from '../../teammates/command-line.js';
import { describeWorktreeFate, type WorktreeFate } from '../../teammates/worktree.js';
import { structuredOrText } from '../tools/send-message.js';
import { defineTool, type AnyTool } from '../tools/types.js';

export interface AgentRequest {
  name: string;
  prompt: string;
  agentType?: string;
  model?: string;
  mode?: string;
  /** `worktree`: its own git worktree and branch (docs/protocol.md#agent-types-and-worktrees). */
  isolation?: 'worktree';
  /** What runs it: swarm's agent loop or a real Claude Code (default: the run's --runtime). */
  runtime?: TeammateRuntime;
}

export interface SpawnReport {
  agentId: string;
  name: string;
  /** Where it runs, e.g. "tmux pane %3". */
  where: string;
  /** Something the lead should know, e.g. its agent type's mode was lowered to the person's. */
  note?: string;
}

/** How a teammate's stop ended (teammates/stop.ts's StopOutcome, as the lead needs it). */
export interface StopReport {
  name: string;
  outcome: 'approved' | 'grace_exit' | 'rejected' | 'killed' | 'timeout' | 'already_gone' | 'failed';
  reason?: string;
  verified: boolean;
  worktree?: WorktreeFate;
}

export interface LeadPowers {
  /** Throws (a one-line reason the model can act on) when no teammate may be added now. */
  mayAddTeammate(): Promise<void>;
  /**
   * Spawn through the normal path. `req.mode` is the model's: above the mode the person chose for
   * the run (the ceiling) it throws, naming the ceiling (every front end gets that check here).
   */
  spawn(req: AgentRequest): Promise<SpawnReport>;
  /** Ask one teammate to shut down and wait for the verified outcome. */
  stop(name: string, reason: string | undefined): Promise<StopReport>;
  /** The same for every teammate at once. */
  stopAll(reason: string | undefined): Promise<StopReport[]>;
  /** Stop one teammate now, without asking it: process and pane ended, verified. */
  kill(name: string): Promise<StopReport>;
  /** A plain message from team-lead (signed); the recipients. */
  send(to: string, text: string, summary: string | undefined): Promise<string[]>;
  /** Resume the stopped ones among a message's recipients; one line each for the tool result (none stopped: []). */
  resumeStopped?(recipients: readonly string[]): Promise<string[]>;
}

const AgentInput = z.object({
  name: z.string().min(1).describe('The teammate\'s name (letters, digits, _ and -), e.g. "researcher" or "tests"'),
  prompt: z.string().min(1).describe('Its complete instructions: it knows nothing else about the goal'),
  description: z.string().optional().describe('A 3-5 word description of its job'),
  subagent_type: z.string().optional().describe('One of the agent types listed in your instructions, e.g. "verification" for the teammate that checks the result'),
  model: z.string().optional().describe('A model id for this teammate (default: the team\'s)'),
  isolation: z.literal('worktree').optional().describe('Run it in its own git worktree and branch (swarm/<team>/<name>), so its edits do not collide with others\'; kept for review if it changed anything'),
  runtime: z
    .enum(TEAMMATE_RUNTIMES)
    .optional()
    .describe('What runs it: "swarm" (swarm\'s agent loop, needs model credentials) or "claude" (a real Claude Code); default: the team\'s'),
  mode: z
    .enum(['default', 'acceptEdits', 'bypassPermissions', 'plan'])
    .optional()
    .describe('Its permission mode (default: the team\'s); never above the mode the person chose for the run (plan < default < acceptEdits < bypassPermissions)'),
});

export function agentTool(powers: LeadPowers): AnyTool {
  return defineTool({
    name: 'Agent',
    kind: 'message',
    description:
      'Start a new teammate: a separate agent in its own pane with the coding tools (Read, Write, Edit, Bash, Glob, Grep), ' +
      'the team\'s task list and SendMessage. It starts working on `prompt` at once and claims open tasks when it is done. ' +
      'Its messages and idle notifications reach you as <teammate-message>. Returns its agentId.',
    schema: AgentInput,
    prepare: async (input) => {
      if (sameName(input.name, LEAD_NAME)) throw new SwarmError('invalid_input', `"${LEAD_NAME}" is you; pick another name`);
      await powers.mayAddTeammate();
      return {
        summary: `${input.name}${input.description ? `: ${input.description}` : ''}`,
        execute: async () => {
          const r = await powers.spawn({
            name: input.name,
            prompt: input.prompt,
            ...(input.subagent_type ? { agentType: input.subagent_type } : {}),
            ...(input.model ? { model: input.model } : {}),
            ...(input.mode ? { mode: input.mode } : {}),
            ...(input.isolation ? { isolation: input.isolation } : {}),
            ...(input.runtime ? { runtime: input.runtime } : {}),
          });
          const note = r.note === undefined ? '' : `\nNote: ${r.note}.`;
          return { content: `Spawned ${r.name} (agentId ${r.agentId}) in ${r.where}: it has its prompt and is working. Its messages reach you as they arrive.${note}` };
        },
      };
    },
  });
}

const ShutdownRequestInput = z.object({
  type: z.literal('shutdown_request'),
  reason: z.string().optional().describe('Why; the teammate sees it'),
});

const LeadSendInput = z.object({
  to: z.string().min(1).describe('A teammate name, or "*" for every teammate'),
  message: z.union([z.string().min(1), ShutdownRequestInput]).describe('Plain text, or {"type":"shutdown_request","reason":"..."} to stop the teammate'),
  summary: z.string().optional().describe('A 5-10 word preview shown to the recipient'),
});

type LeadMessage = z.infer<typeof LeadSendInput>['message'];

/** A JSON string that is a shutdown request becomes one; any other protocol frame as text is refused. */
function normalise(message: LeadMessage): LeadMessage {
  if (typeof message !== 'string') return message;
  return structuredOrText(
    message,
    ShutdownRequestInput,
    'message looks like a protocol control frame; send plain text, or {"type":"shutdown_request"} to stop a teammate (permission and plan answers are the person\'s)',
  );
}

/** What a stop really did, in a sentence the model can act on (and what became of its worktree). */
export function describeStop(r: StopReport): string {
  if (r.worktree === undefined) return describeStopped(r);
  const fate = describeWorktreeFate(r.worktree);
  return `${describeStopped(r)} ${fate.charAt(0).toUpperCase()}${fate.slice(1)}.`;
}

function describeStopped(r: StopReport): string {
  switch (r.outcome) {
    case 'approved':
      return `${r.name} approved the shutdown and is gone (verified).`;
    case 'grace_exit':
      return `${r.name} did not answer; it exited when its grace period ended (verified gone).`;
    case 'rejected':
      return `${r.name} rejected the shutdown: ${r.reason ?? '(no reason)'}. It is still working.`;
    case 'killed':
      return `${r.name} did not answer in time and was killed${r.reason ? ` (${r.reason})` : ''}; it is gone (verified).`;
    case 'timeout':
      return `${r.name} did not answer in time${r.reason ? `: ${r.reason}` : ''}; it may still be running.`;
    case 'already_gone':
      return `${r.name} was already gone.`;
    case 'failed':
      return `stopping ${r.name} failed: ${r.reason ?? 'unknown error'}.`;
  }
}

export function leadSendTool(powers: LeadPowers): AnyTool {
  return defineTool({
    name: 'SendMessage',
    kind: 'message',
    description:
      'Send a message to a teammate or to every teammate ("*"). Teammates see only what you send them. ' +
      'To stop a teammate whose work is done send {"type":"shutdown_request","reason":"..."}: the result says whether it approved, rejected (and why) or was killed.',
    schema: LeadSendInput,
    prepare: async (input) => {
      const message = normalise(input.message);
      if (sameName(input.to, LEAD_NAME)) throw new SwarmError('invalid_input', 'that is you; send to a teammate or "*"');
      if (typeof message === 'string') {
        return {
          summary: `to ${input.to}: ${message}`,
          execute: async () => {
            const recipients = await powers.send(input.to, message, input.summary);
            const resumed = (await powers.resumeStopped?.(recipients)) ?? [];
            return { content: [`Message sent to ${recipients.join(', ')}`, ...resumed].join('\n') };
          },
        };
      }
      return {
        summary: `shutdown_request to ${input.to}${message.reason ? `: ${message.reason}` : ''}`,
        execute: async () => {
          const reports = input.to === '*' ? await powers.stopAll(message.reason) : [await powers.stop(input.to, message.reason)];
          if (reports.length === 0) return { content: 'No teammate to stop.' };
          const failed = reports.some((r) => r.outcome === 'failed' || r.outcome === 'timeout');
          return { content: reports.map(describeStop).join('\n'), ...(failed ? { isError: true } : {}) };
        },
      };
    },
  });
}

const StopInput = z.object({
  name: z.string().min(1).describe('The teammate to stop now'),
});

export function stopTool(powers: LeadPowers): AnyTool {
  return defineTool({
    name: 'TaskStop',
    kind: 'message',
    description:
      'Stop a teammate now, without asking it: for a runaway worker. Its process and pane are ended and verified gone (a worktree with changes is kept). ' +
      'To let a teammate finish and agree, SendMessage {"type":"shutdown_request"} instead.',
    schema: StopInput,
    prepare: async (input) => {
      if (sameName(input.name, LEAD_NAME)) throw new SwarmError('invalid_input', 'that is you; name a teammate');
      return {
        summary: `stop ${input.name} now`,
        execute: async () => {
          const r = await powers.kill(input.name);
          return { content: describeStop(r), ...(r.outcome === 'failed' ? { isError: true } : {}) };
        },
      };
    },
  });
}
