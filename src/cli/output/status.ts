// `swarm status` as a table: member (in its colour), backend, pane, pid (✓ alive / ✗ dead), state,
// current task (`#3 subject`), last heartbeat (age), unread, pending permissions, tool uses,
// context use (% of its model's window), tokens in/out (its prompt now / output so far), cost; the
// task list's progress (`3/7 done`) in the title line; the team total under the table, then each
// member's last activities. Pure: report in, lines out; widths are measured on the plain text, so colours
// never break the alignment.
import { oneLine } from '../../protocol/text.js';
import { formatAge } from './age.js';
import { chalk, paint } from './render.js';
import { renderTable, type Cell } from './table.js';
import type { CollectedStatus, MemberState, MemberStatus, StatusTotal } from '../../teammates/status-report.js';

/** 950 → "950", 12_345 → "12.3k", 2_500_000 → "2.5M". */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0).replace(/\.0$/, '')}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** 0 → "$0", 0.0042 → "$0.0042", 0.4123 → "$0.41", 12.5 → "$12.50". */
export function formatUsd(n: number): string {
  if (n === 0) return '$0';
  return `$${n.toFixed(n < 0.01 ? 4 : 2)}`;
}

/**
 * `tokens 41k/6.2k · $0.41 + tokens of 1 unpriced member`; with no priced spend at all, only
 * unpriced tokens (the demo's stand-in model, a model with no list price), no `$` figure:
 * `tokens 41k/6.2k · 2 unpriced members`.
 */
export function totalLabel(t: StatusTotal): string {
  const tokens = `tokens ${formatCount(t.inputTokens)}/${formatCount(t.outputTokens)}`;
  const members = `${t.unpricedMembers} unpriced member${t.unpricedMembers === 1 ? '' : 's'}`;
  if (t.unpricedMembers > 0 && t.costUsd === 0) return `${tokens} · ${members}`;
  return `${tokens} · ${formatUsd(t.costUsd)}${t.unpricedMembers === 0 ? '' : ` + tokens of ${members}`}`;
}

function stateStyle(state: MemberState): (s: string) => string {
  switch (state) {
    case 'working':
    case 'leading':
      return chalk.green;
    case 'waiting_permission':
    case 'waiting_budget':
    case 'stale':
      return chalk.yellow;
    case 'dead':
    case 'stopped':
      return chalk.red.bold;
    case 'starting':
    case 'exiting':
      return chalk.cyan;
    case 'hibernating':
      return chalk.blue;
    default:
      return chalk.dim;
  }
}

/** The state, and for a hibernating member since when: `hibernating 12m`. */
export function stateLabel(m: Pick<MemberStatus, 'state' | 'hibernatingSince'>, now: number): string {
  return m.hibernatingSince === null ? m.state : `${m.state} ${formatAge(now - m.hibernatingSince)}`;
}

const HEADERS = ['MEMBER', 'BACKEND', 'PANE', 'PID', 'STATE', 'TASK', 'HEARTBEAT', 'UNREAD', 'PERMS', 'TOOLS', 'CTX', 'TOKENS in/out', 'COST'];

const TASK_CHARS = 32;

/** `#3 Write the parser` (cut to fit a column), or `-`. */
export function taskLabel(task: { id: string; subject: string } | null): string {
  return task === null ? '-' : oneLine(`#${task.id} ${task.subject}`, TASK_CHARS);
}

/** `3/7 done`. */
export function progressLabel(p: { done: number; total: number }): string {
  return `${p.done}/${p.total} done`;
}

