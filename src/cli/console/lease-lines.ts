// What the console says about the leader lease (team/lead-lease.ts): who takes delivery of
// team-lead's inbox when this console only watches, and each change of role.
import type { LeadLease } from '../../protocol/config.js';
import { describeHolder, type LeaseState } from '../../team/lead-lease.js';
import { chalk } from '../output/render.js';

function since(ms: number): string {
  return new Date(ms).toTimeString().slice(0, 8);
}

/** Shown when the console opens as a watcher, and when it becomes one. */
export function watchingLines(team: string, holder: LeadLease): string[] {
  return [
    chalk.yellow(`watching: ${describeHolder(holder)} takes delivery of team-lead's inbox (since ${since(holder.claimedAt)})`),
    chalk.dim(`this console shows messages, events and questions (answer them here or with swarm approve) and consumes nothing;`),
    chalk.dim(`it takes over when that process ends; to take over now: swarm lead --take-over --team ${team}`),
  ];
}

/** The role changed on a lease tick. */
export function roleChangeLine(team: string, now: LeaseState, before: LeaseState): string[] {
  if (now.role === 'watcher') return [chalk.yellow(`handed over to ${describeHolder(now.holder)}: this console watches now`), ...watchingLines(team, now.holder).slice(1)];
  const was = before.role === 'watcher' ? describeHolder(before.holder) : 'the leader';
  return [chalk.green(`${was} has gone or handed over: this console takes delivery of team-lead's inbox now`)];
}
