// Leader signatures (docs/protocol.md#leader-signatures): Ed25519 via node:crypto, pure functions, no file I/O (key files
// live in keys.ts).
//
// Verify key (the `--lead-verify-key` value, Claude Code 2.1.332's form):
//   `<createdAtMs>.<base64url, unpadded, of the DER SubjectPublicKeyInfo of the Ed25519 public key>`
//   createdAtMs is a non-negative decimal integer without leading zeros.
//
// Inbox entries: `lead_sig` = base64url (unpadded) of the Ed25519 signature over the UTF-8 bytes of
//   JSON.stringify(["claude-team-lead-entry-v1", msg_id, from, timestamp, text,
//                   summary ?? null, color ?? null, from_plugin ?? null])
//   (Claude Code 2.1.332's envelope). msg_id, from, timestamp and text must be strings; summary,
//   color and from_plugin strings, null or absent. Any other shape does not verify.
//
// Response frames (`permission_response` in the worker's inbox, signed as an entry) carry
//   `input_sha256` = inputDigest(the input the leader decided), so a frame binds to the exact
//   request the worker made, even when the pending file was edited before the leader read it.
//
// Resolved records (`permissions/resolved/<id>.json`): `signature` = base64url (unpadded) of the
//   Ed25519 signature over the UTF-8 bytes of canonicalJson(record without its `signature` field):
//   - null, true, false: as in JSON;
//   - numbers: finite only, written as JSON.stringify writes them (1, 1.5, 1e+21; -0 as 0);
//   - strings: as JSON.stringify writes them (only `"`, `\` and U+0000–U+001F escaped, lone
//     surrogates as \udXXX);
//   - arrays: elements in order, comma-separated, no whitespace;
//   - objects: own enumerable keys sorted by UTF-16 code unit (JS default sort), `"key":value`
//     comma-separated, no whitespace; keys whose value is `undefined` are dropped;
//   - anything else (undefined inside an array, NaN/Infinity, bigint, functions, symbols, objects
//     that are not plain, cycles) is rejected with SwarmError('invalid_input').
//   Example: {b:[2,{d:1,c:null}],a:"x"} → {"a":"x","b":[2,{"c":null,"d":1}]}
import { createHash, createPublicKey, generateKeyPairSync, KeyObject, sign as cryptoSign, verify as cryptoVerify } from 'node:crypto';
import * as z from 'zod';
import { SwarmError } from '../protocol/errors.js';

export const ENTRY_ENVELOPE_TAG = 'claude-team-lead-entry-v1';

export interface LeadKeyPair {
  privateKey: KeyObject;
  publicKey: KeyObject;
  createdAt: number;
  /** `<createdAtMs>.<base64url SPKI DER>` */
  verifyKey: string;
}

export interface ParsedVerifyKey {
  createdAt: number;
  publicKey: KeyObject;
}

/** A verify key in wire form or an already parsed/created public key. */
export type VerifyKeyInput = string | KeyObject | ParsedVerifyKey;

export function generateLeadKeyPair(now: number): LeadKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { privateKey, publicKey, createdAt: now, verifyKey: formatVerifyKey(publicKey, now) };
}

export function formatVerifyKey(publicKey: KeyObject, createdAtMs: number): string {
  if (!Number.isSafeInteger(createdAtMs) || createdAtMs < 0) {
    throw new SwarmError('invalid_input', `verify key createdAt: expected a non-negative integer (ms), got ${createdAtMs}`);
  }
  const pub = publicKey.type === 'private' ? createPublicKey(publicKey) : publicKey;
  if (pub.asymmetricKeyType !== 'ed25519') {
    throw new SwarmError('invalid_input', `verify key: expected an Ed25519 key, got ${pub.asymmetricKeyType ?? pub.type}`);
  }
  return `${createdAtMs}.${pub.export({ type: 'spki', format: 'der' }).toString('base64url')}`;
}

const VERIFY_KEY_RE = /^(0|[1-9][0-9]{0,15})\.([A-Za-z0-9_-]+)$/;

/** Parse `<createdAtMs>.<base64url SPKI DER>`; SwarmError('invalid_input') on anything else. */
export function parseVerifyKey(s: string): ParsedVerifyKey {
  const expected = 'expected --lead-verify-key as <createdAtMs>.<base64url Ed25519 SPKI DER>';
  const m = VERIFY_KEY_RE.exec(s.trim());
  if (!m) throw new SwarmError('invalid_input', `${expected}, got ${JSON.stringify(s.slice(0, 80))}`);
  const createdAt = Number(m[1]);
  if (!Number.isSafeInteger(createdAt)) throw new SwarmError('invalid_input', `${expected}; createdAtMs is out of range`);
  let publicKey: KeyObject;
  try {
    publicKey = createPublicKey({ key: Buffer.from(m[2]!, 'base64url'), format: 'der', type: 'spki' });
  } catch (cause) {
    throw new SwarmError('invalid_input', `${expected}; the key part is not a DER public key`, { cause });
  }
  if (publicKey.asymmetricKeyType !== 'ed25519') {
    throw new SwarmError('invalid_input', `${expected}; got a ${publicKey.asymmetricKeyType ?? 'unknown'} key`);
  }
  return { createdAt, publicKey };
}

function toPublicKey(key: VerifyKeyInput): KeyObject | undefined {
  try {
    if (typeof key === 'string') return parseVerifyKey(key).publicKey;
    const k = key instanceof KeyObject ? key : key.publicKey;
    return k instanceof KeyObject && k.asymmetricKeyType === 'ed25519' ? k : undefined;
  } catch {
    return undefined;
  }
}

