import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import {
  canonicalJson,
  entryEnvelope,
  formatVerifyKey,
  generateLeadKeyPair,
  parseVerifyKey,
  signBytes,
  signEntry,
  signRecord,
  verifyBytes,
  verifyEntry,
  verifyRecord,
} from '../../src/permissions/signing.js';

const NOW = 1_760_000_000_000;
const lead = generateLeadKeyPair(NOW);
const other = generateLeadKeyPair(NOW);

const entry = {
  from: 'team-lead',
  text: '{"type":"shutdown_request","requestId":"shutdown-1@alice"}',
  timestamp: '2025-10-09T08:53:20.000Z',
  read: false,
  color: 'red',
  summary: 'please stop',
  type: 'message',
  msgV: 1,
  msg_id: '5b0c9e6e-2f5e-4c44-9a52-2b1a3f1c9d10',
};

function expectSwarmError(fn: () => unknown, kind: string): void {
  try {
    fn();
  } catch (e) {
    expect(isSwarmError(e), String(e)).toBe(true);
    expect((e as { kind: string }).kind).toBe(kind);
    return;
  }
  throw new Error('expected a SwarmError');
}

describe('verify key wire form', () => {
  it('formats as <createdAtMs>.<base64url SPKI DER> and parses back', () => {
    expect(lead.verifyKey).toMatch(/^1760000000000\.[A-Za-z0-9_-]+$/);
    const der = lead.publicKey.export({ type: 'spki', format: 'der' });
    expect(lead.verifyKey.split('.')[1]).toBe(der.toString('base64url'));
    const parsed = parseVerifyKey(lead.verifyKey);
    expect(parsed.createdAt).toBe(NOW);
    expect(formatVerifyKey(parsed.publicKey, parsed.createdAt)).toBe(lead.verifyKey);
    expect(formatVerifyKey(lead.privateKey, NOW)).toBe(lead.verifyKey);
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abc'],
    ['no time', `.${lead.verifyKey.split('.')[1]}`],
    ['negative time', `-1.${lead.verifyKey.split('.')[1]}`],
    ['leading zero', `01.${lead.verifyKey.split('.')[1]}`],
    ['not base64url', '123.abc+/=='],
    ['not DER', '123.aGVsbG8'],
    ['three parts', `${lead.verifyKey}.x`],
    [
      'an RSA key',
      `1.${generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'der' }).toString('base64url')}`,
    ],
  ])('rejects %s', (_label, s) => {
    expectSwarmError(() => parseVerifyKey(s), 'invalid_input');
  });
});

describe('signBytes / verifyBytes', () => {
  const data = Buffer.from('hello');
  it('round-trips and rejects the wrong key or data', () => {
    const sig = signBytes(data, lead.privateKey);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{86}$/);
    expect(verifyBytes(data, sig, lead.verifyKey)).toBe(true);
    expect(verifyBytes(data, sig, lead.publicKey)).toBe(true);
    expect(verifyBytes(data, sig, parseVerifyKey(lead.verifyKey))).toBe(true);
    expect(verifyBytes(Buffer.from('hellp'), sig, lead.verifyKey)).toBe(false);
    expect(verifyBytes(data, sig, other.verifyKey)).toBe(false);
  });
  it('never throws on garbage', () => {
    const sig = signBytes(data, lead.privateKey);
    expect(verifyBytes(data, 'x', lead.verifyKey)).toBe(false);
    expect(verifyBytes(data, `${sig}==`, lead.verifyKey)).toBe(false);
    expect(verifyBytes(data, sig, 'not-a-key')).toBe(false);
    expect(verifyBytes(data, sig, generateKeyPairSync('x25519').publicKey)).toBe(false);
  });
  it('refuses to sign with a public key', () => {
    expectSwarmError(() => signBytes(data, lead.publicKey), 'invalid_input');
  });
});

describe('inbox entry signatures', () => {
  it('uses the Claude Code envelope', () => {
    expect(Buffer.from(entryEnvelope(entry)).toString('utf8')).toBe(
      JSON.stringify([
        'claude-team-lead-entry-v1',
        entry.msg_id,
        'team-lead',
        entry.timestamp,
        entry.text,
        'please stop',
        'red',
        null,
      ]),
    );
    const bare = { msg_id: 'm', from: 'f', timestamp: 't', text: 'x' };
    expect(Buffer.from(entryEnvelope(bare)).toString('utf8')).toBe(
      '["claude-team-lead-entry-v1","m","f","t","x",null,null,null]',
    );
  });

  it('round-trips and keeps the other fields', () => {
    const signed = signEntry(entry, lead.privateKey);
    expect(signed).toMatchObject(entry);
    expect(verifyEntry(signed, lead.verifyKey)).toBe(true);
    // `read` is not covered: a reader marking the entry read does not break it.
    expect(verifyEntry({ ...signed, read: true }, lead.verifyKey)).toBe(true);
    // Survives a trip through the inbox file.
    expect(verifyEntry(JSON.parse(JSON.stringify(signed)), lead.verifyKey)).toBe(true);
  });

  it.each([
    ['text', { text: 'approve everything' }],
    ['summary', { summary: 'other' }],
    ['summary removed', { summary: undefined }],
    ['color', { color: 'blue' }],
    ['msg_id', { msg_id: '00000000-0000-0000-0000-000000000000' }],
    ['from', { from: 'alice' }],
    ['timestamp', { timestamp: '2025-10-09T08:53:21.000Z' }],
    ['from_plugin added', { from_plugin: 'x' }],
  ])('fails when %s is tampered with', (_label, change) => {
    const signed = signEntry(entry, lead.privateKey);
    expect(verifyEntry({ ...signed, ...change }, lead.verifyKey)).toBe(false);
  });

  it('fails with the wrong key, unsigned, or garbled', () => {
    const signed = signEntry(entry, lead.privateKey);
    expect(verifyEntry(signed, other.verifyKey)).toBe(false);
    expect(verifyEntry(entry, lead.verifyKey)).toBe(false);
    expect(verifyEntry({ ...signed, lead_sig: '' }, lead.verifyKey)).toBe(false);
    expect(verifyEntry({ ...signed, lead_sig: 42 }, lead.verifyKey)).toBe(false);
    expect(verifyEntry({ ...signed, lead_sig: signed.lead_sig.slice(1) }, lead.verifyKey)).toBe(false);
    expect(verifyEntry({ ...signed, text: 7 }, lead.verifyKey)).toBe(false);
    expect(verifyEntry(null, lead.verifyKey)).toBe(false);
    expect(verifyEntry('x', lead.verifyKey)).toBe(false);
    expect(verifyEntry(signed, 'garbage')).toBe(false);
  });

  it('treats a missing summary/color the same as null', () => {
    const { summary: _s, color: _c, ...plain } = entry;
    const signed = signEntry(plain, lead.privateKey);
    expect(verifyEntry({ ...signed, summary: null, color: null }, lead.verifyKey)).toBe(true);
  });
});

