// The teammate's heartbeat file, teams/<team>/status/<name>.json (docs/protocol.md#status-files): pid, state, heartbeat
// time, tool uses, input tokens (latest), output tokens (summed), cost estimate, last 5 activities.
// A model without a list price (protocol/prices) has no cost estimate: `costUsd` is left out of the
// file, not written as 0, so a reader can tell "unpriced" from "free".
//
// Written whole and atomically (storage/atomic) by this process only, so no lock: on every state
// change and every `heartbeatMs` (an unref'd timer: it never keeps the process alive), every
// idleHeartbeatMs while idle (a hundred idle teammates each rewriting its file every 5 s were most
// of what the console read while nothing happened). Writes are serialised and coalesced
// (storage/coalesce): while one is in flight, further changes produce exactly one more.
import { StatusFileSchema, type StatusFile, type TeammateState } from '../protocol/status.js';
import { oneLine } from '../protocol/text.js';
import { ensureDir, formatJson, writeFileAtomic } from '../storage/atomic.js';
import { coalesced } from '../storage/coalesce.js';
import path from 'node:path';

export interface StatusReporterOptions {
  file: string;
  name: string;
  agentId: string;
  pid: number;
  heartbeatMs: number;
  /** false: the model has no list price, so `costUsd` is never written. Default true. */
  priced?: boolean;
  now?: () => number;
  /** Called when a write fails (the heartbeat keeps going). */
  onError?: (e: unknown) => void;
}

/**
 * How often an idle teammate's heartbeat is written: every third heartbeat, at most 15 s apart
 * (half the age at which a heartbeat reads as stale, teammates/status-report.ts), never more often
 * than `heartbeatMs`. 5 s heartbeats: 15 s while idle.
 */
export function idleHeartbeatMs(heartbeatMs: number): number {
  return Math.max(heartbeatMs, Math.min(3 * heartbeatMs, 15_000));
}

export class StatusReporter {
  private record: StatusFile;
  private timer: NodeJS.Timeout | undefined;
  private readonly writes = coalesced(async () => {
    this.record.heartbeatAt = this.now();
    try {
      await writeFileAtomic(this.opts.file, formatJson(this.record));
    } catch (e) {
      this.opts.onError?.(e);
    }
  });
  private stopped = false;
  private unpriced: boolean;

  constructor(private readonly opts: StatusReporterOptions) {
    this.unpriced = opts.priced === false;
    const now = this.now();
    this.record = StatusFileSchema.parse({
      name: opts.name,
      agentId: opts.agentId,
      pid: opts.pid,
      state: 'starting',
      heartbeatAt: now,
      startedAt: now,
      toolUses: 0,
      inputTokens: 0,
      outputTokens: 0,
      totalTokens: 0,
      ...(this.unpriced ? {} : { costUsd: 0 }),
      activities: [],
    });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  get state(): TeammateState {
    return this.record.state;
  }

  get snapshot(): StatusFile {
    return structuredClone(this.record);
  }

  /** Write the first record and start the heartbeat. */
  async start(): Promise<void> {
    await ensureDir(path.dirname(this.opts.file));
    await this.flush();
    this.timer = setInterval(() => this.beat(), this.opts.heartbeatMs);
    this.timer.unref();
  }

  /** The timer's heartbeat: while idle, only once idleHeartbeatMs has passed since the last write (half a beat's slack for a late timer). */
  private beat(): void {
    const due = this.record.state === 'idle' ? idleHeartbeatMs(this.opts.heartbeatMs) - this.opts.heartbeatMs / 2 : 0;
    if (this.now() - this.record.heartbeatAt < due) return;
    void this.write();
  }

  setState(state: TeammateState): void {
    if (this.record.state === state) return;
    this.record.state = state;
    void this.write();
  }

  activity(text: string): void {
    this.record.activities = [...this.record.activities, { at: this.now(), text: oneLine(text, 120) }].slice(-5);
    void this.write();
  }

  toolUse(): void {
    this.record.toolUses += 1;
  }

  /** One model step: its whole prompt, its output, its cost (undefined: unpriced, and from then on no cost is written). */
  usage(promptTokens: number, outputTokens: number, costUsd: number | undefined): void {
    this.record.inputTokens = promptTokens;
    this.spent(promptTokens, outputTokens, costUsd);
  }

  /**
   * A subagent's step (runtime/subagent.ts): its tokens and cost count toward this teammate's (and
   * so the team's budget), but `inputTokens` stays the teammate's own context.
   */
  subagentUsage(promptTokens: number, outputTokens: number, costUsd: number | undefined): void {
    this.spent(promptTokens, outputTokens, costUsd);
  }

  private spent(promptTokens: number, outputTokens: number, costUsd: number | undefined): void {
    this.record.outputTokens += outputTokens;
    this.record.totalTokens += promptTokens + outputTokens;
    this.unpriced ||= costUsd === undefined;
    if (this.unpriced || costUsd === undefined) delete this.record.costUsd;
    else this.record.costUsd = Math.round(((this.record.costUsd ?? 0) + costUsd) * 1e6) / 1e6;
    void this.write();
  }

  /** Resolves once everything changed so far is on disk. */
  async flush(): Promise<void> {
    await this.write();
    await this.writes.idle();
  }

  /** Final state, written and waited for; the heartbeat stops. */
  async stop(state: TeammateState): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.record.state = state;
    await this.flush();
    this.stopped = true;
  }

  private write(): Promise<void> {
    return this.stopped ? Promise.resolve() : this.writes.trigger();
  }
}
