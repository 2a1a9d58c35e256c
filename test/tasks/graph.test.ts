// The task list's pure parts: which new dependency edge would close a cycle, and the cycle it would
// close (the shortest way back, as the error shows it), with edges read from either side of a pair;
// the edges as a list (the board draws them); and the task error's kind checks.
import { describe, expect, it } from 'vitest';
import type { Task } from '../../src/protocol/task.js';
import { CLAIM_REFUSALS, isTaskError, TaskError } from '../../src/tasks/errors.js';
import { findCycle, taskEdges } from '../../src/tasks/graph.js';

function task(id: string, blocks: string[] = [], blockedBy: string[] = []): Task {
  return { id, subject: `task ${id}`, description: '', status: 'pending', blocks, blockedBy };
}

describe('taskEdges', () => {
  it('lists each edge once, whichever side declares it (both, blocks only, blockedBy only)', () => {
    const tasks = [task('1', ['2', '3']), task('2', [], ['1']), task('3'), task('4', [], ['3'])];
    expect(taskEdges(tasks)).toEqual([
      { from: '1', to: '2' },
      { from: '1', to: '3' },
      { from: '3', to: '4' },
    ]);
    expect(taskEdges([task('1')])).toEqual([]);
  });
});

describe('findCycle', () => {
  it('a task blocking itself is a cycle of one', () => {
    expect(findCycle([task('1')], [{ from: '1', to: '1' }])).toEqual({ edge: { from: '1', to: '1' }, cycle: ['1', '1'] });
  });

  it('closing a chain names every task on the way back, in order', () => {
    const tasks = [task('1', ['2']), task('2', ['3']), task('3')];
    expect(findCycle(tasks, [{ from: '3', to: '1' }])).toEqual({ edge: { from: '3', to: '1' }, cycle: ['3', '1', '2', '3'] });
    expect(findCycle(tasks, [{ from: '2', to: '1' }])).toEqual({ edge: { from: '2', to: '1' }, cycle: ['2', '1', '2'] });
  });

  it('reads an edge declared on one side only (blockedBy without the matching blocks), and the other side alone', () => {
    expect(findCycle([task('1'), task('2', [], ['1'])], [{ from: '2', to: '1' }])?.cycle).toEqual(['2', '1', '2']);
    expect(findCycle([task('1', ['2']), task('2')], [{ from: '2', to: '1' }])?.cycle).toEqual(['2', '1', '2']);
  });

  it('shows the shortest way back when there are several', () => {
    const tasks = [task('1', ['2', '4']), task('2', ['3']), task('3', ['4']), task('4')];
    expect(findCycle(tasks, [{ from: '4', to: '1' }])?.cycle).toEqual(['4', '1', '4']);
  });

  it('counts the edges added before in the same call, and names the first that closes a cycle', () => {
    const tasks = [task('1'), task('2'), task('3')];
    const added = [
      { from: '1', to: '2' },
      { from: '2', to: '3' },
      { from: '3', to: '1' },
      { from: '2', to: '1' },
    ];
    expect(findCycle(tasks, added)).toEqual({ edge: { from: '3', to: '1' }, cycle: ['3', '1', '2', '3'] });
    // An edge from a task with no edges yet is remembered too.
    expect(findCycle([task('5'), task('6')], [{ from: '5', to: '6' }, { from: '6', to: '5' }])?.cycle).toEqual(['6', '5', '6']);
  });

  it('keeps every edge out of a task, declared and added, and names the path found first, not a later one', () => {
    // 1 blocks 2 and 3: the edge to 2 must survive the edge to 3.
    expect(findCycle([task('1', ['2', '3']), task('2'), task('3')], [{ from: '2', to: '1' }])?.cycle).toEqual(['2', '1', '2']);
    // An edge added earlier in the call from a task with edges already keeps them.
    expect(findCycle([task('1', ['2']), task('2'), task('3')], [{ from: '1', to: '3' }, { from: '2', to: '1' }])?.cycle).toEqual(['2', '1', '2']);
    // Two ways of equal length from 1 to 5: the one through the task listed first is named.
    const tasks = [task('1', ['2', '3']), task('2', ['4']), task('3', ['4']), task('4', ['5']), task('5')];
    expect(findCycle(tasks, [{ from: '5', to: '1' }])?.cycle).toEqual(['5', '1', '2', '4', '5']);
  });

  it('a diamond, and edges that only join branches, are no cycle', () => {
    const tasks = [task('1', ['2', '3']), task('2', ['4']), task('3', ['4']), task('4')];
    expect(findCycle(tasks, [{ from: '1', to: '4' }, { from: '2', to: '3' }])).toBeUndefined();
    expect(findCycle([], [])).toBeUndefined();
  });
});

describe('TaskError', () => {
  it('is told apart by kind, and keeps its cause', () => {
    const cause = new Error('disk full');
    const e = new TaskError('blocked', 'task 2 is blocked by 1; finish 1 first', { cause });
    expect(e).toBeInstanceOf(Error);
    expect(e.name).toBe('TaskError');
    expect(e.message).toBe('task 2 is blocked by 1; finish 1 first');
    expect(e.cause).toBe(cause);
    expect(new TaskError('invalid', 'x').cause).toBeUndefined();
    expect('cause' in new TaskError('invalid', 'x')).toBe(false);
    expect(isTaskError(e)).toBe(true);
    expect(isTaskError(e, 'blocked')).toBe(true);
    expect(isTaskError(e, 'cycle')).toBe(false);
    expect(isTaskError(new Error('blocked'))).toBe(false);
    expect(CLAIM_REFUSALS).toEqual(['already_claimed', 'already_resolved', 'blocked', 'not_owner']);
  });
});
