// Human output for permission requests: one header line (id, worker in its colour, tool, age,
// orphaned) and the input in a readable form — the Bash command, or the file path and a short
// -/+ diff for Edit/MultiEdit/Write. Shared by `swarm permissions` and the leader console.
import type { PendingView } from '../../permissions/pending-list.js';
import { oneLine } from '../../protocol/text.js';
import { chalk, describeToolInput, paint } from './render.js';

const MAX_LINES = 4;

/** `850ms` → `0s`, `12s`, `3m05s`, `2h07m`. */
export function formatAge(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

function str(input: Record<string, unknown>, key: string): string | undefined {
  const v = input[key];
  return typeof v === 'string' ? v : undefined;
}

function clip(text: string, mark: string, paintLine: (s: string) => string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, MAX_LINES).map((l) => paintLine(`${mark}${l}`));
  if (lines.length > MAX_LINES) shown.push(chalk.dim(`  … ${lines.length - MAX_LINES} more line${lines.length - MAX_LINES === 1 ? '' : 's'}`));
  return shown;
}

/** Old → new as the first lines of each, `-` red and `+` green. */
export function shortDiff(oldText: string, newText: string): string[] {
  return [...(oldText === '' ? [] : clip(oldText, '- ', chalk.red)), ...clip(newText, '+ ', chalk.green)];
}

/** The tool input as readable lines (no indentation). */
export function describeRequestInput(toolName: string, input: Record<string, unknown>): string[] {
  const file = str(input, 'file_path') ?? str(input, 'notebook_path');
  if (toolName === 'Bash') {
    const command = str(input, 'command') ?? '';
    const [first = '', ...rest] = clip(command, '', (s) => s);
    return [`$ ${first}`, ...rest.map((l) => `  ${l}`)];
  }
  if (toolName === 'Edit' && file) {
    return [file, ...shortDiff(str(input, 'old_string') ?? '', str(input, 'new_string') ?? '')];
  }
  if (toolName === 'MultiEdit' && file && Array.isArray(input.edits)) {
    const edits = input.edits.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
    const first = edits[0];
    const diff = first ? shortDiff(str(first, 'old_string') ?? '', str(first, 'new_string') ?? '') : [];
    return [`${file} (${edits.length} edit${edits.length === 1 ? '' : 's'})`, ...diff];
  }
  if (toolName === 'Write' && file) return [file, ...clip(str(input, 'content') ?? '', '+ ', chalk.green)];
  const what = describeToolInput(toolName, input);
  return what ? [oneLine(what, 200)] : [];
}

/** A pending request for the leader: header line plus indented input lines. */
export function renderPending(p: PendingView): string {
  const flags = [p.orphaned ? chalk.red.bold('orphaned') : '', p.source === 'inbox' ? chalk.dim('(via inbox)') : ''].filter(Boolean);
  const head = `${chalk.dim(p.id)}  ${paint(p.workerColor, p.workerName)}  ${chalk.bold(p.toolName)}  ${formatAge(p.ageMs)}${flags.length ? `  ${flags.join(' ')}` : ''}`;
  const body = describeRequestInput(p.toolName, p.input);
  if (p.description && p.description !== body[0]) body.push(chalk.dim(oneLine(p.description, 200)));
  return [head, ...body.map((l) => `    ${l}`)].join('\n');
}
