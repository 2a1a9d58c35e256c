// Judging what claims to be the leader's answer (permissions/answer.ts), pure: a resolved record is
// accepted only when signed by the team's key AND about this very request (each differing field
// named); a response frame only from team-lead, signed, and bound to the asked input; the answer
// carries exactly what the leader decided; an unsigned frame counts only for a Claude Code teammate.
import { describe, expect, it } from 'vitest';
import { DEFAULT_DENY_FEEDBACK, findResponseFrame, judgeResolved, priorResponse, sameJson, type AskedRequest } from '../../src/permissions/answer.js';
import { generateLeadKeyPair, inputDigest, parseVerifyKey, signEntry, signRecord } from '../../src/permissions/signing.js';
import { encodeControl, type PermissionResponseFrame } from '../../src/protocol/control.js';
import type { InboxMessage } from '../../src/protocol/message.js';

const lead = generateLeadKeyPair(1_000);
const other = generateLeadKeyPair(1_000);
const key = parseVerifyKey(lead.verifyKey);

const asked: AskedRequest = { id: 'perm-1-abc', teamName: 't', workerName: 'w1', toolName: 'Bash', toolUseId: 'toolu_1', input: { command: 'npm test' } };

function record(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: asked.id,
    workerId: 'w1@t',
    workerName: 'w1',
    teamName: 't',
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    input: { command: 'npm test' },
    status: 'approved',
    resolvedBy: 'team-lead',
    resolvedAt: 2_000,
    ...extra,
  };
}
const signedText = (r: Record<string, unknown>, by = lead): string => JSON.stringify(signRecord(r, by.privateKey));

describe('judgeResolved', () => {
  it('refuses what is not a signed JSON object, saying which', () => {
    expect(judgeResolved('{', asked, key)).toEqual({ ok: false, reason: 'not JSON' });
    for (const text of ['[]', 'null', '"x"', '3']) expect(judgeResolved(text, asked, key), text).toEqual({ ok: false, reason: 'not a JSON object' });
    expect(judgeResolved(JSON.stringify(record()), asked, key)).toEqual({ ok: false, reason: 'unsigned' });
    expect(judgeResolved(JSON.stringify({ ...record(), signature: 7 }), asked, key)).toEqual({ ok: false, reason: 'unsigned' });
    const bad = { ok: false, reason: 'signature does not verify (wrong key, or content changed after signing)' };
    expect(judgeResolved(signedText(record(), other), asked, key)).toEqual(bad);
    expect(judgeResolved(JSON.stringify({ ...JSON.parse(signedText(record())), status: 'rejected' }), asked, key)).toEqual(bad);
  });

  it('refuses a signed record of the wrong shape, naming the problem', () => {
    const verdict = judgeResolved(signedText(record({ status: 'maybe' })), asked, key);
    expect(verdict.ok).toBe(false);
    expect(!verdict.ok && verdict.reason).toMatch(/^unexpected shape: .*"approved"/); // zod's words, which name the statuses
  });

  it('refuses a signed record for another request, naming every field that differs', () => {
    expect(judgeResolved(signedText(record({ id: 'perm-2-def' })), asked, key)).toEqual({ ok: false, reason: 'signed, but for a different request (id differ)' });
    const all = record({ id: 'perm-9', teamName: 'u', workerName: 'w2', toolName: 'Edit', toolUseId: 'toolu_2', input: { command: 'npm test; curl x' } });
    expect(judgeResolved(signedText(all), asked, key)).toEqual({
      ok: false,
      reason: 'signed, but for a different request (id, teamName, workerName, toolName, toolUseId, input differ)',
    });
    // The input is compared as canonical JSON: key order does not matter.
    const reordered = { ...asked, input: { b: 2, a: 1 } };
    expect(judgeResolved(signedText(record({ input: { a: 1, b: 2 } })), reordered, key).ok).toBe(true);
  });

  it('an approval carries who decided and exactly the optional parts the record has', () => {
    expect(judgeResolved(signedText(record()), asked, key)).toEqual({ ok: true, answer: { decision: 'allow', by: 'team-lead' } });
    const full = record({ resolvedBy: 'rule', updatedInput: { command: 'npm test -- --run' }, feedback: 'go', permissionUpdates: [{ type: 'addRules' }] });
    expect(judgeResolved(signedText(full), asked, key)).toEqual({
      ok: true,
      answer: { decision: 'allow', by: 'rule', updatedInput: { command: 'npm test -- --run' }, feedback: 'go', permissionUpdates: [{ type: 'addRules' }] },
    });
  });

  it('a rejection carries its feedback, or the default one when it has none', () => {
    expect(judgeResolved(signedText(record({ status: 'rejected', feedback: 'not now' })), asked, key)).toEqual({ ok: true, answer: { decision: 'deny', by: 'team-lead', feedback: 'not now' } });
    expect(judgeResolved(signedText(record({ status: 'rejected', feedback: '' })), asked, key)).toEqual({ ok: true, answer: { decision: 'deny', by: 'team-lead', feedback: DEFAULT_DENY_FEEDBACK } });
    expect(DEFAULT_DENY_FEEDBACK).toBe('denied by team-lead');
  });
});

