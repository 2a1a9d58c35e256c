// A verifier's verdict (docs/protocol.md#agent-types-and-worktrees): a teammate's plain message or idle summary whose last line is
// `VERDICT: PASS|FAIL|PARTIAL` is shown as a line of its own, `verdict: PASS (verifier)` — by the
// console (highlighted) and by the headless run, once per verdict (VerdictTracker).
import { verdictOf, type Verdict } from '../../protocol/agent-type.js';
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';
import { chalk } from './render.js';

/** The verdict an inbox entry carries: a plain message's text, or an idle notification's summary. */
export function entryVerdict(m: InboxMessage): Verdict | undefined {
  const parsed = parseControl(m.text);
  if (parsed.kind === 'text') return verdictOf(m.text);
  if (parsed.kind === 'control' && parsed.message.type === 'idle_notification') return verdictOf(parsed.message.summary ?? '');
  return undefined;
}

/**
 * The verdicts to show, once each: a verifier usually ends both its SendMessage and its turn (the
 * idle summary) with the verdict, so an idle summary repeating the verdict of the sender's last
 * message is not shown again.
 */
export class VerdictTracker {
  private readonly messaged = new Map<string, Verdict>();

  /** The verdict to show for this entry, if any. */
  next(m: InboxMessage): Verdict | undefined {
    const v = entryVerdict(m);
    const idle = parseControl(m.text).kind === 'control';
    const said = this.messaged.get(m.from);
    this.messaged.delete(m.from);
    if (v !== undefined && !idle) this.messaged.set(m.from, v);
    return idle && v === said ? undefined : v;
  }
}

/** `verdict: PASS (verifier)`; `highlight` colours it (green, red, yellow) and makes it bold. */
export function verdictLine(v: Verdict, from: string, highlight = false): string {
  const text = `verdict: ${v} (${from})`;
  if (!highlight) return text;
  const colour = v === 'PASS' ? chalk.green : v === 'FAIL' ? chalk.red : chalk.yellow;
  return colour.bold(`★ ${text}`);
}
