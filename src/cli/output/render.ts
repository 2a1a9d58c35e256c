// Human output: colours by member colour (the level from output/color.ts: NO_COLOR, FORCE_COLOR,
// --color / --no-color, a terminal or not), inbox entries as `time  sender › text`, control frames
// as one-line events.
import { Chalk, type ChalkInstance } from 'chalk';
import { parseControl, type ControlMessage } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { oneLine } from '../../protocol/text.js';
import { isTool } from '../../protocol/tool-names.js';
import { painter } from '../../team/paint.js';
import { decideColorLevel, exportColorChoice, type ColorLevel } from './color.js';

/** Every CLI output's chalk; its level comes from the environment until `applyColorFlag` runs. */
export const chalk: ChalkInstance = new Chalk({ level: decideColorLevel({ env: process.env, isTTY: Boolean(process.stdout.isTTY) }) });

/** Set the colour level once at CLI start (`--color` / `--no-color`, else the environment and whether stdout is a terminal). */
export function applyColorFlag(flag: boolean | undefined, env: NodeJS.ProcessEnv, isTTY: boolean): ColorLevel {
  const level = decideColorLevel({ flag, env, isTTY });
  chalk.level = level;
  exportColorChoice(flag, level, env);
  return level;
}

export function paint(color: string | undefined, text: string): string {
  return painter(chalk, color)(text);
}

/** The most telling part of a tool input: the Bash command, the file path, the pattern. */
export function describeToolInput(tool: string, input: Record<string, unknown>): string {
  const str = (k: string): string | undefined => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  if (isTool(tool, 'Bash')) return str('command') ?? '';
  const file = str('file_path') ?? str('path') ?? str('notebook_path');
  const pattern = str('pattern');
  if (file && pattern) return `${pattern} in ${file}`;
  return file ?? pattern ?? oneLine(JSON.stringify(input), 120);
}

/** A control message as one readable event line (no colour, no time). */
export function describeControl(m: ControlMessage, from: string): string {
  switch (m.type) {
    case 'permission_request': {
      const what = describeToolInput(m.tool_name, m.input);
      return isTool(m.tool_name, 'Bash')
        ? `${m.agent_id || from} asks to run Bash: ${oneLine(what)} [${m.request_id}]`
        : `${m.agent_id || from} asks to use ${m.tool_name}${what ? `: ${oneLine(what)}` : ''} [${m.request_id}]`;
    }
    case 'permission_response':
      return m.subtype === 'success'
        ? `permission ${m.request_id} approved`
        : `permission ${m.request_id} denied${m.error ? `: ${oneLine(m.error)}` : ''}`;
    case 'shutdown_request':
      return `${m.from} asks to shut down${m.reason ? `: ${oneLine(m.reason)}` : ''} [${m.requestId}]`;
    case 'shutdown_approved':
      return m.graceExpired === true
        ? `${m.from} did not answer the shutdown request; it exited when its grace period ended [${m.requestId}]`
        : `${m.from} approved shutdown [${m.requestId}]`;
    case 'shutdown_rejected':
      return `${m.from} rejected shutdown: ${oneLine(m.reason)} [${m.requestId}]`;
    case 'plan_approval_request':
      return `${m.from} asks to approve a plan (${m.planContent.split('\n').length} lines) [${m.requestId}]`;
    case 'plan_approval_response':
      return `plan ${m.approved ? 'approved' : 'rejected'}${m.feedback ? `: ${oneLine(m.feedback)}` : ''} [${m.requestId}]`;
    case 'idle_notification':
      if (m.idleReason === 'failed') return `${m.from} failed${m.failureReason ? `: ${oneLine(m.failureReason)}` : ''}`;
      return `${m.from} is idle${m.idleReason === 'interrupted' ? ' (interrupted)' : ''}${m.summary ? `: ${oneLine(m.summary)}` : ''}`;
    case 'mode_set_request':
      return `${m.from} sets permission mode to ${m.mode}`;
    case 'task_assignment':
      return `${m.assignedBy || from} assigned task #${m.taskId}: ${oneLine(m.subject)}`;
  }
}

function clock(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toTimeString().slice(0, 8);
}

/** One or more lines for an inbox entry: `HH:MM:SS sender › text`; events are dim/italic-free one-liners. */
export function renderMessage(m: InboxMessage): string {
  const head = `${chalk.dim(clock(m.timestamp))} ${paint(m.color, m.from)}`;
  const unread = m.read ? '' : chalk.bold('● ');
  const parsed = parseControl(m.text);
  if (parsed.kind === 'control') {
    const event = describeControl(parsed.message, m.from);
    // "w1 is idle" already names its sender: say it once, in the sender's colour.
    if (event.startsWith(`${m.from} `)) return `${chalk.dim(clock(m.timestamp))} ${unread}${paint(m.color, m.from)} ${chalk.italic(event.slice(m.from.length + 1))}`;
    return `${head} ${unread}${chalk.italic(event)}`;
  }
  if (parsed.kind === 'unknown') return `${head} ${unread}${chalk.italic(`[${parsed.type}] ${oneLine(m.text)}`)}`;
  const summary = m.summary ? `${chalk.bold(m.summary)}: ` : '';
  const lines = m.text.split('\n');
  const first = `${head} › ${unread}${summary}${lines[0] ?? ''}`;
  return [first, ...lines.slice(1).map((l) => `    ${l}`)].join('\n');
}
