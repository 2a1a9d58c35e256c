// The teammate's presence as others see it: `isActive` (and pid) in config.json, the state in the
// status file, and the `idle_notification` frames to team-lead (docs/protocol.md#idle): "available" with a short
// summary when a turn ends (and `completedTaskId`/`completedStatus` when the teammate completed a
// task in it, docs/protocol.md#task-list), "failed" with the reason when the process gives up. config.json is
// written only when isActive actually changes (under the config lock, via team-store).
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
  private active: boolean | undefined;

  constructor(private readonly d: PresenceDeps) {}

  private async setActive(isActive: boolean, extra: { pid?: number } = {}): Promise<void> {
    if (this.active === isActive && extra.pid === undefined) return;
    try {
      await updateMember(this.d.team, this.d.name, { isActive, ...extra });
      this.active = isActive;
    } catch (e) {
      // Removed from the roster meanwhile (the leader does that on shutdown): nothing to mark.
      if (!isSwarmError(e, 'not_found')) throw e;
    }
  }

  async start(): Promise<void> {
    await this.setActive(true, { pid: this.d.pid });
  }

  async working(): Promise<void> {
    this.d.status.setState('working');
    await this.setActive(true);
  }

  private async notify(fields: { idleReason: 'available' | 'failed'; summary?: string; failureReason?: string; completedTaskId?: string; completedStatus?: string }): Promise<void> {
    const text = encodeControl({
      type: 'idle_notification',
      from: this.d.name,
      timestamp: new Date((this.d.now ?? Date.now)()).toISOString(),
      ...fields,
    });
    await this.d.mailbox.append(LEAD_NAME, { from: this.d.name, text, ...(this.d.color ? { color: this.d.color } : {}) });
    this.d.transcript.append({ kind: 'message_out', to: LEAD_NAME, type: 'idle_notification', ...fields });
  }

  /** End of a turn: inactive, idle, and the leader told what was done. */
  async idle(summary: string, completed?: { completedTaskId: string; completedStatus: string }): Promise<void> {
    await this.setActive(false);
    this.d.status.setState('idle');
    await this.notify({ idleReason: 'available', ...(summary ? { summary } : {}), ...completed });
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