/** base64url (unpadded) Ed25519 signature of `data`. */
export function signBytes(data: Uint8Array, privateKey: KeyObject): string {
  if (privateKey.type !== 'private' || privateKey.asymmetricKeyType !== 'ed25519') {
    throw new SwarmError('invalid_input', 'signing: expected an Ed25519 private key');
  }
  return cryptoSign(null, data, privateKey).toString('base64url');
}

/** True only if `signature` (base64url) is a valid Ed25519 signature of `data`; never throws. */
export function verifyBytes(data: Uint8Array, signature: string, verifyKey: VerifyKeyInput): boolean {
  const key = toPublicKey(verifyKey);
  if (!key || typeof signature !== 'string' || !/^[A-Za-z0-9_-]{86}$/.test(signature)) return false;
  try {
    return cryptoVerify(null, data, key, Buffer.from(signature, 'base64url'));
  } catch {
    return false;
  }
}

// --- inbox entries -------------------------------------------------------------------------------

/** The fields of an inbox entry that the leader signature covers. */
export const SignableEntrySchema = z.object({
  msg_id: z.string(),
  from: z.string(),
  timestamp: z.string(),
  text: z.string(),
  summary: z.string().nullish(),
  color: z.string().nullish(),
  from_plugin: z.string().nullish(),
});
export type SignableEntry = z.infer<typeof SignableEntrySchema>;

/** The exact bytes signed for an inbox entry (see the file header). */
export function entryEnvelope(entry: SignableEntry): Uint8Array {
  const parsed = SignableEntrySchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SwarmError('invalid_input', `inbox entry: ${issue?.path.join('.') ?? ''} ${issue?.message ?? 'bad shape'}`);
  }
  const e = parsed.data;
  const tuple = [
    ENTRY_ENVELOPE_TAG,
    e.msg_id,
    e.from,
    e.timestamp,
    e.text,
    e.summary ?? null,
    e.color ?? null,
    e.from_plugin ?? null,
  ];
  return Buffer.from(JSON.stringify(tuple), 'utf8');
}

/** The entry with `lead_sig` set (any previous `lead_sig` replaced). */
export function signEntry<T extends SignableEntry>(entry: T, privateKey: KeyObject): T & { lead_sig: string } {
  return { ...entry, lead_sig: signBytes(entryEnvelope(entry), privateKey) };
}

/** True only if `entry.lead_sig` verifies under `verifyKey`; false for any missing/garbled input. */
export function verifyEntry(entry: unknown, verifyKey: VerifyKeyInput): boolean {
  if (typeof entry !== 'object' || entry === null) return false;
  const sig: unknown = (entry as { lead_sig?: unknown }).lead_sig;
  if (typeof sig !== 'string') return false;
  const parsed = SignableEntrySchema.safeParse(entry);
  if (!parsed.success) return false;
  let bytes: Uint8Array;
  try {
    bytes = entryEnvelope(parsed.data);
  } catch {
    return false;
  }
  return verifyBytes(bytes, sig, verifyKey);
}

// --- resolved records ----------------------------------------------------------------------------

/** Canonical JSON as described in the file header. */
export function canonicalJson(value: unknown): string {
  return encode(value, new Set<object>(), '$');
}

function encode(value: unknown, seen: Set<object>, at: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return JSON.stringify(value);
    case 'number':
      if (!Number.isFinite(value)) throw new SwarmError('invalid_input', `canonicalJson: non-finite number at ${at}`);
      return JSON.stringify(value);
    case 'object':
      break;
    default:
      throw new SwarmError('invalid_input', `canonicalJson: a ${typeof value} at ${at} is not JSON`);
  }
  if (seen.has(value)) throw new SwarmError('invalid_input', `canonicalJson: cycle at ${at}`);
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      return `[${value
        .map((v: unknown, i) => {
          if (v === undefined) throw new SwarmError('invalid_input', `canonicalJson: undefined at ${at}[${i}]`);
          return encode(v, seen, `${at}[${i}]`);
        })
        .join(',')}]`;
    }
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      throw new SwarmError('invalid_input', `canonicalJson: a non-plain object at ${at} is not JSON`);
    }
    const obj = value as Record<string, unknown>;
    const parts: string[] = [];
    for (const key of Object.keys(obj).sort()) {
      const v = obj[key];
      if (v === undefined) continue;
      parts.push(`${JSON.stringify(key)}:${encode(v, seen, `${at}.${key}`)}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(value);
  }
}

/**
 * `sha256:<hex>` of canonicalJson(input): what a permission_response frame carries as `input_sha256`
 * to say which request input the leader saw and decided (docs/protocol.md#leader-signatures).
 */
export function inputDigest(input: Record<string, unknown>): string {
  return `sha256:${createHash('sha256').update(canonicalJson(input), 'utf8').digest('hex')}`;
}

function recordBytes(record: Record<string, unknown>): Uint8Array {
  const { signature: _ignored, ...rest } = record;
  return Buffer.from(canonicalJson(rest), 'utf8');
}

/** The record with `signature` set over all its other fields (any previous signature replaced). */
export function signRecord<T extends Record<string, unknown>>(
  record: T,
  privateKey: KeyObject,
): Omit<T, 'signature'> & { signature: string } {
  const { signature: _old, ...rest } = record;
  return { ...rest, signature: signBytes(recordBytes(rest), privateKey) };
}

/** True only if `record.signature` verifies over the rest of the record; never throws. */
export function verifyRecord(record: unknown, verifyKey: VerifyKeyInput): boolean {
  if (typeof record !== 'object' || record === null || Array.isArray(record)) return false;
  const sig: unknown = (record as { signature?: unknown }).signature;
  if (typeof sig !== 'string') return false;
  let bytes: Uint8Array;
  try {
    bytes = recordBytes(record as Record<string, unknown>);
  } catch {
    return false;
  }
  return verifyBytes(bytes, sig, verifyKey);
}
