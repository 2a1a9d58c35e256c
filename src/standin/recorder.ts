// The stand-in's request log: every answered request in order, and waiting on it with a deadline
// (a condition checked on each new record, never a sleep).

import { SwarmError } from '../protocol/errors.js';
import type { RecordedRequest } from './request.js';

export interface RequestRecorder {
  /** Live array: grows as requests are answered. */
  readonly requests: RecordedRequest[];
  record(request: RecordedRequest): void;
  /** Resolves with `requests` once it holds at least `count`; rejects with SwarmError('timeout'). */
  waitFor(count: number, timeoutMs: number): Promise<RecordedRequest[]>;
  /** Rejects every pending wait (the server is closing). */
  cancelAll(reason: string): void;
}

interface Waiter {
  check(): void;
  fail(reason: string): void;
}

function summary(requests: RecordedRequest[]): string {
  return requests.map((r) => `${r.agent || '-'}:${r.outcome}`).join(', ');
}

export function createRecorder(): RequestRecorder {
  const requests: RecordedRequest[] = [];
  const waiters = new Set<Waiter>();

  function waitFor(count: number, timeoutMs: number): Promise<RecordedRequest[]> {
    return new Promise((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(waiter);
      };
      const waiter: Waiter = {
        check: () => {
          if (requests.length < count) return;
          done();
          resolve(requests);
        },
        fail: (reason) => {
          done();
          reject(new SwarmError('timeout', reason));
        },
      };
      const timer = setTimeout(() => {
        const got = `got ${requests.length} [${summary(requests)}]`;
        waiter.fail(`waited ${timeoutMs} ms for ${count} request(s) to the stand-in, ${got}`);
      }, timeoutMs);
      waiters.add(waiter);
      waiter.check();
    });
  }

  return {
    requests,
    record(request) {
      requests.push(request);
      for (const w of [...waiters]) w.check();
    },
    waitFor,
    cancelAll(reason) {
      for (const w of [...waiters]) w.fail(reason);
    },
  };
}
