// Human output for permission requests: one header line (id, worker in its colour, tool, age,
// orphaned) and the input in a readable form — the Bash command, or the file path and a short
// unified diff (from the `diff` package) for Edit/MultiEdit/Write. Shared by `swarm permissions`
// and the leader console.
import { structuredPatch } from 'diff';
import type { PendingView } from '../../permissions/pending-list.js';
import { oneLine } from '../../protocol/text.js';
import { isTool } from '../../protocol/tool-names.js';
import { formatAge } from './age.js';
import { chalk, describeToolInput, paint } from './render.js';

const MAX_LINES = 4;
const MAX_DIFF_LINES = 8;

function str(input: Record<string, unknown>, key: string): string | undefined {
  const v = input[key];
  return typeof v === 'string' ? v : undefined;
}

function moreLines(n: number): string {
  return chalk.dim(`  … ${n} more line${n === 1 ? '' : 's'}`);
}

function clip(text: string, mark: string, paintLine: (s: string) => string): string[] {
  const lines = text.split('\n');
  const shown = lines.slice(0, MAX_LINES).map((l) => paintLine(`${mark}${l}`));
  if (lines.length > MAX_LINES) shown.push(moreLines(lines.length - MAX_LINES));
  return shown;
}

function paintDiffLine(line: string): string {
  if (line.startsWith('-')) return chalk.red(line);
  if (line.startsWith('+')) return chalk.green(line);
  return chalk.dim(line);
}

/**
 * Old → new as a unified diff (one line of context, `-` red, `+` green, `@@` between hunks), cut
 * after MAX_DIFF_LINES lines with "… N more lines". Write passes `''` as the old text.
 */
export function shortDiff(oldText: string, newText: string): string[] {
  const { hunks } = structuredPatch('', '', oldText, newText, undefined, undefined, { context: 1 });
  if (hunks.length === 0) return [chalk.dim('(no change)')];
  const lines = hunks.flatMap((h, i) => [
    ...(i === 0 ? [] : [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`]),
    // `\ No newline at end of file` says nothing useful about a fragment of a file.
    ...h.lines.filter((l) => !l.startsWith('\\')),
  ]);
  const shown = lines.slice(0, MAX_DIFF_LINES).map(paintDiffLine);
  if (lines.length > MAX_DIFF_LINES) shown.push(moreLines(lines.length - MAX_DIFF_LINES));
  return shown;
}

/** The tool input as readable lines (no indentation). */
export function describeRequestInput(toolName: string, input: Record<string, unknown>): string[] {
  const file = str(input, 'file_path') ?? str(input, 'notebook_path');
  if (isTool(toolName, 'Bash')) {
    const command = str(input, 'command') ?? '';
    const [first = '', ...rest] = clip(command, '', (s) => s);
    return [`$ ${first}`, ...rest.map((l) => `  ${l}`)];
  }
  if (isTool(toolName, 'Edit') && file) {
    return [file, ...shortDiff(str(input, 'old_string') ?? '', str(input, 'new_string') ?? '')];
  }
  if (isTool(toolName, 'MultiEdit') && file && Array.isArray(input.edits)) {
    const edits = input.edits.filter((e): e is Record<string, unknown> => typeof e === 'object' && e !== null);
    const first = edits[0];
    const diff = first ? shortDiff(str(first, 'old_string') ?? '', str(first, 'new_string') ?? '') : [];
    return [`${file} (${edits.length} edit${edits.length === 1 ? '' : 's'})`, ...diff];
  }
  if (isTool(toolName, 'Write') && file) {
    const content = str(input, 'content') ?? '';
    return [file, ...(content === '' ? [chalk.dim('(empty file)')] : shortDiff('', content))];
  }
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
