// The teammate's transcript, teams/<team>/logs/<name>.jsonl: one JSON line per event, appended by
// this process only (no lock), in order (appends are chained). Kinds:
//   start, model_step {stopReason, text, toolUses, usage}, tool_call {id, name, input},
//   tool_result {id, name, isError, chars, preview}, permission {tool, decision, feedback?, id?},
//   message_in {from, msgId, kind, verified?, text}, message_out {to, kind, text}, retry,
//   inbox_taking {msgKeys} / inbox_delivered {msgKeys} (inbox-delivery.ts; `user` lines carry `delivered`),
//   team_rate_limit {by, status, until, waitMs} (rate-limit.ts), state,
//   control {what, ...}, error, exit {code, reason}; and the conversation itself (agent-loop.ts,
//   schemas in protocol/conversation.ts): user {content}, assistant {content} (each message's blocks
//   whole, as sent), compaction {summary, replaced, promptTokens}, compaction_failed {error}.
// Lines are plain appends (no fsync per line): a process killed in the middle of one (or a power
// cut) may leave the last line cut short, which the rebuild (conversation.ts) skips.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { ensureDir, FILE_MODE } from '../storage/atomic.js';

export type TranscriptEvent = { kind: string } & Record<string, unknown>;

/** Where the agent loop and the tool runner write their events: the transcript, or a subagent's part of it. */
export interface TranscriptSink {
  append(event: TranscriptEvent): void;
}

/**
 * A subagent's events in its teammate's transcript (runtime/subagent.ts): each kind prefixed
 * `subagent_`, tagged `subagent: <id>`, so the conversation rebuild (conversation.ts) never takes
 * a subagent's `user`/`assistant` lines for the teammate's own.
 */
export function subagentTranscript(parent: TranscriptSink, id: string): TranscriptSink {
  return { append: (event) => parent.append({ ...event, kind: `subagent_${event.kind}`, subagent: id }) };
}

export class Transcript implements TranscriptSink {
  private chain: Promise<void> = Promise.resolve();
  private ready: Promise<void> | undefined;

  constructor(
    readonly file: string,
    private readonly now: () => number = Date.now,
    private readonly onError?: (e: unknown) => void,
  ) {}

  append(event: TranscriptEvent): void {
    const line = `${JSON.stringify({ at: new Date(this.now()).toISOString(), ...event })}\n`;
    this.ready ??= ensureDir(path.dirname(this.file));
    const ready = this.ready;
    this.chain = this.chain
      .then(() => ready)
      .then(() => fs.appendFile(this.file, line, { mode: FILE_MODE }))
      .catch((e: unknown) => this.onError?.(e));
  }

  /** Resolves once every line appended so far is written. */
  flush(): Promise<void> {
    return this.chain;
  }
}
