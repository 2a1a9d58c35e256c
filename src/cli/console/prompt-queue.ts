// The leader console's questions, pure: permission requests (kept in step with `listPending`),
// plan approval requests (from team-lead's inbox) and the agent lead's limits (go on or stop,
// docs/protocol.md#agent-lead), shown one at a time, oldest first. The question
// on screen stays current until it is answered or disappears (decided elsewhere, e.g. by
// `swarm approve` in another terminal), so an older request arriving late never swaps the question
// under the user's finger.
import type { PendingView } from '../../permissions/pending-list.js';
import type { PlanApprovalRequest } from '../../protocol/control.js';
import type { LimitHit } from '../../runtime/lead/limits.js';

export type Question =
  | { kind: 'permission'; id: string; at: number; request: PendingView }
  | { kind: 'plan'; id: string; at: number; from: string; request: PlanApprovalRequest }
  | { kind: 'limit'; id: string; at: number; hit: LimitHit; answer: (go: 'continue' | 'stop') => void };

export class PromptQueue {
  private readonly permissions = new Map<string, Question & { kind: 'permission' }>();
  private readonly plans = new Map<string, Question & { kind: 'plan' }>();
  private readonly limits = new Map<string, Question & { kind: 'limit' }>();
  private shown: string | undefined;

  /** Replace the permission questions with the pending list (what is not listed was decided elsewhere). */
  syncPermissions(pending: readonly PendingView[]): void {
    const ids = new Set(pending.map((p) => p.id));
    for (const id of [...this.permissions.keys()]) if (!ids.has(id)) this.permissions.delete(id);
    for (const p of pending) this.permissions.set(p.id, { kind: 'permission', id: p.id, at: p.createdAt, request: p });
  }

  /** A plan request from `from`; a newer request from the same teammate replaces its older one. */
  addPlan(from: string, request: PlanApprovalRequest): void {
    for (const [id, q] of this.plans) if (q.from.toLowerCase() === from.toLowerCase()) this.plans.delete(id);
    const at = Date.parse(request.timestamp);
    this.plans.set(request.requestId, { kind: 'plan', id: request.requestId, at: Number.isNaN(at) ? 0 : at, from, request });
  }

  /** The agent lead reached a limit; `answer` is called once with the person's choice. */
  addLimit(id: string, hit: LimitHit, answer: (go: 'continue' | 'stop') => void, at = Date.now()): void {
    this.limits.set(id, { kind: 'limit', id, at, hit, answer });
  }

  /** Drop plan questions whose teammate is no longer in `members` (case-insensitive). */
  keepPlansOf(members: readonly string[]): void {
    const names = new Set(members.map((m) => m.toLowerCase()));
    for (const [id, q] of this.plans) if (!names.has(q.from.toLowerCase())) this.plans.delete(id);
  }

  remove(id: string): void {
    this.permissions.delete(id);
    this.plans.delete(id);
    this.limits.delete(id);
  }

  /** Every open question, oldest first (ties by id). */
  all(): Question[] {
    return [...this.permissions.values(), ...this.plans.values(), ...this.limits.values()].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  get size(): number {
    return this.permissions.size + this.plans.size + this.limits.size;
  }

  /** The question to show: the one already shown while it is open, else the oldest. */
  current(): Question | undefined {
    const open = this.all();
    const kept = open.find((q) => q.id === this.shown);
    const next = kept ?? open[0];
    this.shown = next?.id;
    return next;
  }
}
