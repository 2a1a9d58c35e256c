// Pure parts of the runtime: the permission gate table, retry classification, delays and hooks, inbox
// entry classification (signed / unsigned / replayed), the glob matcher, SendMessage's structured
// answers, the shutdown coordinator, and the flags of `swarm teammate`.
import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from '@anthropic-ai/sdk';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { encodeControl } from '../../src/protocol/control.js';
import type { InboxMessage } from '../../src/protocol/message.js';
import { generateLeadKeyPair, parseVerifyKey, signEntry } from '../../src/permissions/signing.js';
import { flagsFromArgv, parseFlags } from '../../src/runtime/args.js';
import { classify, wrapForModel, type LeadTrust } from '../../src/runtime/incoming.js';
import { withCacheBreakpoints } from '../../src/runtime/model-client.js';
import { deniedByRule, gate, PLAN_MODE_REFUSAL } from '../../src/runtime/permission-gate.js';
import { classifyError, retryDelayMs, withRetries } from '../../src/runtime/retry.js';
import { ShutdownCoordinator } from '../../src/runtime/shutdown.js';
import { compileGlob } from '../../src/protocol/glob.js';
import { splitGlob } from '../../src/runtime/tools/glob-match.js';
import { normaliseMessage } from '../../src/runtime/tools/send-message.js';
import type { ToolKind } from '../../src/runtime/tools/types.js';
import { stepUsage } from '../../src/runtime/usage.js';

describe('permission gate table', () => {
  const inside = { path: '/w/src/a.ts', cwd: '/w' };
  const outside = { path: '/etc/hosts', cwd: '/w' };
  it.each([
    // kind, mode, target, expected
    ['read', 'default', undefined, 'run'],
    ['read', 'plan', undefined, 'run'],
    ['message', 'plan', undefined, 'run'],
    ['plan', 'plan', undefined, 'run'],
    ['edit', 'default', inside, 'ask'],
    ['exec', 'default', undefined, 'ask'],
    ['edit', 'acceptEdits', inside, 'run'],
    ['edit', 'acceptEdits', outside, 'ask'],
    ['exec', 'acceptEdits', undefined, 'ask'],
    ['exec', 'acceptEdits', inside, 'ask'],
    ['edit', 'bypassPermissions', outside, 'run'],
    ['exec', 'bypassPermissions', undefined, 'run'],
    ['edit', 'plan', inside, 'refuse'],
    ['exec', 'plan', undefined, 'refuse'],
  ] as const)('%s in %s mode → %s', (kind, mode, target, expected) => {
    const d = gate(kind as ToolKind, mode, target);
    expect(d.action).toBe(expected);
    if (d.action === 'refuse') expect(d.reason).toBe(PLAN_MODE_REFUSAL);
  });
  it.each(['default', 'acceptEdits', 'bypassPermissions', 'plan'] as const)('a read of a protected file asks in %s mode', (mode) => {
    expect(gate('read', mode, undefined, '**/.env').action).toBe('ask');
  });
  it.each(['acceptEdits', 'bypassPermissions'] as const)('an Edit of a protected file inside the cwd asks in %s mode', (mode) => {
    expect(gate('edit', mode, inside, '**/.env').action).toBe('ask');
    expect(gate('edit', 'plan', inside, '**/.env').action).toBe('refuse');
  });
  it.each(['default', 'acceptEdits', 'bypassPermissions'] as const)('a write of agent configuration inside the cwd asks in %s mode; plan refuses it', (mode) => {
    const agentFile = { path: '/w/.claude/agents/verification.md', cwd: '/w' };
    expect(gate('edit', mode, agentFile, '**/.claude/agents/**').action).toBe('ask');
    expect(gate('edit', 'plan', agentFile, '**/.claude/agents/**').action).toBe('refuse');
    expect(gate('edit', mode, agentFile).action).toBe(mode === 'default' ? 'ask' : 'run'); // unmarked, the usual row
  });
  it('the plan mode refusal tells the model what it may do and how to leave plan mode', () => {
    expect(PLAN_MODE_REFUSAL).toMatch(/^You are in plan mode: only read-only tools .* call ExitPlanMode with your plan\.$/);
  });
  it('a sibling directory with the cwd as prefix is not inside it', () => {
    expect(gate('edit', 'acceptEdits', { path: '/w-other/a', cwd: '/w' }).action).toBe('ask');
  });
});

