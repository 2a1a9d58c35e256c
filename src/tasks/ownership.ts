// Who may change a task, pure: the caller (`by`, team-lead for the CLI and the agent lead) and the
// task as it is under its lock. team-lead changes any task; anyone changes an unowned one (a claim
// has its own rules: TaskList's claimStep); a task with an owner is changed (any field, its
// dependencies, deleted) only by that owner, who may clear the owner but not give the task to
// somebody else: only team-lead reassigns. A member naming itself the owner of another's task is a
// claim, refused as `already_claimed`; any other change as `not_owner`.
import { agentId, LEAD_NAME } from '../protocol/names.js';
import type { Task } from '../protocol/task.js';
import { TaskError } from './errors.js';

/** True when `t` is owned by `name`, written as the name or as its agentId (`name@team`, what Claude Code may write). */
export function ownedBy(t: Task, name: string, team: string): boolean {
  return t.owner === name || t.owner === agentId(name, team);
}

/** Throws the refusal when `by` may not change `t` of `team` (to `newOwner`, when the change sets one: null clears it). */
export function assertMayChange(t: Task, by: string, team: string, newOwner?: string | null): void {
  if (by === LEAD_NAME || !t.owner) return;
  if (!ownedBy(t, by, team)) {
    if (typeof newOwner === 'string' && ownedBy({ ...t, owner: newOwner }, by, team)) {
      throw new TaskError('already_claimed', `task ${t.id} is already claimed by ${t.owner}; pick another task (swarm tasks list)`);
    }
    throw new TaskError('not_owner', `task ${t.id} is owned by ${t.owner}; only ${t.owner} or team-lead can change it (ask team-lead, or pick another task: swarm tasks list)`);
  }
  if (typeof newOwner === 'string' && !ownedBy(t, newOwner, team)) {
    throw new TaskError('not_owner', `task ${t.id} is yours; only team-lead can give it to ${newOwner}: ask team-lead, or clear its owner to put it back on the list`);
  }
}
