// The leader's control messages this teammate has acted on, by msg_id, kept across restarts in
// `teams/<team>/status/<name>.acted.jsonl` (one JSON string per line, appended durably; read by
// storage/jsonl.ts's rule: a torn last line is not written yet and is cut off before the next
// append, a bad line is skipped and reported). A restarted teammate therefore never obeys the
// same signed shutdown_request, plan approval or mode change twice.
import { appendJsonlSync, jsonlBadLines, jsonlValues, readJsonlSync, type JsonlText, type LineCheck } from '../storage/jsonl.js';

const msgIdLine: LineCheck<string> = (json) => (typeof json === 'string' ? { ok: true, value: json } : { ok: false, problem: 'not a msg_id' });

/** What the runtime needs of the acted-on set (a plain Set does for tests). */
export interface ActedSet {
  has(msgId: string): boolean;
  add(msgId: string): unknown;
}

export class ActedLog implements ActedSet {
  private readonly ids = new Set<string>();

  /** Load `file` (missing = nothing acted on yet); `onBadLine` hears of lines that do not parse. */
  constructor(
    private readonly file: string,
    private readonly onError: (message: string) => void,
  ) {
    let read: JsonlText<string> = { lines: [] };
    try {
      read = readJsonlSync(file, msgIdLine);
    } catch (e) {
      onError(`${(e as Error).message}; earlier acted-on messages are unknown`);
    }
    for (const bad of jsonlBadLines(read)) onError(`${file} line ${bad.line} is not a msg_id; skipped`);
    for (const id of jsonlValues(read)) this.ids.add(id);
  }

  has(msgId: string): boolean {
    return this.ids.has(msgId);
  }

  /** Remember `msgId`, in memory at once and on disk before returning (a failed write is reported). */
  add(msgId: string): this {
    if (this.ids.has(msgId)) return this;
    this.ids.add(msgId);
    try {
      appendJsonlSync(this.file, [msgId]);
    } catch (e) {
      this.onError(`cannot record acted-on message ${msgId} in ${this.file}: ${(e as Error).message}`);
    }
    return this;
  }
}