describe('team deny rules on calls the gate runs without asking (deniedByRule)', () => {
  const cwd = '/w';
  const rules = (deny: string[], allow: string[] = []) => ({ allow, deny });
  it('a matching deny rule blocks the call and is named', () => {
    expect(deniedByRule(rules(['Bash(rm:*)']), 'Bash', 'exec', { command: 'rm -rf /' }, cwd)).toBe('Bash(rm:*)');
    expect(deniedByRule(rules(['Write']), 'Write', 'edit', { file_path: '/w/a.ts', content: '' }, cwd)).toBe('Write');
  });
  it('a path rule is read against the worker cwd', () => {
    expect(deniedByRule(rules(['Edit(/w/secret/**)']), 'Edit', 'edit', { file_path: '/w/secret/k' }, cwd)).toBe('Edit(/w/secret/**)');
    expect(deniedByRule(rules(['Edit(/w/secret/**)']), 'Edit', 'edit', { file_path: '/w/open/k' }, cwd)).toBeUndefined();
  });
  it('a call no deny rule matches runs: no rules, another command, or only allow rules', () => {
    expect(deniedByRule(rules([]), 'Bash', 'exec', { command: 'rm -rf /' }, cwd)).toBeUndefined();
    expect(deniedByRule(rules(['Bash(rm:*)']), 'Bash', 'exec', { command: 'ls' }, cwd)).toBeUndefined();
    expect(deniedByRule(rules([], ['Bash']), 'Bash', 'exec', { command: 'ls' }, cwd)).toBeUndefined();
  });
  it('allow rules play no part: a deny holds beside a matching allow, and a malformed allow rule does not hide it', () => {
    expect(deniedByRule(rules(['Bash(rm:*)'], ['Bash']), 'Bash', 'exec', { command: 'rm x' }, cwd)).toBe('Bash(rm:*)');
    expect(deniedByRule(rules(['Bash(rm:*)'], ['Bash(']), 'Bash', 'exec', { command: 'rm x' }, cwd)).toBe('Bash(rm:*)');
  });
  it.each([
    ['message', 'SendMessage'],
    ['message', 'TaskUpdate'],
    ['plan', 'ExitPlanMode'],
  ] as const)('a %s tool (%s) is team coordination: never blocked by a deny rule', (kind, toolName) => {
    expect(deniedByRule(rules([toolName]), toolName, kind, {}, cwd)).toBeUndefined();
  });
  it('read tools obey deny rules too', () => {
    expect(deniedByRule(rules(['Read']), 'Read', 'read', { file_path: '/w/a' }, cwd)).toBe('Read');
  });
  it('a malformed deny rule is not enforced here (the leader reports it), and does not throw', () => {
    expect(deniedByRule(rules(['Bash(']), 'Bash', 'exec', { command: 'ls' }, cwd)).toBeUndefined();
  });
});

function apiError(status: number, headers: Record<string, string> = {}): APIError {
  return APIError.generate(status, { type: 'error', error: { type: 'x', message: 'boom' } }, undefined, new Headers(headers));
}

