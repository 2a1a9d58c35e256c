// Dependency checks of the task list, pure: `a blocks b` is an edge a → b (b.blockedBy holds a).
// The edges must stay acyclic, or no task of a cycle could ever be claimed.
import type { Task } from '../protocol/task.js';

export interface Edge {
  /** The blocker. */
  from: string;
  /** The blocked task. */
  to: string;
}

/** Every edge the tasks declare, from either side (a half-written pair still counts). */
function adjacency(tasks: readonly Task[]): Map<string, Set<string>> {
  const next = new Map<string, Set<string>>();
  const add = (from: string, to: string): void => {
    let s = next.get(from);
    if (!s) next.set(from, (s = new Set()));
    s.add(to);
  };
  for (const t of tasks) {
    for (const b of t.blocks) add(t.id, b);
    for (const b of t.blockedBy) add(b, t.id);
  }
  return next;
}

/** Every edge of the task list once, blocker first, in the order the tasks declare them (the board draws these). */
export function taskEdges(tasks: readonly Task[]): Edge[] {
  return [...adjacency(tasks)].flatMap(([from, to]) => [...to].map((t) => ({ from, to: t })));
}

/** A path from `start` to `goal` along the edges, or undefined. */
function pathBetween(next: Map<string, Set<string>>, start: string, goal: string): string[] | undefined {
  const cameFrom = new Map<string, string>([[start, start]]);
  const queue = [start];
  while (queue.length > 0) {
    const at = queue.shift()!;
    if (at === goal) {
      const path = [at];
      for (let n = at; n !== start; ) path.unshift((n = cameFrom.get(n)!));
      return path;
    }
    for (const n of next.get(at) ?? []) {
      if (!cameFrom.has(n)) {
        cameFrom.set(n, at);
        queue.push(n);
      }
    }
  }
  return undefined;
}

/**
 * The first new edge that would close a cycle, with the cycle (`['3', '4', '3']`: 3 blocks 4 blocks 3),
 * or undefined when all of them can be added.
 */
export function findCycle(tasks: readonly Task[], added: readonly Edge[]): { edge: Edge; cycle: string[] } | undefined {
  const next = adjacency(tasks);
  for (const edge of added) {
    if (edge.from === edge.to) return { edge, cycle: [edge.from, edge.to] };
    const back = pathBetween(next, edge.to, edge.from);
    if (back) return { edge, cycle: [edge.from, ...back] };
    let s = next.get(edge.from);
    if (!s) next.set(edge.from, (s = new Set()));
    s.add(edge.to);
  }
  return undefined;
}
