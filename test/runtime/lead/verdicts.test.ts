// A verifier's verdict in team-lead's inbox (SPEC §10): read from a plain message's or an idle
// notification's last line, reported once (an idle summary repeating the message's verdict is not
// reported again).
import { describe, expect, it } from 'vitest';
import type { InboxMessage } from '../../../src/protocol/message.js';
import { entryVerdict, VerdictTracker } from '../../../src/runtime/lead/verdicts.js';

const at = '2026-12-04T10:00:00.000Z';
const text = (from: string, body: string): InboxMessage => ({ from, text: body, timestamp: at, read: false });
const idle = (from: string, summary: string): InboxMessage => text(from, JSON.stringify({ type: 'idle_notification', from, timestamp: at, idleReason: 'available', summary }));

describe('verdicts', () => {
  it('from the last line of a message or an idle summary; not from elsewhere', () => {
    expect(entryVerdict(text('verifier', 'Tests pass, docs match.\nVERDICT: PASS'))).toBe('PASS');
    expect(entryVerdict(idle('verifier', 'Two checks fail.\nVERDICT: FAIL'))).toBe('FAIL');
    expect(entryVerdict(text('verifier', 'VERDICT: PASS\nwait, one more thing'))).toBeUndefined();
    expect(entryVerdict(text('w1', JSON.stringify({ type: 'shutdown_approved', requestId: 'r', from: 'w1', timestamp: at })))).toBeUndefined();
  });

  it('shown once when the idle summary repeats the message; a new verdict shows again', () => {
    const t = new VerdictTracker();
    expect(t.next(text('verifier', 'report\nVERDICT: PARTIAL'))).toBe('PARTIAL');
    expect(t.next(idle('verifier', 'report\nVERDICT: PARTIAL'))).toBeUndefined();
    expect(t.next(text('verifier', 're-checked\nVERDICT: PASS'))).toBe('PASS');
    expect(t.next(idle('other', 'VERDICT: FAIL'))).toBe('FAIL');
  });
});
