// The leader's control messages this teammate has acted on, by msg_id, kept across restarts in
// `teams/<team>/status/<name>.acted.jsonl` (one JSON string per line, appended durably; a line
// that does not parse is skipped and reported). A restarted teammate therefore never obeys the
// same signed shutdown_request, plan approval or mode change twice.
import { readFileSync } from 'node:fs';
import { errnoCode } from '../protocol/errors.js';
import { appendFileDurableSync } from '../storage/atomic.js';

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
    let raw = '';
    try {
      raw = readFileSync(file, 'utf8');
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') onError(`cannot read ${file}: ${(e as Error).message}; earlier acted-on messages are unknown`);
    }
    raw.split('\n').forEach((line, i) => {
      if (line.trim() === '') return;
      try {
        const id: unknown = JSON.parse(line);
        if (typeof id === 'string') return void this.ids.add(id);
      } catch {
        // reported below
      }
      onError(`${file} line ${i + 1} is not a msg_id; skipped`);
    });
  }

  has(msgId: string): boolean {
    return this.ids.has(msgId);
  }

  /** Remember `msgId`, in memory at once and on disk before returning (a failed write is reported). */
  add(msgId: string): this {
    if (this.ids.has(msgId)) return this;
    this.ids.add(msgId);
    try {
      appendFileDurableSync(this.file, `${JSON.stringify(msgId)}\n`);
    } catch (e) {
      this.onError(`cannot record acted-on message ${msgId} in ${this.file}: ${(e as Error).message}`);
    }
    return this;
  }
}