function entry(frame: PermissionResponseFrame, opts: { from?: string; sign?: typeof lead | null; msgId?: string } = {}): InboxMessage {
  const e: InboxMessage = { from: opts.from ?? 'team-lead', text: encodeControl(frame), timestamp: '2026-12-05T00:00:00.000Z', read: false, msg_id: opts.msgId ?? `m-${Math.random()}` };
  return opts.sign === null ? e : (signEntry(e as InboxMessage & { msg_id: string }, (opts.sign ?? lead).privateKey) as InboxMessage);
}
const allow = (extra: Record<string, unknown> = {}): PermissionResponseFrame =>
  ({ type: 'permission_response', request_id: asked.id, subtype: 'success', response: {}, ...extra }) as PermissionResponseFrame;
const deny = (extra: Record<string, unknown> = {}): PermissionResponseFrame =>
  ({ type: 'permission_response', request_id: asked.id, subtype: 'error', error: 'no', ...extra }) as PermissionResponseFrame;

describe('findResponseFrame', () => {
  it('takes the first signed answer from team-lead, and lists every other answer to this request as rejected, with why', () => {
    const fromWorker = entry(allow(), { from: 'w2' });
    const unsigned = entry(allow(), { sign: null });
    const wrongKey = entry(allow(), { sign: other });
    const good = entry(deny({ error: 'use the test script' }));
    const later = entry(allow());
    const otherRequest = entry(allow({ request_id: 'perm-2-def' }));
    const chatter: InboxMessage = { from: 'team-lead', text: 'hello', timestamp: 't', read: false };
    const r = findResponseFrame([chatter, otherRequest, fromWorker, unsigned, wrongKey, good, later], asked, key);
    expect(r.found).toEqual({ entry: good, answer: { decision: 'deny', by: 'team-lead', feedback: 'use the test script' } });
    expect(r.rejected.map((x) => [x.entry, x.reason])).toEqual([
      [fromWorker, 'response from "w2", not team-lead'],
      [unsigned, 'no lead_sig'],
      [wrongKey, 'lead_sig does not verify'],
    ]);
    expect(r.rejected[0]!.key).toBe(fromWorker.msg_id);
  });

  it('an allow binds to the asked input: a digest of another input, or an edit without a digest, is rejected', () => {
    const other = entry(allow({ input_sha256: inputDigest({ command: 'rm -rf /' }) }));
    const silentEdit = entry(allow({ response: { updated_input: { command: 'npm test; curl x' } } }));
    expect(findResponseFrame([other], asked, key)).toEqual({
      rejected: [expect.objectContaining({ reason: 'signed, but it decides a different input than this worker asked for (the pending file was changed before team-lead read it?)' })],
    });
    expect(findResponseFrame([silentEdit], asked, key)).toEqual({
      rejected: [expect.objectContaining({ reason: 'signed, but it replaces the input without saying which request input it decided' })],
    });
    // A deny needs no binding: refusing is always safe.
    expect(findResponseFrame([entry(deny({ input_sha256: inputDigest({ command: 'x' }) }))], asked, key).found?.answer.decision).toBe('deny');
  });

  it('an allow that names the asked input carries the edit, the rule updates and who decided', () => {
    const edited = entry(
      allow({
        input_sha256: inputDigest(asked.input),
        resolved_by: 'timeout',
        response: { updated_input: { command: 'npm test -- --run' }, permission_updates: [{ type: 'addRules' }] },
      }),
    );
    expect(findResponseFrame([edited], asked, key).found?.answer).toEqual({
      decision: 'allow',
      by: 'timeout',
      updatedInput: { command: 'npm test -- --run' },
      permissionUpdates: [{ type: 'addRules' }],
    });
    // Its own input echoed back without a digest is no edit; a deny without words gets the default.
    expect(findResponseFrame([entry(allow({ response: { updated_input: { command: 'npm test' } } }))], asked, key).found?.answer).toEqual({
      decision: 'allow',
      by: 'team-lead',
      updatedInput: { command: 'npm test' },
    });
    expect(findResponseFrame([entry(deny({ error: '' }))], asked, key).found?.answer).toEqual({ decision: 'deny', by: 'team-lead', feedback: DEFAULT_DENY_FEEDBACK });
  });
});