describe('retries', () => {
  it('retries 408/409/429/5xx/529 and network errors, not 400/401/403/404 or x-should-retry:false', () => {
    for (const s of [408, 409, 429, 500, 503, 529]) expect(classifyError(apiError(s)).retry, String(s)).toBe(true);
    for (const s of [400, 401, 403, 404, 413]) expect(classifyError(apiError(s)).retry, String(s)).toBe(false);
    expect(classifyError(apiError(529, { 'x-should-retry': 'false' })).retry).toBe(false);
    expect(classifyError(new APIConnectionError({ message: 'refused' })).retry).toBe(true);
    expect(classifyError(new AnthropicError('terminated', { cause: new TypeError('terminated') })).retry).toBe(true);
    expect(classifyError(new AnthropicError('no credentials')).retry).toBe(false);
    expect(classifyError(new APIUserAbortError())).toMatchObject({ retry: false, aborted: true });
  });

  it('waits what retry-after says, else exponential backoff with jitter', () => {
    const policy = { baseMs: 100, maxRetries: 5, random: () => 0.5 };
    const after = classifyError(apiError(429, { 'retry-after': '2' }));
    expect(after.retry && retryDelayMs(1, after, policy)).toBe(2000);
    const afterMs = classifyError(apiError(429, { 'retry-after-ms': '30' }));
    expect(afterMs.retry && retryDelayMs(1, afterMs, policy)).toBe(30);
    const plain = classifyError(apiError(529));
    expect(plain.retry && [1, 2, 3].map((a) => retryDelayMs(a, plain, policy))).toEqual([100, 200, 400]);
    expect(plain.retry && retryDelayMs(30, plain, policy)).toBe(32_000);
  });

  it('gives up after maxRetries with the last error, and stops at once on a fatal one', async () => {
    let calls = 0;
    const seen: number[] = [];
    await expect(
      withRetries(async () => {
        calls++;
        throw apiError(529);
      }, { baseMs: 1, maxRetries: 2 }, { onRetry: (i) => seen.push(i.attempt) }),
    ).rejects.toThrow(/overloaded \(529\).*gave up after 2 retries/);
    expect([calls, seen]).toEqual([3, [1, 2]]);
    calls = 0;
    await expect(withRetries(async () => { calls++; throw apiError(401); }, { baseMs: 1, maxRetries: 5 })).rejects.toMatchObject({ status: 401, aborted: false });
    expect(calls).toBe(1);
  });

  it('runs beforeAttempt before every attempt and awaits onRetry before the delay; an abort in beforeAttempt is an aborted ModelCallError', async () => {
    const order: string[] = [];
    const result = await withRetries(
      async (attempt) => {
        order.push(`call ${attempt}`);
        if (attempt < 3) throw apiError(429, { 'retry-after-ms': '1' });
        return 'ok';
      },
      { baseMs: 1, maxRetries: 5 },
      {
        beforeAttempt: async (attempt) => void order.push(`before ${attempt}`),
        onRetry: async (i) => {
          await new Promise((r) => setTimeout(r, 20)); // a hook slower than the 1 ms retry delay
          order.push(`retry ${i.attempt} ${i.status} ${i.delayMs}`);
        },
      },
    );
    expect(result).toBe('ok');
    expect(order).toEqual(['before 1', 'call 1', 'retry 1 429 1', 'before 2', 'call 2', 'retry 2 429 1', 'before 3', 'call 3']);

    const stop = new AbortController();
    const call = vi.fn(async () => 'never');
    const waiting = withRetries(call, { baseMs: 1, maxRetries: 5 }, {
      signal: stop.signal,
      beforeAttempt: () => new Promise((_, reject) => stop.signal.addEventListener('abort', () => reject(new Error('wait aborted')))),
    });
    stop.abort();
    await expect(waiting).rejects.toMatchObject({ name: 'ModelCallError', aborted: true });
    expect(call).not.toHaveBeenCalled();
  });
});

