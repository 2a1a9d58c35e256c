// The teammate's presence as others see it: `isActive` (and pid) in config.json, the state in the
// status file, and the `idle_notification` frames to team-lead (docs/protocol.md#idle): "available" with a short
// summary when a turn ends (and `completedTaskId`/`completedStatus` when the teammate completed a
// task in it, docs/protocol.md#task-list), "failed" with the reason when the process gives up. config.json is
// written only when isActive actually changes (under the config lock, via team-store), and a turn's
// model request never waits for that lock: the team's hundred teammates share it.
import { encodeControl } from '../protocol/control.js';
import { isSwarmError } from '../protocol/errors.js';
import { LEAD_NAME } from '../protocol/names.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { updateMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { StatusReporter } from './status.js';
import type { Transcript } from './transcript.js';

export interface PresenceDeps {
  team: Team;
  name: string;
  color?: string;
  pid: number;
  mailbox: Mailbox;
  status: StatusReporter;
  transcript: Transcript;
  now?: () => number;
}

export class Presence {
  /** isActive as config.json has it from this process (undefined: not written yet), and as wanted. */
  private written: boolean | undefined;
  private wanted: boolean | undefined;
  private writing: Promise<void> | undefined;

  constructor(private readonly d: PresenceDeps) {}

  /**
   * Write `wanted` until config.json holds it, one write at a time; the value is taken under the
   * lock, so a flip that is undone while it waits (a short turn) writes nothing.
   */
  private flush(): Promise<void> {
    if (this.writing === undefined) {
      const run = this.writeWanted().finally(() => {
        if (this.writing === run) this.writing = undefined;
      });
      this.writing = run;
    }
    return this.writing;
  }

  private async writeWanted(): Promise<void> {
    while (this.written !== this.wanted) {
      let wrote = this.wanted;
      try {
        await updateMember(this.d.team, this.d.name, () => {
          wrote = this.wanted;
          return { isActive: wrote };
        });
      } catch (e) {
        // Removed from the roster meanwhile (the leader does that on shutdown): nothing to mark.
        if (!isSwarmError(e, 'not_found')) throw e;
      }
      this.written = wrote;
    }
  }

  /** isActive as wanted, once written: a write working() started that failed is tried again here. */
  private async setActive(isActive: boolean): Promise<void> {
    this.wanted = isActive;
    await this.flush().catch(() => undefined);
    await this.flush();
  }

  async start(): Promise<void> {
    try {
      await updateMember(this.d.team, this.d.name, { isActive: true, pid: this.d.pid });
    } catch (e) {
      if (!isSwarmError(e, 'not_found')) throw e; // removed from the roster meanwhile: nothing to mark
    }
    this.written = this.wanted = true;
  }

  /**
   * A turn begins: the status file at once, config.json's isActive without holding up the turn. Its
   * lock is the team's: a hundred teammates given a broadcast would wait on it in turn before their
   * model requests. The turn's end (idle, leaving) waits for the write, tries a failed one again, and
   * throws if that fails too.
   */
  async working(): Promise<void> {
    this.d.status.setState('working');
    this.wanted = true;
    this.flush().catch(() => undefined);
  }

  /** Send an idle_notification to team-lead; `meanwhile` runs once it is spooled and before it is merged into the inbox. */
  private async notify(
    fields: { idleReason: 'available' | 'failed'; summary?: string; failureReason?: string; completedTaskId?: string; completedStatus?: string },
    meanwhile?: () => Promise<void>,
  ): Promise<void> {
    const text = encodeControl({
      type: 'idle_notification',
      from: this.d.name,
      timestamp: new Date((this.d.now ?? Date.now)()).toISOString(),
      ...fields,
    });
    const spooled = this.d.mailbox.spool(LEAD_NAME, { from: this.d.name, text, ...(this.d.color ? { color: this.d.color } : {}) });
    await meanwhile?.();
    await this.d.mailbox.deliver(spooled);
    this.d.transcript.append({ kind: 'message_out', to: LEAD_NAME, type: 'idle_notification', ...fields });
  }

  /**
   * End of a turn: inactive, idle, and the leader told what was done. The notification is spooled
   * before the status file's `idle` is written and merged into team-lead's inbox only after: a lead
   * that reads the status as idle finds the notification at least in the spool (reading team-lead's
   * inbox merges it), and a lead woken by the notification reads the status as idle. Either other
   * order leaves a moment in which the agent lead ends the run without the teammate's report, or
   * waits for a message that has already come (docs/protocol.md#idle).
   */
  async idle(summary: string, completed?: { completedTaskId: string; completedStatus: string }): Promise<void> {
    await this.setActive(false);
    this.d.status.setState('idle');
    await this.notify({ idleReason: 'available', ...(summary ? { summary } : {}), ...completed }, () => this.d.status.flush());
  }

  async failed(reason: string): Promise<void> {
    await this.notify({ idleReason: 'failed', failureReason: reason });
  }

  async leaving(): Promise<void> {
    await this.setActive(false);
  }

  /** Exiting to hibernate: inactive, and when it went to sleep (docs/hibernation.md); a resume clears it. */
  async hibernating(): Promise<void> {
    try {
      await updateMember(this.d.team, this.d.name, { isActive: false, hibernatedAt: (this.d.now ?? Date.now)() });
    } catch (e) {
      if (!isSwarmError(e, 'not_found')) throw e; // removed from the roster meanwhile: nothing to mark
    }
  }
}
