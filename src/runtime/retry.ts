// Retrying model calls: which errors are worth another try, and how long to wait.
//
// Retried: HTTP 408, 409, 429, 5xx (529 overloaded included) and network failures (a refused or
// dropped connection, a stream cut off mid-reply), unless the server says `x-should-retry: false`.
// Everything else (400, 401, 403, 404, 413, a credentials problem) is fatal at once.
// Delay: the server's `retry-after-ms` / `retry-after` (seconds or an HTTP date) when present, capped
// at MAX_SERVER_DELAY_MS; otherwise base * 2^(attempt-1) with ±25 % jitter, capped at MAX_BACKOFF_MS.
// The SDK's own retries are off (maxRetries: 0) so every attempt is ours: logged, shown, testable.
// Hooks: `beforeAttempt` runs before every attempt and `onRetry` is awaited before each delay, so a
// caller can share its waits with the team (runtime/rate-limit.ts).
// Loaded with the SDK on the first model step (model-client.ts); what callers need before that is in
// model-call.ts.
import { setTimeout as delay } from 'node:timers/promises';
import { APIConnectionError, APIError, APIUserAbortError, AnthropicError } from '@anthropic-ai/sdk';
import { MAX_SERVER_DELAY_MS, ModelCallError } from './model-call.js';

export const MAX_BACKOFF_MS = 32_000;

export type ErrorClass =
  | { retry: true; status?: number; why: string; serverDelayMs?: number }
  | { retry: false; status?: number; why: string; aborted?: boolean };

function headerDelayMs(headers: Headers | undefined, now: number): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headers.get('retry-after');
  if (after === null || after.trim() === '') return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function describeStatus(status: number): string {
  if (status === 429) return 'rate limited (429)';
  if (status === 529) return 'overloaded (529)';
  return `HTTP ${status}`;
}

/** Classify an error thrown by the SDK (or the network under it). */
export function classifyError(e: unknown, now = Date.now()): ErrorClass {
  if (e instanceof APIUserAbortError || (e instanceof Error && e.name === 'AbortError')) {
    return { retry: false, why: 'aborted', aborted: true };
  }
  if (e instanceof APIConnectionError) return { retry: true, why: `network error: ${e.message}` };
  if (e instanceof APIError && typeof e.status === 'number') {
    const status = e.status;
    const message = `${describeStatus(status)}: ${e.apiMessage ?? e.message}`;
    if (e.headers?.get('x-should-retry') === 'false') return { retry: false, status, why: message };
    const retryable = status === 408 || status === 409 || status === 429 || status >= 500;
    if (!retryable) return { retry: false, status, why: message };
    const serverDelayMs = headerDelayMs(e.headers, now);
    return serverDelayMs === undefined ? { retry: true, status, why: message } : { retry: true, status, why: message, serverDelayMs };
  }
  // A stream cut off mid-reply surfaces as an AnthropicError (or a bare TypeError) caused by the
  // socket error; an error without a cause is a client-side problem (e.g. no credentials).
  if (e instanceof Error && (e.cause !== undefined || 'code' in e)) {
    return { retry: true, why: `network error: ${e.message}` };
  }
  if (e instanceof AnthropicError) return { retry: false, why: e.message };
  return { retry: false, why: e instanceof Error ? e.message : String(e) };
}

export interface RetryPolicy {
  baseMs: number;
  maxRetries: number;
  /** Random source in [0, 1) for jitter (injectable for tests). */
  random?: () => number;
}

/** How long to wait before retry number `attempt` (1-based). */
export function retryDelayMs(attempt: number, cls: Extract<ErrorClass, { retry: true }>, policy: RetryPolicy): number {
  if (cls.serverDelayMs !== undefined) return Math.min(cls.serverDelayMs, MAX_SERVER_DELAY_MS);
  const exp = Math.min(policy.baseMs * 2 ** (attempt - 1), MAX_BACKOFF_MS);
  const jitter = 1 + ((policy.random ?? Math.random)() - 0.5) / 2;
  return Math.round(exp * jitter);
}

export interface RetryInfo {
  attempt: number;
  delayMs: number;
  why: string;
  status?: number;
}

export interface RetryHooks {
  signal?: AbortSignal;
  /** A retryable failure, before its delay; a promise it returns is awaited (e.g. telling the team about a 429). */
  onRetry?: (info: RetryInfo) => unknown;
  /** Awaited before every attempt, the first included (e.g. to wait out the team's rate limit). Only an abort may end it with an error. */
  beforeAttempt?: (attempt: number) => Promise<void>;
}

/** Run `call` until it succeeds, a fatal error, `maxRetries` retries, or an abort. */
export async function withRetries<T>(call: (attempt: number) => Promise<T>, policy: RetryPolicy, opts: RetryHooks = {}): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    if (opts.beforeAttempt) {
      try {
        await opts.beforeAttempt(attempt);
      } catch (e) {
        if (opts.signal?.aborted) throw new ModelCallError('aborted', undefined, true, { cause: e });
        throw e;
      }
    }
    try {
      return await call(attempt);
    } catch (e) {
      if (opts.signal?.aborted) throw new ModelCallError('aborted', undefined, true, { cause: e });
      const cls = classifyError(e);
      if (!cls.retry) throw new ModelCallError(cls.why, cls.status, cls.retry === false && cls.aborted === true, { cause: e });
      if (attempt > policy.maxRetries) {
        throw new ModelCallError(`${cls.why} (gave up after ${policy.maxRetries} retries)`, cls.status, false, { cause: e });
      }
      const delayMs = retryDelayMs(attempt, cls, policy);
      await opts.onRetry?.({ attempt, delayMs, why: cls.why, ...(cls.status !== undefined ? { status: cls.status } : {}) });
      try {
        await delay(delayMs, undefined, opts.signal ? { signal: opts.signal } : {});
      } catch (abortError) {
        throw new ModelCallError('aborted', undefined, true, { cause: abortError });
      }
    }
  }
}