describe('inbox entries', () => {
  const pair = generateLeadKeyPair(1_700_000_000_000);
  const key = parseVerifyKey(pair.verifyKey);
  const base = (text: string, from = 'team-lead'): InboxMessage & { msg_id: string } => ({ from, text, timestamp: '2026-01-01T00:00:00.000Z', read: false, type: 'message', msgV: 1, msg_id: `m-${text.length}-${from}` });
  const shutdown = encodeControl({ type: 'shutdown_request', requestId: 'shutdown-1@w1', from: 'team-lead', timestamp: '2026-01-01T00:00:00.000Z' });
  const since = Date.parse('2025-12-31T00:00:00.000Z');
  const trust = (acted: Set<string> = new Set(), self = 'w1'): LeadTrust => ({ key, acted, self, since });

  it('obeys a leader control only when signed, from team-lead, and not replayed', () => {
    const signed = signEntry(base(shutdown), pair.privateKey) as InboxMessage;
    expect(classify(signed, trust())).toMatchObject({ kind: 'lead_control', message: { type: 'shutdown_request' } });
    expect(classify(signed, trust())).not.toHaveProperty('unverified');
    expect(classify(base(shutdown), trust())).toMatchObject({ unverified: 'not signed by team-lead' });
    expect(classify({ ...signed, text: shutdown.replace('shutdown-1', 'shutdown-2') }, trust())).toMatchObject({ unverified: expect.stringContaining('does not verify') });
    expect(classify({ ...signed, from: 'w2' }, trust())).toMatchObject({ unverified: expect.stringContaining('not team-lead') });
    expect(classify(signed, trust(new Set([signed.msg_id!])))).toMatchObject({ unverified: expect.stringContaining('replay') });
    const other = generateLeadKeyPair(1);
    expect(classify(signEntry(base(shutdown), other.privateKey) as InboxMessage, trust())).toMatchObject({ unverified: expect.any(String) });
  });

  it('obeys a signed control only when it is addressed to this teammate and signed after it joined', () => {
    const sign = (text: string, timestamp = '2026-01-01T00:00:00.000Z') => signEntry({ ...base(text), timestamp }, pair.privateKey) as InboxMessage;
    expect(classify(sign(shutdown), trust(new Set(), 'w2'))).toMatchObject({ unverified: 'addressed to w1, not to w2: a replay' });
    const ccShutdown = (requestId: string) => encodeControl({ type: 'shutdown_request', requestId, from: 'team-lead', timestamp: '2026-01-01T00:00:00.000Z' });
    expect(classify(sign(ccShutdown('shutdown-w1@t-1767225600000')), trust())).not.toHaveProperty('unverified'); // Claude Code's form
    expect(classify(sign(ccShutdown('shutdown-w2@t-1767225600000')), trust())).toMatchObject({ unverified: 'addressed to w2, not to w1: a replay' });
    expect(classify(sign(ccShutdown('shutdown-1767225600000')), trust())).toMatchObject({ unverified: 'a shutdown_request that does not say whom it is for' });
    expect(classify(sign(shutdown, '2025-12-30T23:59:59.999Z'), trust())).toMatchObject({ unverified: expect.stringMatching(/^signed at 2025-12-30T23:59:59\.999Z, before w1 joined the team \(2025-12-31T00:00:00\.000Z\): a replay$/) });
    const mode = (extra: Record<string, unknown>) => encodeControl({ type: 'mode_set_request', mode: 'acceptEdits', from: 'team-lead', ...extra });
    expect(classify(sign(mode({ to: 'w1' })), trust())).not.toHaveProperty('unverified');
    expect(classify(sign(mode({ to: 'w2' })), trust())).toMatchObject({ unverified: 'addressed to w2, not to w1: a replay' });
    expect(classify(sign(mode({})), trust())).toMatchObject({ unverified: 'a mode_set_request that does not say whom it is for' });
    const plan = (requestId: string) => encodeControl({ type: 'plan_approval_response', requestId, approved: true, timestamp: '2026-01-01T00:00:00.000Z' });
    expect(classify(sign(plan('plan_approval-5@w1@t')), trust())).not.toHaveProperty('unverified');
    expect(classify(sign(plan('plan_approval-5@w2@t')), trust())).toMatchObject({ unverified: 'addressed to w2, not to w1: a replay' });
  });

  it('wraps messages as <teammate-message>, marking unverified ones', () => {
    expect(wrapForModel({ ...base('hi "there"', 'w2'), color: 'green', summary: 'a "quote"' })).toBe(
      '<teammate-message teammate_id="w2" color="green" summary="a &quot;quote&quot;">\nhi "there"\n</teammate-message>',
    );
    expect(classify(base('plain text'), trust())).toMatchObject({ kind: 'text', unverified: 'not signed by team-lead' });
    expect(wrapForModel(base('x'), 'not signed by team-lead')).toContain('verified="false"');
    expect(classify(base('from a peer', 'w2'), trust())).toEqual({ kind: 'text', entry: base('from a peer', 'w2') });
  });
});

describe('glob matcher', () => {
  it.each([
    ['**/*.ts', 'a.ts', true],
    ['**/*.ts', 'src/deep/a.ts', true],
    ['**/*.ts', '.hidden/a.ts', false],
    ['src/*.{js,ts}', 'src/a.js', true],
    ['src/*.{js,ts}', 'src/x/a.js', false],
    ['src/**', 'src/a/b/c', true],
    ['a?c.txt', 'abc.txt', true],
    ['[ab]*.md', 'b1.md', true],
    ['[!ab]*.md', 'b1.md', false],
    ['*', '.env', false],
    ['.env*', '.env.local', true],
  ] as const)('%s ~ %s → %s', (pattern, rel, expected) => {
    expect(compileGlob(pattern)(rel)).toBe(expected);
  });
  it('splits the literal prefix off', () => {
    expect(splitGlob('src/**/*.ts')).toEqual({ base: 'src', rest: '**/*.ts' });
    expect(splitGlob('/abs/dir/*.md')).toEqual({ base: '/abs/dir', rest: '*.md' });
    expect(splitGlob('*.md')).toEqual({ base: '.', rest: '*.md' });
    expect(splitGlob('src/a.ts')).toEqual({ base: 'src', rest: 'a.ts' });
  });
});