function rows(s: CollectedStatus, now: number): Cell[][] {
  return s.report.members.map((m, i) => {
    const d = s.details[i]!;
    const paneNote = d.pane === 'gone' ? ' (gone)' : d.pane === 'dead' ? ' (exited)' : '';
    const pid = m.pid === null ? '-' : `${m.pid} ${d.pidAlive === false ? '✗' : d.pidAlive === true ? '✓' : '?'}`;
    const tokens = m.inputTokens === null && m.outputTokens === null ? '-' : `${formatCount(m.inputTokens ?? 0)}/${formatCount(m.outputTokens ?? 0)}`;
    return [
      { text: m.name, style: (t) => paint(d.color, t) },
      { text: m.host === null ? (m.backendType ?? '-') : `${m.backendType ?? '-'} ${m.host}` },
      { text: `${m.paneId ?? '-'}${paneNote}`, ...(paneNote ? { style: chalk.red } : {}) },
      { text: pid, ...(d.pidAlive === false ? { style: chalk.red } : {}) },
      { text: stateLabel(m, now), style: stateStyle(m.state) },
      { text: taskLabel(m.task) },
      { text: m.heartbeatAt === null ? '-' : `${formatAge(now - m.heartbeatAt)} ago` },
      { text: m.unread === null ? '?' : String(m.unread), ...(m.unread ? { style: chalk.bold } : {}) },
      { text: String(m.pendingPermissions), ...(m.pendingPermissions > 0 ? { style: chalk.yellow.bold } : {}) },
      { text: m.toolUses === null ? '-' : String(m.toolUses) },
      { text: m.contextPercent === null ? '-' : `${m.contextPercent}%`, ...(m.contextPercent !== null && m.contextPercent >= 80 ? { style: chalk.yellow } : {}) },
      { text: tokens },
      { text: m.costUsd !== null ? formatUsd(m.costUsd) : tokens === '-' ? '-' : 'unpriced', ...(m.costUsd === null && tokens !== '-' ? { style: chalk.dim } : {}) },
    ];
  });
}

/** Each member's last activities, oldest first: `w1  Read src/a.ts · Bash: npm test · Edit src/a.ts`. */
function activityLines(s: CollectedStatus): string[] {
  const busy = s.report.members.map((m, i) => ({ m, color: s.details[i]?.color })).filter(({ m }) => m.activities.length > 0);
  if (busy.length === 0) return [];
  const width = Math.max(...busy.map(({ m }) => m.name.length));
  return [chalk.dim('recent'), ...busy.map(({ m, color }) => `  ${paint(color, m.name.padEnd(width))}  ${chalk.dim(m.activities.map((a) => oneLine(a, 60)).join(' · '))}`)];
}

/** The status table and its hints, as lines (no trailing newline). */
export function renderStatus(s: CollectedStatus, now: number): string[] {
  const [header, ...body] = renderTable([HEADERS.map((h) => ({ text: h })), ...rows(s, now)]);
  const teammates = s.report.members.length - 1;
  const out = [
    `${chalk.bold(`team ${s.report.team}`)}  ${chalk.dim(`backend ${s.report.backend ?? '-'} · ${teammates} teammate${teammates === 1 ? '' : 's'} · tasks ${progressLabel(s.report.tasks)}`)}`,
    chalk.dim(header!),
    ...body,
    `${chalk.bold('total')}  ${totalLabel(s.report.total)}`,
    ...activityLines(s),
  ];
  for (const m of s.report.members) {
    if (m.resumeCommand === null) continue;
    const orphaned = m.pendingPermissions === 0 ? '' : `; its ${m.pendingPermissions} pending permission request${m.pendingPermissions === 1 ? ' is' : 's are'} orphaned (see swarm permissions)`;
    out.push(chalk.red(`stopped: ${m.name} (its process and pane are gone; inbox, tasks and conversation kept) — resume with: ${m.resumeCommand}${orphaned}`));
  }
  const dead = s.report.members.filter((m) => m.state === 'dead').map((m) => m.name);
  if (dead.length > 0) {
    out.push(chalk.red(`dead: ${dead.join(', ')} — its pane is gone but its process lives; remove with 'swarm kill <name>', or mark inactive with 'swarm doctor --fix'`));
  }
  if (s.report.members.some((m) => m.state === 'stale')) {
    out.push(chalk.yellow(`stale: no heartbeat for over 30 s while the process lives (hung?); look at its pane or logs/<name>.jsonl`));
  }
  for (const w of s.warnings) out.push(chalk.yellow(`warning: ${w}`));
  return out;
}
