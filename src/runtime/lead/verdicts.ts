// A verifier's verdict (docs/protocol.md#agent-types-and-worktrees) in team-lead's inbox: a teammate's plain message or idle summary
// whose last line is `VERDICT: PASS|FAIL|PARTIAL`, reported once per verdict (VerdictTracker). The
// lead's inbox rule (inbox-rule.ts) asks it; each front end words it (cli/output/verdict.ts).
import { verdictOf, type Verdict } from '../../protocol/agent-type.js';
import { parseControl } from '../../protocol/control.js';
import type { InboxMessage } from '../../protocol/message.js';

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
