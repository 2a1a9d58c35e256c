// The permission gate (docs/protocol.md#teammate-runtime): what a tool call needs before it runs, per permission mode.
//
//   kind (tools)                 default   acceptEdits         bypassPermissions   plan
//   read (Read, Glob, Grep)      run       run                 run                 run
//   read of a protected file     ask       ask                 ask                 ask
//     (tools/secrets.ts: credentials; bypassPermissions is about edits and commands, not secrets)
//   Edit of a protected file     ask       ask                 ask                 refuse
//     (Edit reads the file: whether its old_string is found tells what the file holds)
//   Write/Edit of agent config   ask       ask                 ask                 refuse
//     (tools/agent-config.ts: .claude/agents, .claude/settings*.json, .mcp.json, <root>/agents,
//      <root>/settings*.json: they configure other members; reading them is free)
//   Write/Edit of team memory    run       run                 run                 refuse
//     (tools/memory.ts: a plain <name>.md in the project's team memory directory; anything else
//      there is refused before the gate)
//   message (SendMessage, Task*) run       run                 run                 run
//   plan (ExitPlanMode)          run*      run*                run*                run
//   edit (Write, Edit)           ask       run inside cwd,     run                 refuse
//                                          else ask
//   edit inside the scratchpad   run       run                 run                 refuse
//     (tools/scratchpad.ts: <root>/scratchpad/<team>/, the team's shared notes; its path checks
//      and size limits run in the tools, before the gate and before the write)
//   exec (Bash)                  ask       ask                 run                 refuse
//   agent (a teammate's Agent)   run       run                 run                 run
//     (its subagent's own tool calls pass this gate one by one, in the teammate's mode)
//   (* ExitPlanMode itself refuses outside plan mode.)
// "ask" goes through permissions/worker.requestPermission, which applies the team's allow/deny
// rules first and otherwise asks team-lead and waits for a signed answer. Calls that "run" without
// asking still obey the team's deny rules (checked here), except the message tools (SendMessage,
// TaskCreate/TaskGet/TaskList/TaskUpdate: team coordination) and ExitPlanMode.
// Bash is not inspected: in bypassPermissions a command runs unasked whatever it writes (agent
// configuration included); in the other modes every command asks (or is refused) anyway.
import type { PermissionMode } from '../protocol/config.js';
import { evaluateWithReason } from '../permissions/rules.js';
import type { RuleSet } from '../permissions/rules.js';
import { isInside } from './tools/paths.js';
import type { ToolKind } from './tools/types.js';

export type GateDecision = { action: 'run' } | { action: 'ask' } | { action: 'refuse'; reason: string };

export const PLAN_MODE_REFUSAL =
  'You are in plan mode: only read-only tools (Read, Glob, Grep, SendMessage) may run until the team lead approves your plan. ' +
  'Investigate, then call ExitPlanMode with your plan.';

/** Where an edit writes: its real path, the real cwd, and the scratchpad's real path when the member has one. */
export interface GateTarget {
  path: string;
  cwd: string;
  scratchpad?: string | undefined;
  /** The write saves a team memory (runtime/tools/memory.ts decided). */
  memory?: boolean;
}

/**
 * The table above, as a pure function. `target` is an edit's (its real path, the real cwd, the
 * team's scratchpad, whether it saves a team memory); `protectedBy` the pattern that makes the call
 * ask in every mode: a protected read (or an Edit of one), or a write of agent configuration (the
 * tool decides which calls carry one).
 */
export function gate(kind: ToolKind, mode: PermissionMode, target?: GateTarget, protectedBy?: string): GateDecision {
  if (kind === 'read') return protectedBy === undefined ? { action: 'run' } : { action: 'ask' };
  if (kind === 'message' || kind === 'plan' || kind === 'agent') return { action: 'run' };
  if (mode === 'plan') return { action: 'refuse', reason: PLAN_MODE_REFUSAL };
  if (protectedBy !== undefined) return { action: 'ask' };
  if (kind === 'edit' && target?.memory === true) return { action: 'run' };
  if (mode === 'bypassPermissions') return { action: 'run' };
  if (kind === 'edit' && target?.scratchpad !== undefined && isInside(target.scratchpad, target.path)) return { action: 'run' };
  if (mode === 'acceptEdits' && kind === 'edit' && target && isInside(target.cwd, target.path)) return { action: 'run' };
  return { action: 'ask' };
}

/** A team deny rule that blocks a call the gate would run without asking, if any. */
export function deniedByRule(rules: RuleSet, toolName: string, kind: ToolKind, input: unknown, cwd: string): string | undefined {
  if (kind === 'message' || kind === 'plan') return undefined;
  const denyOnly: RuleSet = { allow: [], deny: rules.deny };
  try {
    const e = evaluateWithReason(denyOnly, { toolName, input, cwd });
    return e.decision === 'deny' ? e.rule : undefined;
  } catch {
    return undefined; // a malformed rule is reported by the leader's tools, not enforced here
  }
}