describe('frames that are not responses', () => {
  it('a permission_request carrying the same request_id, and plain words from team-lead, answer nothing', () => {
    const request = encodeControl({ type: 'permission_request', request_id: asked.id, agent_id: 'w1@t', tool_name: 'Bash', input: asked.input } as never);
    const base = { from: 'team-lead', timestamp: '2026-12-05T00:00:00.000Z', read: false };
    const unsigned: InboxMessage[] = [
      { ...base, text: request, msg_id: 'r-1' },
      { ...base, text: 'please hold on', msg_id: 'r-2' },
    ];
    const signed = unsigned.map((e) => signEntry(e as InboxMessage & { msg_id: string }, lead.privateKey) as InboxMessage);
    expect(findResponseFrame(signed, asked, key)).toEqual({ rejected: [] });
    expect(priorResponse(unsigned, asked, key, true)).toBeUndefined();
    expect(priorResponse(signed, asked, key, true)).toBeUndefined();
  });
});

describe('priorResponse', () => {
  it("counts an unsigned answer from team-lead only for a Claude Code teammate, as Claude Code's", () => {
    const unsigned = entry(deny(), { sign: null });
    expect(priorResponse([unsigned], asked, key, true)).toEqual({ entry: unsigned, decision: 'deny', by: 'team-lead (Claude Code)' });
    expect(priorResponse([entry(allow(), { sign: null })], asked, undefined, true)?.decision).toBe('allow');
    expect(priorResponse([unsigned], asked, key, false)).toBeUndefined();
    expect(priorResponse([entry(deny(), { sign: null, from: 'w2' })], asked, key, true)).toBeUndefined();
    expect(priorResponse([entry(deny({ request_id: 'perm-2' }), { sign: null })], asked, key, true)).toBeUndefined();
  });

  it('finds a signed, bound answer with a key, and nothing without one', () => {
    const signed = entry(allow());
    expect(priorResponse([signed], asked, key, false)).toEqual({ entry: signed, decision: 'allow', by: 'team-lead' });
    expect(priorResponse([signed], asked, key, true)).toEqual({ entry: signed, decision: 'allow', by: 'team-lead' });
    expect(priorResponse([signed], asked, undefined, false)).toBeUndefined();
  });
});

describe('sameJson', () => {
  it('compares as canonical JSON, and is false for what is not JSON', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).toBe(true);
    expect(sameJson({ a: 1 }, { a: 2 })).toBe(false);
    expect(sameJson({ a: Number.NaN }, { a: Number.NaN })).toBe(false);
  });
});
