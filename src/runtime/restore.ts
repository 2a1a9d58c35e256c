// A resumed teammate's conversation (`swarm teammate --resume`, run by `swarm resume`, SPEC §11):
// logs/<name>.jsonl rebuilt by conversation.ts. A last line cut short (a crash mid-write) is cut
// off the file before the teammate appends to it again — else its next line would be glued to the
// half line, turning the tail into corruption in the middle — and said in `notes`. A corrupt line
// with lines after it refuses the resume (a SwarmError naming the line): the conversation is never
// guessed, and the teammate starts nothing, so the member stays stopped.
import { promises as fs } from 'node:fs';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { SwarmError } from '../protocol/errors.js';
import { readConversation } from './conversation.js';

export interface Restored {
  messages: MessageParam[];
  /** For the pane and the transcript: what was repaired. */
  notes: string[];
}

/** Rebuild the conversation of `file`; throws SwarmError('corrupt') when it cannot be restored whole. */
export async function restoreConversation(file: string): Promise<Restored> {
  const rebuilt = await readConversation(file).catch((e: unknown) => {
    throw new SwarmError('io', `cannot resume: ${file} is unreadable (${e instanceof Error ? e.message : String(e)})`, { cause: e });
  });
  if (rebuilt.corrupt !== undefined) {
    throw new SwarmError('corrupt', `cannot resume: ${rebuilt.corrupt}; repair or move that line, then run swarm resume again`);
  }
  const notes: string[] = [];
  if (rebuilt.skipped !== undefined) {
    const raw = await fs.readFile(file, 'utf8');
    const end = raw.lastIndexOf('\n') + 1;
    await fs.truncate(file, Buffer.byteLength(raw.slice(0, end)));
    notes.push(`${rebuilt.skipped}; its ${raw.length - end} characters were cut off the transcript`);
  }
  return { messages: rebuilt.messages, notes };
}
