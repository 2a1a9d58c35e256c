// Plan mode (docs/protocol.md#teammate-runtime): the permission mode, and ExitPlanMode's round trip to the leader.
// submit(): a `plan_approval_request {from, timestamp, planFilePath, planContent, requestId}` goes to
// team-lead; then the teammate waits (inbox watch, no polling loop of its own) for a
// `plan_approval_response` with that requestId, from team-lead, with a valid lead_sig, not acted on
// before — consuming only that entry (other messages stay for delivery between rounds). Approved:
// the mode becomes the response's permissionMode, else the mode the teammate started with (default
// when that was plan). An answer that arrives after the wait was interrupted is applied on delivery
// (applyLate).
import { encodeControl, parseControl, type PlanApprovalResponse } from '../protocol/control.js';
import { isPermissionMode, type PermissionMode } from '../protocol/config.js';
import { newPlanApprovalId } from '../protocol/ids.js';
import { messageKey, type InboxMessage } from '../protocol/message.js';
import { LEAD_NAME } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { leadProblem, type LeadTrust } from './incoming.js';
import type { InboxMonitor } from './inbox-monitor.js';
import type { PlanControl, ToolOutput } from './tools/types.js';

export class ModeState {
  constructor(
    private current: PermissionMode,
    private readonly afterPlan: PermissionMode,
    private readonly onChange: (mode: PermissionMode) => void = () => undefined,
  ) {}

  get mode(): PermissionMode {
    return this.current;
  }

  set(mode: PermissionMode): void {
    if (mode === this.current) return;
    this.current = mode;
    this.onChange(mode);
  }

  /** Leave plan mode for the response's mode if it names a valid non-plan mode, else the configured one. */
  approvePlan(requested?: string): PermissionMode {
    this.set(isPermissionMode(requested) && requested !== 'plan' ? requested : this.afterPlan);
    return this.current;
  }
}

export interface PlanApprovalDeps {
  mailbox: Mailbox;
  name: string;
  team: string;
  color?: string;
  /** What counts as the leader's (shared with inbox delivery, acted-on set included). */
  trust: LeadTrust;
  monitor: InboxMonitor;
  modes: ModeState;
  onWait?: (requestId: string) => void;
  onAnswer?: (response: PlanApprovalResponse) => void;
  now?: () => number;
}

export class PlanApproval implements PlanControl {
  private readonly outstanding = new Set<string>();

  constructor(private readonly deps: PlanApprovalDeps) {}

  get mode(): PermissionMode {
    return this.deps.modes.mode;
  }

  async submit(plan: string, signal: AbortSignal): Promise<ToolOutput> {
    const d = this.deps;
    const now = (d.now ?? Date.now)();
    const requestId = newPlanApprovalId(d.name, d.team, now);
    await d.mailbox.append(LEAD_NAME, {
      from: d.name,
      text: encodeControl({
        type: 'plan_approval_request',
        from: d.name,
        timestamp: new Date(now).toISOString(),
        planFilePath: '',
        planContent: plan,
        requestId,
      }),
      summary: 'plan for approval',
      ...(d.color ? { color: d.color } : {}),
    });
    this.outstanding.add(requestId);
    d.onWait?.(requestId);
    const response = await this.waitFor(requestId, signal);
    return this.apply(response);
  }

  /** A verified response that arrived between rounds: applied if it answers one of our requests. */
  applyLate(response: PlanApprovalResponse): ToolOutput | undefined {
    if (!this.outstanding.has(response.requestId)) return undefined;
    return this.apply(response);
  }

  private apply(response: PlanApprovalResponse): ToolOutput {
    this.outstanding.delete(response.requestId);
    this.deps.onAnswer?.(response);
    const feedback = response.feedback ? `\nFeedback from team-lead: ${response.feedback}` : '';
    if (!response.approved) {
      return {
        content: `team-lead rejected your plan.${feedback || ' (no feedback given)'}\nRevise the plan and call ExitPlanMode again; you are still in plan mode.`,
        isError: true,
      };
    }
    const mode = this.deps.modes.approvePlan(response.permissionMode);
    return { content: `team-lead approved your plan. You are out of plan mode (permission mode: ${mode}); go ahead.${feedback}` };
  }

  private findAnswer(entries: readonly InboxMessage[], requestId: string): { entry: InboxMessage; response: PlanApprovalResponse } | undefined {
    for (const entry of entries) {
      if (entry.read) continue;
      const parsed = parseControl(entry.text);
      if (parsed.kind !== 'control' || parsed.message.type !== 'plan_approval_response') continue;
      if (parsed.message.requestId !== requestId) continue;
      if (leadProblem(entry, this.deps.trust, parsed.message)) continue; // shown as unverified on delivery
      return { entry, response: parsed.message };
    }
    return undefined;
  }

  private async waitFor(requestId: string, signal: AbortSignal): Promise<PlanApprovalResponse> {
    const d = this.deps;
    for (;;) {
      const found = this.findAnswer(await d.mailbox.read(d.name), requestId);
      if (found) {
        const key = messageKey(found.entry);
        const taken = await d.mailbox.consume(d.name, (m) => messageKey(m) === key);
        if (taken.length > 0) {
          if (found.entry.msg_id) d.trust.acted.add(found.entry.msg_id);
          return found.response;
        }
      }
      await d.monitor.changed(signal);
    }
  }
}