describe('SendMessage answers', () => {
  it('reads a JSON-string shutdown_response as structured, refuses other control JSON', () => {
    expect(normaliseMessage('{"type":"shutdown_response","request_id":"r1","approve":true}')).toEqual({ type: 'shutdown_response', request_id: 'r1', approve: true });
    expect(normaliseMessage('just {text}')).toBe('just {text}');
    expect(() => normaliseMessage('{"type":"shutdown_approved","requestId":"r","from":"w1","timestamp":"t"}')).toThrow(/control frame/);
    expect(() => normaliseMessage('{"type":"shutdown_response","approve":true}')).toThrow(/invalid shutdown_response/);
  });
});

describe('shutdown coordinator', () => {
  it('answers only known requests, interrupts waits for new ones, and fires after the grace period', () => {
    vi.useFakeTimers(); // the grace period passes on the fake clock, to the millisecond
    onTestFinished(() => void vi.useRealTimers());
    const expired: string[] = [];
    const c = new ShutdownCoordinator({ graceMs: 20, onGraceExpired: (r) => expired.push(r.requestId) });
    const wait = c.interruptSignal();
    expect(() => c.answer('nope', true)).toThrow(/no signed shutdown request "nope"/);
    c.noteSigned({ type: 'shutdown_request', requestId: 'r1', from: 'team-lead', timestamp: 't' });
    expect(wait.aborted).toBe(true);
    expect(c.interruptSignal().aborted).toBe(true); // not yet shown to the model
    c.markDelivered('r1');
    expect(c.interruptSignal().aborted).toBe(false);
    c.noteSigned({ type: 'shutdown_request', requestId: 'r2', from: 'team-lead', timestamp: 't' });
    c.answer('r1', false);
    vi.advanceTimersByTime(19);
    expect(expired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(expired).toEqual(['r2']); // r1 was answered: its timer never fires
    c.answer('r2', true);
    expect(c.approved?.requestId).toBe('r2');
  });
});

describe('teammate flags and request shape', () => {
  const key = generateLeadKeyPair(5).verifyKey;
  it('parses an argv as a backend builds it', () => {
    const argv = ['/usr/bin/node', '/x/bin/swarm.js', 'teammate', '--agent-id', 'w1@t', '--agent-name', 'w1', '--team-name', 't', '--lead-verify-key', key, '--plan-mode-required'];
    const flags = flagsFromArgv(argv);
    expect(flags).toEqual({ agentId: 'w1@t', agentName: 'w1', teamName: 't', leadVerifyKey: key, planModeRequired: true });
    expect(parseFlags(flags).agentName).toBe('w1');
    expect(() => flagsFromArgv([...argv, '--bogus'])).toThrow(/bogus/);
  });
  it('puts cache breakpoints on the system prompt and the newest user block only', () => {
    const req = withCacheBreakpoints({
      system: 'sys',
      tools: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'a' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'b' }] },
        { role: 'user', content: [{ type: 'text', text: 'c' }, { type: 'text', text: 'd' }] },
      ],
    });
    expect(req.system).toEqual([{ type: 'text', text: 'sys', cache_control: { type: 'ephemeral' } }]);
    expect(JSON.stringify(req.messages).match(/cache_control/g)).toHaveLength(1);
    expect(req.messages[2]!.content).toEqual([{ type: 'text', text: 'c' }, { type: 'text', text: 'd', cache_control: { type: 'ephemeral' } }]);
  });
  it('estimates cost from usage', () => {
    expect(stepUsage('claude-sonnet-4-5', { input_tokens: 1_000_000, output_tokens: 0 })).toEqual({ promptTokens: 1_000_000, outputTokens: 0, costUsd: 3 });
    expect(stepUsage('claude-sonnet-5-5', { input_tokens: 0, output_tokens: 10, cache_read_input_tokens: 1_000_000, cache_creation_input_tokens: 0 }).promptTokens).toBe(1_000_000);
    const opus = stepUsage('claude-opus-4-5', { input_tokens: 1000, output_tokens: 2000, cache_read_input_tokens: 10_000, cache_creation_input_tokens: 4000 });
    expect(opus.promptTokens).toBe(15_000);
    expect(opus.costUsd).toBeCloseTo((1000 * 5 + 10_000 * 0.5 + 4000 * 6.25 + 2000 * 25) / 1e6, 12);
  });
  it('an unpriced model counts its tokens and has no cost', () => {
    expect(stepUsage('claude-x', { input_tokens: 100, output_tokens: 7, cache_read_input_tokens: 50 })).toEqual({ promptTokens: 150, outputTokens: 7, costUsd: undefined });
  });
});
