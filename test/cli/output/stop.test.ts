// A stop in the person's words (cli/output/stop.ts): the console (its /shutdown, exit, a teammate
// released on its approval) and `swarm run -p` (its end-of-run shutdown) print the same line for the
// same outcome — `run -p` without colour, like all its progress — and a worktree teammate's line
// ends with what became of its worktree.
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { describeOutcome } from '../../../src/cli/output/stop.js';
import { stopLine } from '../../../src/cli/run/run-report.js';
import type { StopOutcome } from '../../../src/teammates/stop.js';

const outcomes: StopOutcome[] = [
  { name: 'w1', outcome: 'approved', verified: true },
  { name: 'w1', outcome: 'grace_exit', verified: true, reason: 'exited by itself when its 30 s grace period ended' },
  { name: 'w1', outcome: 'rejected', verified: false, reason: 'busy' },
  { name: 'w1', outcome: 'killed', verified: true, reason: 'no answer in time' },
  { name: 'w1', outcome: 'timeout', verified: false },
  { name: 'w1', outcome: 'already_gone', verified: true },
  { name: 'w1', outcome: 'failed', verified: false, reason: 'boom' },
];

describe('a stop, worded once', () => {
  it('the console and run -p print the same words for the same shutdown', () => {
    for (const o of outcomes) expect(stopLine(o)).toBe(stripVTControlCharacters(describeOutcome(o)));
    expect(stopLine(outcomes[0]!)).toBe('w1: approved the shutdown; process exited, pane closed, removed from the team');
    expect(stopLine(outcomes[2]!)).toBe('w1: rejected the shutdown: busy; still running (use --force to kill)');
  });

  it('a worktree teammate: what became of its worktree', () => {
    const line = stopLine({ name: 'iso', outcome: 'approved', verified: true, worktree: { fate: 'removed', path: '/r/.claude/worktrees/t-iso', branch: 'swarm/t/iso' } });
    expect(line).toMatch(/^iso: approved the shutdown; process exited, pane closed, removed from the team; worktree removed \(no changes\), with branch swarm\/t\/iso$/);
  });
});
