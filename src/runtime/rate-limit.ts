// Team-wide rate-limit backoff (docs/protocol.md#teammate-runtime): a 429 seen by any swarm-runtime member makes every member
// of the team wait out the same retry-after, instead of each hammering the API on its own schedule.
//
// File: teams/<team>/ratelimit.json, `{until, by, status, at}` in epoch ms (protocol/rate-limit.ts).
// Write: a member whose model call got a 429 records `until = now + the delay it is about to wait`
// (the server's retry-after, else its own backoff) under the file's lock (storage mutateJsonFile),
// keeping a later `until` another member already wrote. Read: lock-free before every model attempt
// (first and retries); a future `until` is waited out (abortable; at most MAX_SERVER_DELAY_MS per
// attempt, so a hand-edited far future cannot stall the team), shown as one pane line and logged;
// a past one is ignored and left in place. A corrupt file is kept aside and reported (storage
// quarantine); a failed read or write is a warning and the member goes on: this file only spreads
// a wait, it never stops anyone. Claude Code teammates (`--runtime claude`) do not read it.
import { setTimeout as delay } from 'node:timers/promises';
import { sameName } from '../protocol/names.js';
import { RateLimitSchema, type RateLimit } from '../protocol/rate-limit.js';
import { mutateJsonFile, readJsonFile, type JsonFileOptions } from '../storage/json-file.js';
import type { Team } from '../team/team.js';
import { MAX_SERVER_DELAY_MS } from './model-call.js';
import type { RetryInfo } from './retry.js';
import type { TranscriptEvent } from './transcript.js';

/** What ModelClient asks of the team's backoff (its `teamBackoff` option). */
export interface TeamBackoff {
  /** Before every model attempt: resolves once the team's rate limit (if any) has passed; rejects only on abort. */
  beforeAttempt(signal?: AbortSignal): Promise<void>;
  /** A retryable failure about to be waited out: a 429 is recorded for the whole team. Never rejects. */
  failed(info: RetryInfo): Promise<void>;
}

/** Where the backoff shows and logs what it does: a PaneView and a Transcript fit. */
export interface TeamBackoffOutput {
  view: { waiting(text: string): void; warn(text: string): void };
  transcript: { append(event: TranscriptEvent): void };
}

export const RATE_LIMIT_STATUS = 429;

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The team backoff of member `name`, for its ModelClient (teammates and the agent lead alike). */
export function createTeamBackoff(team: Team, name: string, out: TeamBackoffOutput, now: () => number = Date.now): TeamBackoff {
  const file = team.paths.rateLimit;
  const opts: JsonFileOptions<RateLimit | undefined> = {
    schema: RateLimitSchema,
    init: () => undefined,
    onCorrupt: (r) => out.view.warn(`${r.file} was corrupt (${r.problem}); kept as ${r.keptAs}, going on`),
  };

  async function read(): Promise<RateLimit | undefined> {
    try {
      return await readJsonFile(file, opts);
    } catch (e) {
      out.view.warn(`team rate limit: ${message(e)}; going on without waiting`);
      return undefined;
    }
  }

  return {
    async beforeAttempt(signal) {
      const deadline = now() + MAX_SERVER_DELAY_MS;
      for (;;) {
        const limit = await read();
        const until = Math.min(limit?.until ?? 0, deadline);
        const waitMs = until - now();
        if (limit === undefined || waitMs <= 0) return;
        // Our own 429's wait is already on screen (the retry line): only the wait is left.
        if (!sameName(limit.by, name)) {
          out.view.waiting(`team rate-limited (${limit.status} seen by ${limit.by}): waiting ${seconds(waitMs)}`);
          out.transcript.append({ kind: 'team_rate_limit', by: limit.by, status: limit.status, until: limit.until, waitMs });
        }
        await delay(waitMs, undefined, signal ? { signal } : {});
      }
    },

    async failed(info) {
      if (info.status !== RATE_LIMIT_STATUS) return;
      const at = now();
      const record: RateLimit = { until: at + info.delayMs, by: name, status: info.status, at };
      try {
        await mutateJsonFile(file, opts, (current) => (current !== undefined && current.until >= record.until ? { result: undefined } : { write: record, result: undefined }));
      } catch (e) {
        out.view.warn(`team rate limit: cannot record the 429 for the team: ${message(e)}; going on`);
      }
    },
  };
}
