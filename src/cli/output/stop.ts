// What a stop did, as the person reads it: one line per teammate, the same words wherever a stop is
// reported — `swarm kill` / `swarm shutdown`, the console (its /shutdown, /kill, exit, an agent
// lead's stops, a teammate released on its shutdown_approved) and `swarm run -p` (its end-of-run
// shutdown). The agent lead's own tool result words a stop for the model (runtime/lead/tools.ts).
import type { StopOutcome } from '../../teammates/stop.js';
import { describeWorktreeFate } from '../../teammates/worktree.js';
import { chalk } from './render.js';

/** One human line per outcome; a worktree teammate's line ends with what became of its worktree. */
export function describeOutcome(o: StopOutcome): string {
  return o.worktree === undefined ? describeStopped(o) : `${describeStopped(o)}; ${describeWorktreeFate(o.worktree)}`;
}

function describeStopped(o: StopOutcome): string {
  const name = chalk.bold(o.name);
  switch (o.outcome) {
    case 'approved':
      return `${name}: approved the shutdown; process exited, pane closed, removed from the team${o.reason ? ` (${o.reason})` : ''}`;
    case 'grace_exit':
      return `${name}: ${chalk.yellow('did not answer')}; ${o.reason ?? 'exited by itself when its grace period ended'}; pane closed, removed from the team`;
    case 'rejected':
      return `${name}: ${chalk.yellow('rejected')} the shutdown: ${o.reason ?? '(no reason)'}; still running (use --force to kill)`;
    case 'killed':
      return `${name}: ${chalk.red('killed')}${o.reason ? ` (${o.reason})` : ''}; pane and process gone, removed from the team`;
    case 'timeout':
      return `${name}: ${chalk.yellow(o.reason ?? 'no answer')}; still running (retry with --force to kill)`;
    case 'already_gone':
      return `${name}: ${o.reason ?? 'already gone'}; leftover pane closed, removed from the team`;
    case 'failed':
      return `${name}: ${chalk.red('failed')}: ${o.reason ?? 'unknown error'}`;
  }
}
