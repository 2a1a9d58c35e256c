// swarm's MCP server (docs/claude-code-lead.md): the agent lead's tools for a lead that is an MCP
// client — Claude Code, or any other — on the official SDK's low-level Server, so every input is
// checked by the tool's own zod schema and every error is an MCP tool error of one line.
//
// The tools are the built-in lead's, from the same recipe (runtime/lead/toolset.ts): spawn_teammate,
// send_message, stop_teammate and task_* run Agent, SendMessage, TaskStop and the task tools as they
// are; team_status and wait_for_messages (deliveries.ts) are this front end's own.
// Nothing here can answer a permission or plan request: no tool takes one, the lead's SendMessage
// refuses their frames, and wait_for_messages never shows them.
//
// The server holds the team's leader lease as kind `mcp` (team/lead-lease.ts): from a console
// holder it asks for the lease (a console hands over); while another agent lead holds it every
// tool says who leads and how to take over, and the server takes the lease once that holder is gone.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import { openLeadMailbox } from '../../permissions/lead-mailbox.js';
import { openPlanRequests } from '../../permissions/plan-answer.js';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { LeadInboxRule } from '../../runtime/lead/inbox-rule.js';
import { HibernationWaker } from '../hibernation-waker.js';
import { forLead } from '../../runtime/lead/notification.js';
import { readTeamState, nudgeText } from '../../runtime/lead/team-state.js';
import { leadToolset } from '../../runtime/lead/toolset.js';
import type { AnyTool, ToolOutput } from '../../runtime/tools/types.js';
import { describeIssues } from '../../runtime/tools/types.js';
import { Transcript } from '../../runtime/transcript.js';
import { PaneView } from '../../runtime/view.js';
import { describeHolder, LEASE_TICK_MS, LeaseKeeper, leaseSelf } from '../../team/lead-lease.js';
import { setTeamBudget } from '../../team/spend.js';
import { readTeam, setHibernateAfter } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import type { TeammateRuntime } from '../../teammates/command-line.js';
import { collectStatus } from '../../teammates/status-report.js';
import { backendsOnce, type StopContext } from '../../teammates/stop.js';
import { leadPowers } from '../run/lead-powers.js';
import { SWARM_VERSION } from '../version.js';
import { LeadDeliveries } from './deliveries.js';
import { inMcpNames, MCP_SERVER, MCP_VOICE, SHARED_TOOLS, type McpToolName } from './names.js';

export interface McpLeadSettings {
  backend?: string | undefined;
  model?: string | undefined;
  permissionMode?: string | undefined;
  runtime: TeammateRuntime;
  maxTeammates: number;
  budgetUsd?: number | undefined;
  budgetTokens?: number | undefined;
  hibernateAfterMs?: number | undefined;
}

export interface McpLeadOptions {
  team: Team;
  env: NodeJS.ProcessEnv;
  cwd: string;
  settings: McpLeadSettings;
  /** Diagnostics: the server's stderr (stdout is the protocol's). */
  log: (text: string) => void;
  /** How long a wait may block at most, seconds (tests shorten it). */
  maxWaitSeconds?: number;
  /** How long a wait lingers for the rest of a burst, ms (tests lengthen it). */
  settleMs?: number;
}

