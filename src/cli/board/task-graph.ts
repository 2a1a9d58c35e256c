// The board's task graph (docs/board.md): the team's tasks laid out by dagre on the server, so the
// page only draws boxes and lines it is given (its CSP allows no script but its own). An edge
// a → b means a blocks b (tasks/graph.ts); it is `blocked` while a is not completed, and a task
// is `blocked` while any of its blockers is not. Claude Code's internal tasks are left out, as its
// TaskList leaves them out. Pure: tasks in, coordinates out.
import dagre from '@dagrejs/dagre';
import type { Task } from '../../protocol/task.js';
import { isInternalTask, taskEdges } from '../../tasks/index.js';

export interface GraphNode {
  id: string;
  subject: string;
  owner: string | null;
  status: Task['status'];
  /** A blocker of it is not completed yet. */
  blocked: boolean;
  /** The box's centre and size, in the graph's own units (the page scales the whole drawing). */
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface GraphEdge {
  from: string;
  to: string;
  /** The blocker is not completed: the edge still holds `to` back. */
  blocked: boolean;
  points: { x: number; y: number }[];
}

export interface TaskGraph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  width: number;
  height: number;
}

export const NODE_WIDTH = 200;
export const NODE_HEIGHT = 56;

/** The tasks as a laid-out graph, left to right along the blocking edges. */
export function layoutTasks(all: readonly Task[]): TaskGraph {
  const tasks = all.filter((t) => !isInternalTask(t));
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const edges = taskEdges(tasks).filter((e) => byId.has(e.from) && byId.has(e.to));
  const open = (id: string): boolean => byId.get(id)?.status !== 'completed';
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 56, marginx: 12, marginy: 12 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const t of tasks) g.setNode(t.id, { width: NODE_WIDTH, height: NODE_HEIGHT });
  for (const e of edges) g.setEdge(e.from, e.to);
  dagre.layout(g);
  const size = g.graph();
  return {
    nodes: tasks.map((t) => {
      const n = g.node(t.id);
      return {
        id: t.id,
        subject: t.subject,
        owner: t.owner ?? null,
        status: t.status,
        blocked: edges.some((e) => e.to === t.id && open(e.from)),
        x: n.x,
        y: n.y,
        width: NODE_WIDTH,
        height: NODE_HEIGHT,
      };
    }),
    edges: edges.map((e) => ({ ...e, blocked: open(e.from), points: ((g.edge(e.from, e.to) as { points?: { x: number; y: number }[] } | undefined)?.points ?? []).map((p) => ({ x: p.x, y: p.y })) })),
    width: size.width ?? 0,
    height: size.height ?? 0,
  };
}
