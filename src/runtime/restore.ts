// A resumed teammate's conversation (`swarm teammate --resume`, run by `swarm resume`, docs/protocol.md#transcripts-and-resume):
// logs/<name>.jsonl rebuilt by conversation.ts. A last line cut short (a crash mid-write) is cut
// off the file before the teammate appends to it again — else its next line would be glued to the
// half line, turning the tail into corruption in the middle — and said in `notes`; the newline
// that ends the line before it stays, so the next append starts a line of its own. A corrupt line
// with lines after it refuses the resume (a SwarmError naming the line): the conversation is never
// guessed, and the teammate starts nothing, so the member stays stopped.
// The permission mode it last ran in (the last `control` line with `what: "mode"`: a plan approved,
// a mode set by the leader) is restored too, so an approved plan is not asked for again.
import { promises as fs } from 'node:fs';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import { PermissionModeSchema, type PermissionMode } from '../protocol/config.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { conversationFromText } from './conversation.js';

export interface Restored {
  messages: MessageParam[];
  /** For the pane and the transcript: what was repaired. */
  notes: string[];
  /** The permission mode it last switched to, if the transcript records one. */
  mode?: PermissionMode;
}

const ModeLineSchema = z.looseObject({ kind: z.literal('control'), what: z.literal('mode'), mode: PermissionModeSchema });

/** The mode of the last whole `control`/`mode` line of a transcript's text. */
function lastMode(text: string): PermissionMode | undefined {
  let mode: PermissionMode | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('"mode"')) continue; // a shortcut: the rebuild has parsed every line once already
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch {
      // not a whole line (the rebuild reports those): undefined, which the schema refuses
    }
    const parsed = ModeLineSchema.safeParse(json);
    if (parsed.success) mode = parsed.data.mode;
  }
  return mode;
}

/**
 * Where the last line of `text` starts: just after the newline that ends the line before it (kept).
 * The search starts before the last character, which is the line's own newline if it has one.
 */
function lastLineStart(text: string): number {
  return text.lastIndexOf('\n', text.length - 2) + 1;
}

/** Rebuild the conversation of `file`; throws SwarmError('corrupt') when it cannot be restored whole. */
export async function restoreConversation(file: string): Promise<Restored> {
  const text = await fs.readFile(file, 'utf8').catch((e: unknown) => {
    if (errnoCode(e) === 'ENOENT') return '';
    throw new SwarmError('io', `cannot resume: ${file} is unreadable (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  });
  const rebuilt = conversationFromText(text, file);
  if (rebuilt.corrupt !== undefined) {
    throw new SwarmError('corrupt', `cannot resume: ${rebuilt.corrupt}; repair or move that line, then run swarm resume again`);
  }
  const notes: string[] = [];
  if (rebuilt.skipped !== undefined) {
    const end = lastLineStart(text);
    await fs.truncate(file, Buffer.byteLength(text.slice(0, end)));
    notes.push(`${rebuilt.skipped}; its ${text.length - end} characters were cut off the transcript`);
  }
  const mode = lastMode(text);
  return { messages: rebuilt.messages, notes, ...(mode ? { mode } : {}) };
}
