// The teammate's side of the team's task list (docs/protocol.md#task-list): the TaskList the Task tools use, acting as
// this member; the `task_assignment` frame it sends when it gives a task to someone else (from the
// teammate, through the normal send path: roster-checked, its colour); which task it completed in
// the current turn (for that turn's idle_notification); and the auto-claim when a turn ends with an
// empty inbox and it holds no unfinished task — the lowest-id pending, unowned, unblocked task
// becomes the next user turn.
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { sendMessage } from '../mailbox/send.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { encodeControl, type TaskAssignment } from '../protocol/control.js';
import { TaskList } from '../tasks/index.js';
import { readTeam, requireMember } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { TaskHooks, TaskWork } from './tools/types.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';

export interface TeamTasksDeps {
  team: Team;
  name: string;
  mailbox: Mailbox;
  view: PaneView;
  transcript: Transcript;
  /** The settings' TaskCreated / TaskCompleted hooks (runtime/hooks.ts). */
  hooks?: TaskHooks;
}

/** What the idle_notification after a turn says about tasks. */
export interface TurnCompletion {
  completedTaskId: string;
  completedStatus: 'completed';
}

export class TeamTasks implements TaskWork {
  readonly list: TaskList;
  private done: string | undefined;

  constructor(private readonly d: TeamTasksDeps) {
    this.list = new TaskList(d.team, { notify: (to, frame) => this.notify(to, frame), tell: (to, text) => this.tell(to, text) });
  }

  get self(): string {
    return this.d.name;
  }

  get hooks(): TaskHooks | undefined {
    return this.d.hooks;
  }

  completed(id: string): void {
    this.done = id;
  }

  async member(name: string): Promise<string> {
    return requireMember(await readTeam(this.d.team), name).name;
  }

  /** A new turn starts: nothing completed in it yet. */
  beginTurn(): void {
    this.done = undefined;
  }

  /** The task this teammate completed during the turn that just ended, if any (the last one). */
  completedInTurn(): TurnCompletion | undefined {
    return this.done === undefined ? undefined : { completedTaskId: this.done, completedStatus: 'completed' };
  }

  /**
   * Claim the next available task; the user turn that tells the model, or none when no task is free
   * or this member still holds one it has not completed: one task at a time, so an idle teammate
   * does not take every task the moment it is added while its own is unfinished.
   */
  async claimNext(): Promise<TextBlockParam[]> {
    if ((await this.list.unfinishedOf(this.d.name)).length > 0) return [];
    const task = await this.list.claimNext(this.d.name);
    if (task === undefined) return [];
    this.d.view.notice(`claimed task #${task.id}: ${task.subject}`);
    this.d.transcript.append({ kind: 'task_claimed', taskId: task.id, subject: task.subject });
    const text =
      `You claimed task #${task.id}: ${task.subject}\n\n${task.description}\n\n` +
      `It is yours now (owner ${this.d.name}, in_progress). When the work is fully done, mark it with TaskUpdate {"taskId": "${task.id}", "status": "completed"}.`;
    return [{ type: 'text', text }];
  }

  private async tell(to: string, text: string): Promise<void> {
    const r = await sendMessage(this.d.mailbox, { to, from: this.d.name, text });
    this.d.view.messageOut(to, text);
    this.d.transcript.append({ kind: 'message_out', to, recipients: r.recipients, msgId: r.msg_id, type: 'text' });
  }

  private async notify(to: string, frame: TaskAssignment): Promise<void> {
    const r = await sendMessage(this.d.mailbox, { to, from: this.d.name, text: encodeControl(frame) });
    this.d.view.messageOut(to, `assigned task #${frame.taskId}: ${frame.subject}`);
    this.d.transcript.append({ kind: 'message_out', to, recipients: r.recipients, msgId: r.msg_id, type: 'task_assignment', taskId: frame.taskId });
  }
}