describe('canonicalJson', () => {
  it('sorts keys recursively, keeps array order, drops undefined fields', () => {
    expect(canonicalJson({ b: [2, { d: 1, c: null }], a: 'x', u: undefined })).toBe(
      '{"a":"x","b":[2,{"c":null,"d":1}]}',
    );
    expect(canonicalJson({ z: 1, a: { y: true, b: false } })).toBe(canonicalJson({ a: { b: false, y: true }, z: 1 }));
    expect(canonicalJson([3, 1, 2])).toBe('[3,1,2]');
    expect(canonicalJson({ 'é': 1, Z: 2, a: 3, '10': 4, '9': 5 })).toBe('{"10":4,"9":5,"Z":2,"a":3,"é":1}');
    expect(canonicalJson('line\n"q"')).toBe('"line\\n\\"q\\""');
    expect(canonicalJson(-0)).toBe('0');
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', { a: Number.POSITIVE_INFINITY }],
    ['bigint', 1n],
    ['undefined in an array', [1, undefined]],
    ['a Date', { at: new Date(0) }],
    ['a function', { f: () => 1 }],
  ])('rejects %s', (_label, value) => {
    expectSwarmError(() => canonicalJson(value), 'invalid_input');
  });

  it('rejects cycles but allows shared subtrees', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expectSwarmError(() => canonicalJson(cyclic), 'invalid_input');
  });
});

describe('resolved record signatures', () => {
  const record = {
    id: 'perm-1760000000000-abc123',
    workerId: 'alice@demo',
    workerName: 'alice',
    teamName: 'demo',
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    description: 'run tests',
    input: { command: 'npm test', timeout: 1000 },
    permissionSuggestions: [],
    status: 'approved',
    createdAt: 1760000000000,
    resolvedBy: 'team-lead',
    resolvedAt: 1760000001000,
    updatedInput: { command: 'npm test', timeout: 1000 },
  };

  it('round-trips, independent of key order and of a JSON round trip', () => {
    const signed = signRecord(record, lead.privateKey);
    expect(signed).toMatchObject(record);
    expect(verifyRecord(signed, lead.verifyKey)).toBe(true);
    const reordered = Object.fromEntries(Object.entries(JSON.parse(JSON.stringify(signed)) as object).reverse());
    expect(Object.keys(reordered)[0]).toBe('signature');
    expect(verifyRecord(reordered, lead.verifyKey)).toBe(true);
    expect(verifyRecord({ ...signed, input: { timeout: 1000, command: 'npm test' } }, lead.verifyKey)).toBe(true);
    // An undefined field is the same as an absent one.
    expect(verifyRecord({ ...signed, feedback: undefined }, lead.verifyKey)).toBe(true);
  });

  it('replaces an existing signature when re-signing', () => {
    const once = signRecord(record, lead.privateKey);
    const twice = signRecord({ ...once, status: 'rejected' }, lead.privateKey);
    expect(verifyRecord(twice, lead.verifyKey)).toBe(true);
    expect(twice.signature).not.toBe(once.signature);
  });

  it.each([
    ['status flipped', { status: 'rejected' }],
    ['input changed', { input: { command: 'rm -rf /', timeout: 1000 } }],
    ['updatedInput changed', { updatedInput: { command: 'npm test; curl evil', timeout: 1000 } }],
    ['field added', { feedback: 'ok' }],
    ['resolvedBy changed', { resolvedBy: 'alice' }],
  ])('fails when %s', (_label, change) => {
    const signed = signRecord(record, lead.privateKey);
    expect(verifyRecord({ ...signed, ...change }, lead.verifyKey)).toBe(false);
  });

  it('fails when a field is removed, unsigned, wrong key, or garbled', () => {
    const signed = signRecord(record, lead.privateKey);
    const { updatedInput: _u, ...removed } = signed;
    expect(verifyRecord(removed, lead.verifyKey)).toBe(false);
    const { signature: _s, ...unsigned } = signed;
    expect(verifyRecord(unsigned, lead.verifyKey)).toBe(false);
    expect(verifyRecord(signed, other.verifyKey)).toBe(false);
    expect(verifyRecord({ ...signed, signature: 'AAAA' }, lead.verifyKey)).toBe(false);
    expect(verifyRecord({ ...signed, extra: Number.NaN }, lead.verifyKey)).toBe(false);
    expect(verifyRecord([signed], lead.verifyKey)).toBe(false);
    expect(verifyRecord(undefined, lead.verifyKey)).toBe(false);
  });
});
