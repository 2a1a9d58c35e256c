// The edges of the leader signatures (signing.test.ts has the round trips): the exact one-line
// errors for bad verify keys, keys of the wrong kind and unencodable records; what verifies never
// throws, even on null; a signature string with junk around it never verifies; boolean and
// null-prototype values encode as JSON does.
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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

const lead = generateLeadKeyPair(1_760_000_000_000);
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const EXPECTED = 'expected --lead-verify-key as <createdAtMs>.<base64url Ed25519 SPKI DER>';
const der = lead.verifyKey.split('.')[1]!;

function thrown(fn: () => unknown): { kind?: string; message: string; cause?: unknown } {
  try {
    fn();
  } catch (e) {
    return e as { kind?: string; message: string; cause?: unknown };
  }
  throw new Error('expected an error');
}

describe('formatVerifyKey', () => {
  it('takes createdAt 0 and any safe whole number of ms, and nothing else', () => {
    expect(formatVerifyKey(lead.publicKey, 0)).toBe(`0.${der}`);
    expect(formatVerifyKey(lead.publicKey, Number.MAX_SAFE_INTEGER)).toBe(`${Number.MAX_SAFE_INTEGER}.${der}`);
    for (const bad of [-1, 1.5, Number.NaN, Number.MAX_SAFE_INTEGER + 1]) {
      expect(thrown(() => formatVerifyKey(lead.publicKey, bad)), String(bad)).toMatchObject({
        kind: 'invalid_input',
        message: `verify key createdAt: expected a non-negative integer (ms), got ${bad}`,
      });
    }
  });

  it('refuses a key that is not Ed25519, naming its kind', () => {
    expect(thrown(() => formatVerifyKey(ec.publicKey, 1))).toMatchObject({ kind: 'invalid_input', message: 'verify key: expected an Ed25519 key, got ec' });
    expect(thrown(() => formatVerifyKey(ec.privateKey, 1))).toMatchObject({ message: 'verify key: expected an Ed25519 key, got ec' });
  });
});

describe('parseVerifyKey', () => {
  it('ignores surrounding white space (a pasted key)', () => {
    expect(parseVerifyKey(`  ${lead.verifyKey}\n`).createdAt).toBe(1_760_000_000_000);
  });

  it('says what it expected, and shows at most 80 characters of what it got', () => {
    const long = `x${'y'.repeat(200)}`;
    expect(thrown(() => parseVerifyKey(long))).toMatchObject({ kind: 'invalid_input', message: `${EXPECTED}, got ${JSON.stringify(long.slice(0, 80))}` });
    expect(thrown(() => parseVerifyKey('9999999999999999.AAAA'))).toMatchObject({ kind: 'invalid_input', message: `${EXPECTED}; createdAtMs is out of range` });
    const notDer = thrown(() => parseVerifyKey('1.aGVsbG8'));
    expect(notDer).toMatchObject({ kind: 'invalid_input', message: `${EXPECTED}; the key part is not a DER public key` });
    expect(notDer.cause).toBeInstanceOf(Error);
    const ecDer = ec.publicKey.export({ type: 'spki', format: 'der' }).toString('base64url');
    expect(thrown(() => parseVerifyKey(`1.${ecDer}`))).toMatchObject({ kind: 'invalid_input', message: `${EXPECTED}; got a ec key` });
  });
});

describe('signBytes / verifyBytes', () => {
  const data = Buffer.from('hello');

  it('signs only with an Ed25519 private key', () => {
    for (const key of [lead.publicKey, ec.privateKey]) {
      expect(thrown(() => signBytes(data, key))).toMatchObject({ kind: 'invalid_input', message: 'signing: expected an Ed25519 private key' });
    }
  });

  it('never verifies a signature with anything before or after it, even characters base64url decoding skips', () => {
    const sig = signBytes(data, lead.privateKey);
    expect(verifyBytes(data, sig, lead.verifyKey)).toBe(true);
    for (const garbled of [`!!${sig}`, `${sig}!!`, ` ${sig}`, `${sig}\n`, `.${sig}`]) {
      expect(verifyBytes(data, garbled, lead.verifyKey), JSON.stringify(garbled)).toBe(false);
    }
  });

  it('verifies with the public key of a parsed key or a KeyObject, never with one of another kind', () => {
    const sig = signBytes(data, lead.privateKey);
    expect(verifyBytes(data, sig, { createdAt: 0, publicKey: lead.publicKey })).toBe(true);
    expect(verifyBytes(data, sig, { createdAt: 0, publicKey: ec.publicKey })).toBe(false);
    expect(verifyBytes(data, sig, createPublicKey(lead.privateKey))).toBe(true);
  });
});

describe('inbox entries', () => {
  it('refuses to sign an entry of the wrong shape, naming the field', () => {
    const bad = { msg_id: 5, from: 'team-lead', timestamp: 't', text: 'x' } as unknown as Parameters<typeof entryEnvelope>[0];
    const e = thrown(() => entryEnvelope(bad));
    expect(e.kind).toBe('invalid_input');
    expect(e.message).toBe('inbox entry: msg_id Invalid input: expected string, received number');
    expect(() => signEntry(bad, lead.privateKey)).toThrow(/^inbox entry: msg_id /);
  });

  it('verifyEntry is false, never a throw, for null, a string, a number and an array', () => {
    for (const v of [null, 'entry', 7, [], undefined]) expect(verifyEntry(v, lead.verifyKey), String(v)).toBe(false);
  });
});

describe('canonicalJson', () => {
  it('writes booleans and null-prototype objects as JSON does', () => {
    expect(canonicalJson({ t: true, f: false, n: null })).toBe('{"f":false,"n":null,"t":true}');
    expect(canonicalJson([true, false])).toBe('[true,false]');
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { b: 1, a: [2] });
    expect(canonicalJson(bare)).toBe('{"a":[2],"b":1}');
  });

  it('names what it cannot encode and where', () => {
    const cyclic: Record<string, unknown> = { list: [] };
    (cyclic.list as unknown[]).push({ back: cyclic });
    const cases: [unknown, string][] = [
      [{ a: [1, Number.NaN] }, 'canonicalJson: non-finite number at $.a[1]'],
      [{ x: 1n }, 'canonicalJson: a bigint at $.x is not JSON'],
      [{ f: () => 1 }, 'canonicalJson: a function at $.f is not JSON'],
      [{ list: [1, 2, undefined] }, 'canonicalJson: undefined at $.list[2]'],
      [{ when: new Date(0) }, 'canonicalJson: a non-plain object at $.when is not JSON'],
      [cyclic, 'canonicalJson: cycle at $.list[0].back'],
    ];
    for (const [value, message] of cases) expect(thrown(() => canonicalJson(value)), message).toMatchObject({ kind: 'invalid_input', message });
  });
});

describe('resolved records', () => {
  it('verifyRecord is false, never a throw, for null, a string and a record that cannot be encoded', () => {
    const signed = signRecord({ id: 'perm-1', status: 'approved' }, lead.privateKey);
    expect(verifyRecord(signed, lead.verifyKey)).toBe(true);
    for (const v of [null, 'record', 7]) expect(verifyRecord(v, lead.verifyKey), String(v)).toBe(false);
    expect(verifyRecord({ ...signed, when: new Date(0) }, lead.verifyKey)).toBe(false);
    expect(verifyRecord({ ...signed, signature: 12 }, lead.verifyKey)).toBe(false);
  });
});
