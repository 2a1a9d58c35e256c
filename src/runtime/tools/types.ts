// The shape of a teammate tool, in two phases (gemini-cli's habit): `prepare` validates the parsed
// input against the world (paths resolve and are allowed, the file exists, the edit is unique) and
// returns an Invocation; `execute` runs it. The permission gate sits between the two. Any throw in
// either phase becomes an `is_error` tool_result with the error's message.
import type * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import type { PermissionMode } from '../../protocol/config.js';
import type { ToolName } from '../../protocol/tool-names.js';
import type { RuleSet } from '../../permissions/rules.js';
import type { Task } from '../../protocol/task.js';
import type { TaskList } from '../../tasks/index.js';
import type { PathGuard } from './paths.js';
import type { ProcessGroups } from './process-groups.js';
import type { AgentConfigPaths } from './agent-config.js';
import type { MemoryPaths } from './memory.js';
import type { SecretPaths } from './secrets.js';

/** How the permission gate treats a tool (permission-gate.ts). */
export type ToolKind = 'read' | 'message' | 'plan' | 'edit' | 'exec' | 'agent';

export interface ToolOutput {
  content: string;
  isError?: boolean;
}

export interface Invocation {
  /** One line for the pane and the permission request (`npm test`, `src/a.ts`). */
  summary: string;
  /** For edits: the real target, which acceptEdits allows inside the cwd (and every mode but plan inside the scratchpad). */
  targetPath?: string;
  /** For reads (and Edits) of a protected file (secrets.ts): the pattern it matched; team-lead is asked in every mode. */
  secret?: string;
  /** For writes (Write, Edit) of agent configuration (agent-config.ts): the pattern it matched; asked in every mode. */
  configures?: string;
  /** For writes (Write, Edit) of a team memory file (memory.ts): run without a question in every mode but plan. */
  savesMemory?: boolean;
  execute(signal: AbortSignal): Promise<ToolOutput>;
}

/** Team messaging as SendMessage needs it. */
export interface Messaging {
  readonly self: string;
  /** Plain message to a member, `team-lead` or `*`; returns the recipients. */
  send(to: string, text: string, summary?: string): Promise<string[]>;
  /** Answer a signed shutdown request; throws if `requestId` is not one. */
  answerShutdown(requestId: string, approve: boolean, reason?: string): Promise<string>;
}

/** Plan mode as ExitPlanMode needs it. */
export interface PlanControl {
  readonly mode: PermissionMode;
  /** Send the plan to team-lead and wait for a signed answer; the text for the model. */
  submit(plan: string, signal: AbortSignal): Promise<ToolOutput>;
}

/** Claude Code's task hooks (runtime/hooks.ts): each resolves with the feedback of a hook that blocks, else undefined; never throws. */
export interface TaskHooks {
  taskCreated(task: Task): Promise<string | undefined>;
  taskCompleted(task: Task): Promise<string | undefined>;
}

/** The team's task list as the Task tools need it (runtime/team-tasks.ts). */
export interface TaskWork {
  /** The member acting: the `by` of every change, the owner a claim sets. */
  readonly self: string;
  readonly list: TaskList;
  /** This teammate just set task `id` to completed (reported in the turn's idle_notification). */
  completed(id: string): void;
  /** The roster's spelling of member `name`; throws (naming the members) when there is none. */
  member(name: string): Promise<string>;
  /** The settings' TaskCreated / TaskCompleted hooks (a swarm-runtime teammate's); absent: none run. */
  readonly hooks?: TaskHooks;
}

/** A teammate's subagent call as the Agent tool passes it on (tools/agent.ts; runtime/subagent.ts runs it). */
export interface SubagentRequest {
  description: string;
  prompt: string;
  /** Default general-purpose; not with `fork`. */
  subagentType?: string;
  /** sonnet | opus | haiku | a model id; default the type's, else the teammate's; not with `fork`. */
  model?: string;
  fork: boolean;
}

/** Subagents as the Agent tool needs them. */
export interface Subagents {
  /** Check the request (its type exists, …) and return the invocation that runs it. */
  prepare(request: SubagentRequest): Promise<Invocation>;
}

export interface ToolContext {
  /** Absolute, real path. */
  cwd: string;
  guard: PathGuard;
  /** Paths whose reads ask team-lead. */
  secrets: SecretPaths;
  /** Paths whose writes ask team-lead (they configure other members). */
  agentConfig: AgentConfigPaths;
  /** The project's team memory directory, whose plain `<name>.md` files are written without a question (none: no such exemption). */
  memory?: MemoryPaths;
  /** The team's allow/deny rules as they are now (Grep includes a protected file a rule allows). */
  teamRules: () => Promise<RuleSet>;
  processes: ProcessGroups;
  /** Environment for Bash (credentials removed). */
  shellEnv: NodeJS.ProcessEnv;
  messaging: Messaging;
  plan: PlanControl;
  tasks: TaskWork;
  /** Where Agent runs a subagent; absent (a subagent's own context, a test's), Agent refuses. */
  subagents?: Subagents;
}

export interface ToolDefinition<I = unknown> {
  name: ToolName;
  kind: ToolKind;
  description: string;
  schema: z.ZodType<I>;
  prepare(input: I, ctx: ToolContext): Promise<Invocation>;
}

/** A tool with its input type erased: `prepare` parses the raw model input with the schema first. */
export interface AnyTool {
  name: ToolName;
  kind: ToolKind;
  description: string;
  schema: z.ZodType;
  prepare(input: unknown, ctx: ToolContext): Promise<Invocation>;
}

/** "<tool>: <field>: <problem>" for the first zod issue. */
export function describeIssues(tool: string, error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length > 0 ? `${i.path.join('.')}: ` : ''}${i.message}`)
    .join('; ');
}

export function defineTool<I>(def: ToolDefinition<I>): AnyTool {
  return {
    name: def.name,
    kind: def.kind,
    description: def.description,
    schema: def.schema,
    prepare: async (input, ctx) => {
      const parsed = def.schema.safeParse(input);
      if (!parsed.success) {
        throw new SwarmError('invalid_input', `invalid ${def.name} input: ${describeIssues(def.name, parsed.error)}`);
      }
      return def.prepare(parsed.data, ctx);
    },
  };
}
