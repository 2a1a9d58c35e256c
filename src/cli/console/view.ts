// What the leader console prints, pure (strings in, strings out): the compact status line, the
// question shown for a permission or plan request with its key hints, and the prompt text.
import { stripVTControlCharacters } from 'node:util';
import type { ControlMessage } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { oneLine } from '../../protocol/text.js';
import { chalk, describeControl, describeToolInput, paint } from '../output/render.js';
import { renderPending } from '../output/permission.js';
import { formatCount, progressLabel, taskLabel } from '../output/status.js';
import type { CollectedStatus, MemberState } from '../../teammates/status-report.js';
import type { Question } from './prompt-queue.js';

const STATE_STYLE: Partial<Record<MemberState, (s: string) => string>> = {
  working: chalk.cyan,
  waiting_permission: chalk.yellow.bold,
  waiting_budget: chalk.yellow.bold,
  idle: chalk.dim,
  dead: chalk.red.bold,
  stopped: chalk.red.bold,
  stale: chalk.yellow,
  exiting: chalk.dim,
  hibernating: chalk.blue,
};

const STATE_WORD: Partial<Record<MemberState, string>> = { waiting_permission: 'waiting', waiting_budget: 'at the budget' };

/** `── w1 working #3 Parse args · w2 idle · tasks 1/4 done · 1 pending` (teammates only; the leader is this console). */
export function statusLine(s: CollectedStatus, pending: number, figures = true): string {
  const parts: string[] = [];
  s.report.members.forEach((m, i) => {
    if (m.name === LEAD_NAME) return;
    const word = STATE_WORD[m.state] ?? m.state;
    const style = STATE_STYLE[m.state] ?? ((x: string) => x);
    const task = m.task === null ? '' : ` ${chalk.dim(taskLabel(m.task))}`;
    parts.push(`${paint(s.details[i]?.color, m.name)} ${style(word)}${task}${figures ? progressFigures(m) : ''}`);
  });
  const who = parts.length > 0 ? parts.join(chalk.dim(' · ')) : chalk.dim('no teammates (/spawn <name> <prompt> adds one)');
  const tasks = s.report.tasks.total > 0 ? chalk.dim(` · tasks ${progressLabel(s.report.tasks)}`) : '';
  const waiting = pending > 0 ? chalk.yellow.bold(` · ${pending} pending`) : '';
  return `${chalk.dim('──')} ${who}${tasks}${waiting}`;
}

/** ` (12 tools, 34%, 3.1k out)`: a teammate's progress so far, when its status file reports it. */
function progressFigures(m: CollectedStatus['report']['members'][number]): string {
  if (m.toolUses === null || m.contextPercent === null || (m.toolUses === 0 && !m.outputTokens)) return '';
  return chalk.dim(` (${m.toolUses} tool${m.toolUses === 1 ? '' : 's'}, ${m.contextPercent}%, ${formatCount(m.outputTokens ?? 0)} out)`);
}

/**
 * The line without colours and without the figures that move with every step, to tell whether it
 * changed: a new state, task or question is news; one more tool use is not (the line printed then
 * carries the figures as they are).
 */
export function statusKey(s: CollectedStatus, pending: number): string {
  return stripVTControlCharacters(statusLine(s, pending, false));
}

function clock(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toTimeString().slice(0, 8);
}

/** A control frame as one event line: `HH:MM:SS ◆ writer is idle: …` (the marker in the sender's colour). */
export function eventLine(m: InboxMessage, c: ControlMessage): string {
  return `${chalk.dim(clock(m.timestamp))} ${paint(m.color, '◆')} ${chalk.italic(describeControl(c, m.from))}`;
}

const PLAN_LINES = 12;

/** The question as lines: what is asked, then the keys. */
export function questionLines(q: Question, more: number): string[] {
  const queued = more > 0 ? chalk.dim(`  (+${more} more waiting)`) : '';
  if (q.kind === 'permission') {
    return [
      `${chalk.yellow.bold('? permission')}${queued}`,
      renderPending(q.request),
      `  ${chalk.bold('[y]')} allow once  ${chalk.bold('[a]')} always  ${chalk.bold('[n]')} deny (feedback)`,
    ];
  }
  if (q.kind === 'limit') {
    return [`${chalk.yellow.bold('? limit reached')}: ${q.hit.why}${queued}`, `  ${chalk.bold('[y]')} go on (the limit grows by as much again)  ${chalk.bold('[n]')} stop the run`];
  }
  const plan = q.request.planContent.split('\n');
  const shown = plan.slice(0, PLAN_LINES).map((l) => `    ${l}`);
  if (plan.length > PLAN_LINES) shown.push(chalk.dim(`    … ${plan.length - PLAN_LINES} more lines${q.request.planFilePath ? ` in ${q.request.planFilePath}` : ''}`));
  return [
    `${chalk.yellow.bold('? plan')} from ${chalk.bold(q.from)} ${chalk.dim(`[${q.id}]`)}${queued}`,
    ...shown,
    `  ${chalk.bold('[y]')} approve  ${chalk.bold('[n]')} reject (feedback)`,
  ];
}

export type PromptMode = { kind: 'command' } | { kind: 'question'; question: Question } | { kind: 'feedback'; question: Question } | { kind: 'confirm-quit' };

function promptInput(toolName: string, input: Record<string, unknown>): string {
  const what = oneLine(describeToolInput(toolName, input), 40);
  return what === '' ? '' : `: ${what}`;
}

export function promptText(mode: PromptMode): string {
  switch (mode.kind) {
    case 'command':
      return `${chalk.bold('lead')}> `;
    case 'question':
      // The prompt says what is asked, so the question stays readable at the bottom of the screen.
      if (mode.question.kind === 'limit') return `${chalk.yellow(`lead over --${mode.question.hit.kind}`)} [y/n]> `;
      return mode.question.kind === 'permission'
        ? `${chalk.yellow(`${oneLine(mode.question.request.workerName, 20)} ${mode.question.request.toolName}${promptInput(mode.question.request.toolName, mode.question.request.input)}`)} [y/a/n]> `
        : `${chalk.yellow(`plan of ${oneLine(mode.question.from, 20)}`)} [y/n]> `;
    case 'feedback':
      return `${chalk.red(mode.question.kind === 'plan' ? 'reject' : 'deny')} feedback (Enter for none)> `;
    case 'confirm-quit':
      return `${chalk.yellow('shut the team down?')} [y] shut down all and exit  [n] back> `;
  }
}
