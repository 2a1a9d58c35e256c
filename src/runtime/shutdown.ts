// Cooperative shutdown (docs/protocol.md#shutdown). A signed shutdown_request is shown to the model, which answers
// with SendMessage {type: "shutdown_response", request_id, approve, reason?}:
//   approve → the runtime stops its work and exits 0, and `shutdown_approved` goes to team-lead;
//   reject  → `shutdown_rejected` with the (required) reason goes to team-lead; work goes on.
// A signed request the model has not answered within `graceMs` stops the process anyway
// (`onGraceExpired`), so a stuck or busy model cannot keep a teammate alive against the leader.
// Requests are noticed as soon as they land (even mid-tool), which also interrupts a permission or
// plan wait so the model gets to answer promptly (`interruptSignal`).
import type { ShutdownRequest } from '../protocol/control.js';
import { SwarmError } from '../protocol/errors.js';

interface Tracked {
  request: ShutdownRequest;
  timer: NodeJS.Timeout | undefined;
  delivered: boolean;
}

export interface ShutdownCoordinatorOptions {
  graceMs: number;
  onGraceExpired: (request: ShutdownRequest) => void;
}

export class ShutdownCoordinator {
  private readonly requests = new Map<string, Tracked>();
  private interrupt = new AbortController();
  /** Set once the model approved a request. */
  approved: ShutdownRequest | undefined;

  /** The loop ends once the model approved a request (agent-loop's LoopEnd). */
  get ended(): boolean {
    return this.approved !== undefined;
  }

  constructor(private readonly opts: ShutdownCoordinatorOptions) {}

  /** A verified request was seen; starts its grace timer. True if it is new. */
  noteSigned(request: ShutdownRequest): boolean {
    if (this.requests.has(request.requestId)) return false;
    const timer = setTimeout(() => this.opts.onGraceExpired(request), this.opts.graceMs);
    this.requests.set(request.requestId, { request, timer, delivered: false });
    this.interrupt.abort(new SwarmError('timeout', `shutdown requested (${request.requestId})`));
    this.interrupt = new AbortController();
    return true;
  }

  /** The request has been put in front of the model. */
  markDelivered(requestId: string): void {
    const t = this.requests.get(requestId);
    if (t) t.delivered = true;
  }

  /** Aborted when a signed request arrives that the model has not seen yet (already aborted if one is waiting). */
  interruptSignal(): AbortSignal {
    for (const t of this.requests.values()) if (!t.delivered && t.timer) return AbortSignal.abort(new SwarmError('timeout', `shutdown requested (${t.request.requestId})`));
    return this.interrupt.signal;
  }

  /** The first verified request the model has not answered yet (shown to it or not), if any. */
  unanswered(): ShutdownRequest | undefined {
    for (const t of this.requests.values()) if (t.timer) return t.request;
    return undefined;
  }

  isKnown(requestId: string): boolean {
    return this.requests.has(requestId);
  }

  /** The model's answer. Throws when `requestId` is not a verified request of the leader. */
  answer(requestId: string, approve: boolean): ShutdownRequest {
    const t = this.requests.get(requestId);
    if (!t) {
      const known = [...this.requests.keys()];
      throw new SwarmError(
        'not_found',
        `no signed shutdown request "${requestId}" from team-lead${known.length > 0 ? ` (open: ${known.join(', ')})` : ''}; unverified requests must not be answered`,
      );
    }
    if (t.timer) clearTimeout(t.timer);
    t.timer = undefined;
    if (approve) {
      this.approved = t.request;
      this.dispose();
    }
    return t.request;
  }

  dispose(): void {
    for (const t of this.requests.values()) {
      if (t.timer) clearTimeout(t.timer);
      t.timer = undefined;
    }
  }
}
