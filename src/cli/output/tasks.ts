// `swarm tasks` as a table (id, status, owner, subject, blocked by: the blockers still open; all
// tasks or those of one status) with the whole list's progress below (Claude Code's internal tasks left out, as its TaskList leaves them out), and one task in full for `swarm tasks show`. Pure: tasks in, lines out.
import type { Task, TaskStatus } from '../../protocol/task.js';
import { isInternalTask } from '../../tasks/index.js';
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

/**
 * The table of the `shown` tasks (default: all) but Claude Code's internal ones (`metadata._internal`,
 * hidden by its TaskList too), with the progress of the whole list below.
 */
export function renderTaskTable(all: readonly Task[], shown: readonly Task[] = all): string[] {
  const tasks = all.filter((t) => !isInternalTask(t));
  const rowsOf = shown.filter((t) => !isInternalTask(t));
  const hidden = shown.length - rowsOf.length;
  const note = hidden > 0 ? [chalk.dim(`${hidden} internal task${hidden === 1 ? '' : 's'} of Claude Code not shown (swarm tasks --json has them)`)] : [];
  if (tasks.length === 0) return [chalk.dim('no tasks; add one with: swarm tasks add "<subject>"'), ...note];
  const done = tasks.filter((t) => t.status === 'completed').length;
  const progress = chalk.dim(`${done}/${tasks.length} done`);
  if (rowsOf.length === 0) return [chalk.dim('no tasks with that status'), progress, ...note];
  const byId = new Map(all.map((t) => [t.id, t]));
  // A task blocked after it was claimed says so where its status is read.
  const statusText = (t: Task): string => (t.status === 'in_progress' && openBlockers(t, byId).length > 0 ? 'in_progress, blocked' : t.status);
  const rows: Cell[][] = rowsOf.map((t) => [
    { text: t.id },
    { text: statusText(t), style: statusStyle(t.status) },
    { text: t.owner ?? '-', ...(t.owner ? {} : { style: chalk.dim }) },
    { text: oneLine(t.subject, 60) },
    { text: openBlockers(t, byId).join(',') || '-', ...(openBlockers(t, byId).length > 0 ? { style: chalk.yellow } : { style: chalk.dim }) },
  ]);
  const [header, ...body] = renderTable([HEADERS.map((h) => ({ text: h })), ...rows]);
  return [chalk.bold(header!), ...body, progress, ...note];
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