export interface McpLead {
  /** Resolves when the client has gone (the transport closed) and the server is cleaned up. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/** Longest wait_for_messages, seconds: under Claude Code's and most clients' tool timeouts. */
export const MAX_WAIT_SECONDS = 600;
/** How long a wait lingers, ms, when no teammate works (an idle notice may still be on its way). */
const REST_GRACE_MS = 1500;

const StatusInput = z.object({});
const WaitInput = z.object({
  timeout_seconds: z.number().positive().max(MAX_WAIT_SECONDS).optional().describe(`How long to wait at most (default 120, at most ${MAX_WAIT_SECONDS})`),
});

interface McpTool {
  name: McpToolName;
  description: string;
  schema: z.ZodType;
  call(input: unknown, signal: AbortSignal): Promise<ToolOutput>;
}

/** A one-line tool error (MCP `isError`), in this server's tool names. */
function toolError(e: unknown): CallToolResult {
  const why = e instanceof Error ? e.message : String(e);
  return { content: [{ type: 'text', text: inMcpNames(why.replace(/\s+/g, ' ').trim()) }], isError: true };
}

/** Parse with `schema` or throw the one-line reason. */
function parse<T>(tool: string, schema: z.ZodType<T>, input: unknown): T {
  const r = schema.safeParse(input);
  if (!r.success) throw new SwarmError('invalid_input', `invalid ${tool} input: ${describeIssues(tool, r.error)}`);
  return r.data;
}

/** How long a tool waits for a console holding the lease to hand it over (it does on its next tick). */
const TAKE_OVER_MS = 2 * LEASE_TICK_MS + 1000;

/** Take the lease, asking a console holder for it (granted within a tick); `refused` when an agent lead holds it. */
async function openLease(team: Team): Promise<{ keeper: LeaseKeeper; refused: boolean }> {
  const self = leaseSelf('mcp');
  try {
    const keeper = await LeaseKeeper.open(team, self, { takeOver: true });
    if (!keeper.holding) await keeper.waitHolding(TAKE_OVER_MS);
    return { keeper, refused: false };
  } catch (e) {
    if (!(e instanceof SwarmError) || e.kind !== 'exists') throw e;
    return { keeper: await LeaseKeeper.open(team, self), refused: true };
  }
}

export async function serveLead(o: McpLeadOptions, transport: Transport): Promise<McpLead> {
  const { team, settings } = o;
  await readTeam(team); // not_found before anything starts
  const stop = new AbortController();
  if (settings.budgetUsd !== undefined || settings.budgetTokens !== undefined) await setTeamBudget(team, { usd: settings.budgetUsd, tokens: settings.budgetTokens });
  await setHibernateAfter(team, settings.hibernateAfterMs);

  const view = new PaneView((s) => o.log(s), undefined);
  const transcript = new Transcript(team.paths.log(LEAD_NAME), Date.now, (e) => o.log(`transcript: ${String(e)}\n`));
  const powers = leadPowers({
    team,
    env: o.env,
    backend: settings.backend,
    model: settings.model,
    permissionMode: settings.permissionMode,
    runtime: settings.runtime,
    cwd: o.cwd,
    print: (line) => o.log(`${line}\n`),
    signal: stop.signal,
  });
  const toolset = await leadToolset({ team, cwd: o.cwd, env: o.env, backend: powers, maxTeammates: settings.maxTeammates, view, transcript });
  const stopContext: StopContext = { env: o.env };
  stopContext.backendFor = backendsOnce(stopContext);
  const { mailbox } = await openLeadMailbox({ team });
  const deliveries = new LeadDeliveries({ team, mailbox, rule: new LeadInboxRule({ team, stopContext: () => stopContext }), print: (line) => o.log(`${line}\n`), ...(o.settleMs !== undefined ? { settleMs: o.settleMs } : {}) });

  // The lease is taken once the client has listed the tools (below), not at start: a client gives a
  // server a few seconds to answer, and a console hands the lease over only on its next tick. And
  // `swarm mcp --wait-ready` (ready.ts) reads a held lease as "the client has the team's tools": a
  // lease taken before the list let Claude Code send its first prompt without them. Deliveries run
  // while this process holds it (the one consumer of team-lead's inbox).
  let leasing: Promise<{ keeper: LeaseKeeper; refused: boolean }> | undefined;
  let following: Promise<void> | undefined;
  let waking: Promise<HibernationWaker | undefined> | undefined;
  const follow = (keeper: LeaseKeeper): void => {
    if (following !== undefined || !keeper.holding || stop.signal.aborted) return;
    following = deliveries.run(stop.signal).catch((e: unknown) => {
      if (!stop.signal.aborted) o.log(`error: following team-lead's inbox: ${e instanceof Error ? e.message : String(e)}\n`);
    });
    // The consumer wakes hibernating teammates (docs/hibernation.md).
    waking = HibernationWaker.start({ team, backends: () => stopContext, say: (line) => o.log(`${line}\n`) }).catch((e: unknown) => {
      o.log(`error: watching for hibernating teammates: ${e instanceof Error ? e.message : String(e)}\n`);
      return undefined;
    });
  };
  /** Take the lease for good once the client has the tools; a tool call before that takes it too. */
  const lead = (): void => {
    if (leasing !== undefined || stop.signal.aborted) return;
    leasing = openLease(team);
    void leasing.then(({ keeper }) => follow(keeper)).catch((e: unknown) => o.log(`error: taking the leader lease: ${e instanceof Error ? e.message : String(e)}\n`));
  };
  const requireLease = async (): Promise<void> => {
    const { keeper } = await (leasing ??= openLease(team));
    if (!keeper.holding) await keeper.waitHolding(0).catch(() => false);
    if (keeper.holding) return follow(keeper);
    const s = keeper.state;
    const who = s.role === 'watcher' ? describeHolder(s.holder) : 'another process';
    throw new SwarmError('exists', `team ${team.name} is led by ${who}, which takes team-lead's messages: stop it, then call this tool again`);
  };

  const shared = (name: keyof typeof SHARED_TOOLS): McpTool => {
    const tool = toolset.tools.find((t) => t.name === SHARED_TOOLS[name]) as AnyTool;
    return {
      name,
      description: inMcpNames(tool.description),
      schema: tool.schema,
      call: async (input, signal) => (await tool.prepare(input, toolset.ctx)).execute(signal),
    };
  };

  const waitForMessages = async (input: unknown, signal: AbortSignal): Promise<ToolOutput> => {
    const { timeout_seconds: seconds = 120 } = parse('wait_for_messages', WaitInput, input);
    const ms = Math.min(seconds, o.maxWaitSeconds ?? MAX_WAIT_SECONDS) * 1000;
    {
      const state = await readTeamState(team);
      // Nobody works: nothing will come by itself; say so after a short grace instead of blocking.
      await deliveries.arrival(state.working.length === 0 ? Math.min(ms, REST_GRACE_MS) : ms, signal);
      if (!deliveries.ready) {
        const now = await readTeamState(team);
        if (now.working.length > 0) return { content: `No news in ${seconds} s. Working: ${now.working.join(', ')}. Call wait_for_messages again to go on waiting.` };
        if (now.open.length > 0) return { content: nudgeText(now, MCP_VOICE) };
        return { content: `[swarm] No teammate is working and no task is open${now.teammates.length > 0 ? ` (idle: ${now.teammates.join(', ')})` : ''}: nothing more will arrive until you act.` };
      }
    }
    // A cancelled call's result reaches nobody: what arrived stays for the next wait.
    if (signal.aborted) throw new SwarmError('interrupted', 'wait_for_messages was cancelled; what arrived is kept for the next wait');
    const { entries, notes } = await deliveries.take();
    const worded = await Promise.all(entries.map((m) => forLead(m, team)));
    return { content: [...worded, ...notes].join('\n') };
  };

  const teamStatus = async (input: unknown): Promise<ToolOutput> => {
    parse('team_status', StatusInput, input);
    const { report } = await collectStatus(team, { env: o.env, releaseDead: () => true });
    const plans = (await openPlanRequests(team, await readTeam(team))).length;
    const questions = report.members.reduce((n, m) => n + m.pendingPermissions, 0) + plans;
    const members = report.members
      .filter((m) => !sameName(m.name, LEAD_NAME))
      .map((m) => ({
        name: m.name,
        state: m.state,
        task: m.task === null ? null : `#${m.task.id} ${m.task.subject}`,
        tokens: m.inputTokens === null && m.outputTokens === null ? null : (m.inputTokens ?? 0) + (m.outputTokens ?? 0),
        costUsd: m.costUsd,
        where: m.paneId === null ? null : `${m.backendType ?? '?'} ${m.paneId}`,
      }));
    const summary = { team: team.name, tasks: report.tasks, questionsForThePerson: questions, costUsd: report.total.costUsd, members };
    return { content: JSON.stringify(summary, null, 2) };
  };

  const tools: McpTool[] = [
    shared('spawn_teammate'),
    shared('send_message'),
    shared('stop_teammate'),
    shared('task_create'),
    shared('task_get'),
    shared('task_list'),
    shared('task_update'),
    {
      name: 'team_status',
      description: "The team now: each teammate's state (working, idle, waiting_permission, stopped …), its task, tokens and cost, the task list's progress and how many questions wait for the person.",
      schema: StatusInput,
      call: (input) => teamStatus(input),
    },
    {
      name: 'wait_for_messages',
      description:
        "Wait for the team: returns teammates' messages (<teammate-message teammate_id=..>), their ends of turn, completed tasks and failures (<task-notification> with the result and usage), and tasks claimed or done, as soon as any arrive, each exactly once; " +
        'or, after the timeout, who is still working. Returns at once when nobody works. Permission questions go to the person, never here.',
      schema: WaitInput,
      call: (input, signal) => waitForMessages(input, signal),
    },
  ];
  const byName = new Map(tools.map((t) => [t.name as string, t]));

  const server = new Server(
    { name: MCP_SERVER, version: SWARM_VERSION },
    {
      capabilities: { tools: {} },
      instructions:
        `These tools lead the swarm team "${team.name}": spawn teammates, give them tasks, and call wait_for_messages to hear from them (nothing else wakes you). ` +
        'Teammates ask the person, not you, for permissions (a console in another pane: swarm lead).',
    },
  );
  const listed = tools.map((t) => ({ name: t.name, description: t.description, inputSchema: z.toJSONSchema(t.schema, { io: 'input' }) as { type: 'object' } }));
  server.setRequestHandler(ListToolsRequestSchema, () => {
    setImmediate(lead); // after the answer is on its way
    return { tools: listed };
  });
  server.setRequestHandler(CallToolRequestSchema, async (req, extra): Promise<CallToolResult> => {
    const tool = byName.get(req.params.name);
    if (tool === undefined) return toolError(new Error(`no tool ${req.params.name}: the tools are ${tools.map((t) => t.name).join(', ')}`));
    try {
      await requireLease();
      const out = await tool.call(req.params.arguments ?? {}, AbortSignal.any([extra.signal, stop.signal]));
      return { content: [{ type: 'text', text: out.isError ? inMcpNames(out.content) : out.content }], ...(out.isError ? { isError: true } : {}) };
    } catch (e) {
      return toolError(e);
    }
  });

  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      stop.abort();
      await server.close().catch(() => undefined);
      await following;
      await (await waking)?.close();
      await toolset.ctx.processes.killAll();
      await transcript.flush();
      const lease = await leasing?.catch(() => undefined);
      await lease?.keeper.close();
      resolveClosed();
    })());
  server.onclose = () => void close();
  await server.connect(transport);
  return { closed, close };
}
