// `swarm tasks` as a table (id, status, owner, subject, blocked by: the blockers still open) with
// the list's progress below, and one task in full for `swarm tasks show`. Pure: tasks in, lines out.
import type { Task, TaskStatus } from '../../protocol/task.js';
import { oneLine } from '../../protocol/text.js';
import { chalk } from './render.js';
import { renderTable, type Cell } from './table.js';

const HEADERS = ['ID', 'STATUS', 'OWNER', 'SUBJECT', 'BLOCKED BY'];

function statusStyle(status: TaskStatus): (s: string) => string {
  if (status === 'completed') return chalk.green;
  if (status === 'in_progress') return chalk.cyan;
  return (s) => s;
}

/** The ids in `t.blockedBy` whose task exists and is not completed. */
export function openBlockers(t: Task, byId: ReadonlyMap<string, Task>): string[] {
  return t.blockedBy.filter((b) => {
    const blocker = byId.get(b);
    return blocker !== undefined && blocker.status !== 'completed';
  });
}

export function renderTaskTable(tasks: readonly Task[]): string[] {
  if (tasks.length === 0) return [chalk.dim('no tasks; add one with: swarm tasks add "<subject>"')];
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const rows: Cell[][] = tasks.map((t) => [
    { text: t.id },
    { text: t.status, style: statusStyle(t.status) },
    { text: t.owner ?? '-', ...(t.owner ? {} : { style: chalk.dim }) },
    { text: oneLine(t.subject, 60) },
    { text: openBlockers(t, byId).join(',') || '-', ...(openBlockers(t, byId).length > 0 ? { style: chalk.yellow } : { style: chalk.dim }) },
  ]);
  const [header, ...body] = renderTable([HEADERS.map((h) => ({ text: h })), ...rows]);
  const done = tasks.filter((t) => t.status === 'completed').length;
  return [chalk.bold(header!), ...body, chalk.dim(`${done}/${tasks.length} done`)];
}

export function renderTask(t: Task): string[] {
  const lines = [
    `${chalk.bold(`task ${t.id}`)}  ${statusStyle(t.status)(t.status)}${t.owner ? `  owner ${t.owner}` : ''}`,
    `subject      ${t.subject}`,
  ];
  if (t.activeForm) lines.push(`active form  ${t.activeForm}`);
  if (t.blockedBy.length > 0) lines.push(`blocked by   ${t.blockedBy.join(', ')}`);
  if (t.blocks.length > 0) lines.push(`blocks       ${t.blocks.join(', ')}`);
  if (t.metadata && Object.keys(t.metadata).length > 0) lines.push(`metadata     ${JSON.stringify(t.metadata)}`);
  if (t.description.trim() !== '') lines.push('', ...t.description.split('\n'));
  return lines;
}
