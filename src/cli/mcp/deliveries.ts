// What a Claude Code lead hears through swarm mcp's wait_for_messages (docs/claude-code-lead.md):
// team-lead's inbox as the lead's inbox rule (runtime/lead/inbox-rule.ts) gives it to a lead —
// every entry but the person's questions, wrapped as <teammate-message …> (runtime/incoming.ts) —
// and the teammates' claims and completions in the task list.
//
// Exactly once: an entry stays unread in team-lead's inbox until a wait hands it over (marked read,
// under the inbox lock, just before the result is written), so a server started again after its
// own or Claude Code's crash delivers what was not yet delivered, and nothing twice. The questions
// (permission and plan requests) stay with the person — a console in another pane, `swarm approve`:
// this process marks them taken and never shows them to the model. It holds the leader lease, so it
// also releases a teammate that approved its shutdown (the inbox rule's `released`).
import type { Mailbox } from '../../mailbox/mailbox.js';
import { followInbox } from '../../mailbox/follow.js';
import { messageKey, type InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME } from '../../protocol/names.js';
import type { Task } from '../../protocol/task.js';
import type { LeadInboxRule } from '../../runtime/lead/inbox-rule.js';
import { staysWithPerson } from '../../runtime/lead/queue.js';
import { taskChangeLine, taskChanges } from '../../runtime/lead/task-changes.js';
import { ensureDir } from '../../storage/atomic.js';
import { DirWatcher } from '../../storage/watch.js';
import { TaskList } from '../../tasks/index.js';
import type { Team } from '../../team/team.js';

/** How long a wait lingers after the first arrival for the rest of a burst, ms. */
const SETTLE_MS = 100;

export interface DeliveriesOptions {
  team: Team;
  mailbox: Mailbox;
  rule: LeadInboxRule;
  /** Diagnostics (the server's stderr). */
  print: (line: string) => void;
  /** How long a wait lingers after the first arrival, ms (default SETTLE_MS; tests lengthen it). */
  settleMs?: number;
}

/** What one wait hands over: inbox entries in their order, then task notes. */
export interface Delivery {
  entries: InboxMessage[];
  notes: string[];
}

export class LeadDeliveries {
  private entries: InboxMessage[] = [];
  private notes: string[] = [];
  private wake: (() => void) | undefined;

  constructor(private readonly o: DeliveriesOptions) {}

  /** Follow team-lead's inbox and the task list until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all([this.followInbox(signal), this.followTasks(signal)]);
  }

  /** Something to hand over now. */
  get ready(): boolean {
    return this.entries.length > 0 || this.notes.length > 0;
  }

  /**
   * Resolves when something arrives (and SETTLE_MS more have passed, so a burst — the entries of
   * one inbox read, a teammate's message and its idle notice — is handed over as one), `ms` pass,
   * or `signal` aborts.
   */
  async arrival(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout;
      const done = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        this.wake = undefined;
        resolve();
      };
      const settle = (): void => {
        this.wake = undefined;
        clearTimeout(timer);
        timer = setTimeout(done, this.o.settleMs ?? SETTLE_MS);
      };
      signal.addEventListener('abort', done, { once: true });
      if (this.ready) return settle();
      timer = setTimeout(done, ms);
      this.wake = settle;
    });
  }

  /** Hand over everything waiting: the entries are marked read first (a crash after this loses nothing but this result). */
  async take(): Promise<Delivery> {
    const entries = this.entries;
    const notes = this.notes;
    this.entries = [];
    this.notes = [];
    if (entries.length > 0) {
      const keys = new Set(entries.map(messageKey));
      try {
        await this.o.mailbox.consume(LEAD_NAME, (m) => keys.has(messageKey(m)));
      } catch (e) {
        this.entries = [...entries, ...this.entries]; // not marked: handed over by the next wait instead
        this.notes = [...notes, ...this.notes];
        throw e;
      }
    }
    return { entries, notes };
  }

  private arrived(): void {
    this.wake?.();
  }

  private async followInbox(signal: AbortSignal): Promise<void> {
    for await (const m of followInbox(this.o.mailbox, LEAD_NAME, { unreadOnly: true, signal })) {
      for (const e of this.o.rule.take(m, true)) {
        if (e.kind === 'for-lead') {
          this.entries.push(e.entry);
          this.arrived();
        } else if (e.kind === 'released') {
          e.outcome.catch((err: unknown) => this.o.print(`error: releasing ${e.name}: ${err instanceof Error ? err.message : String(err)}`));
        }
      }
      // A question is the person's: taken here so it is not "undelivered", shown by their console.
      if (staysWithPerson(m)) await this.o.mailbox.consume(LEAD_NAME, (x) => messageKey(x) === messageKey(m)).catch(() => undefined);
    }
  }

  /** Teammates' claims and completions (the lead's own changes, and creations, it knows of). */
  private async followTasks(signal: AbortSignal): Promise<void> {
    const list = new TaskList(this.o.team);
    await ensureDir(this.o.team.paths.tasks.dir);
    const watcher = await DirWatcher.open(this.o.team.paths.tasks.dir);
    let known: Map<string, Task> | undefined;
    try {
      while (!signal.aborted) {
        const { tasks } = await list.list();
        if (known !== undefined) {
          for (const c of taskChanges(known, tasks)) {
            if (c.kind === 'created' || c.task.owner === LEAD_NAME) continue;
            this.notes.push(`[swarm] ${taskChangeLine(c)}: ${c.task.subject}`);
            this.arrived();
          }
        }
        known = new Map(tasks.map((t) => [t.id, t]));
        await watcher.changed(signal).catch(() => undefined);
      }
    } finally {
      await watcher.close();
    }
  }
}
