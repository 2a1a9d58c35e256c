// A resumed teammate's conversation (`swarm teammate --resume`, run by `swarm resume`, docs/protocol.md#transcripts-and-resume):
// logs/<name>.jsonl rebuilt by conversation.ts. A torn last line (no newline: a crash mid-write,
// storage/jsonl.ts) is cut off the file before the teammate appends to it again — else its next
// line would be glued to the half line, turning the tail into corruption in the middle — and said
// in `notes`; the newline that ends the line before it stays, so the next append starts a line of
// its own. A corrupt whole line refuses the resume (a SwarmError naming the line): the conversation
// is never guessed, and the teammate starts nothing, so the member stays stopped.
// The permission mode it last ran in (the last `control` line with `what: "mode"`: a plan approved,
// a mode set by the leader) is restored too, so an approved plan is not asked for again. And the
// keys of the inbox entries it took (`inbox_taking`, written before the inbox marks them read) and
// never delivered (no `user` line's `delivered`, no `inbox_delivered`): inbox-delivery.ts gives
// those again, so a crash between taking a message and writing the turn that carries it loses none.
import { promises as fs } from 'node:fs';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import * as z from 'zod';
import { PermissionModeSchema, type PermissionMode } from '../protocol/config.js';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { jsonlValues, parseJsonl, type LineCheck } from '../storage/jsonl.js';
import { conversationFromText } from './conversation.js';

export interface Restored {
  messages: MessageParam[];
  /** For the pane and the transcript: what was repaired. */
  notes: string[];
  /** The permission mode it last switched to, if the transcript records one. */
  mode?: PermissionMode;
  /** Keys (messageKey) of inbox entries it took and never delivered, in the order taken. */
  undelivered: string[];
}

const Keys = z.array(z.string());

/** The lines a resume reads beside the conversation: the mode switched to, and what was taken from the inbox and delivered. */
const ResumeLineSchema = z.union([
  z.looseObject({ kind: z.literal('control'), what: z.literal('mode'), mode: PermissionModeSchema }),
  z.looseObject({ kind: z.literal('inbox_taking'), msgKeys: Keys }),
  z.looseObject({ kind: z.literal('inbox_delivered'), msgKeys: Keys }),
  z.looseObject({ kind: z.literal('user'), delivered: Keys }),
]);
type ResumeLine = z.infer<typeof ResumeLineSchema>;

const resumeLine: LineCheck<ResumeLine | undefined> = (json) => {
  const parsed = ResumeLineSchema.safeParse(json);
  return { ok: true, value: parsed.success ? parsed.data : undefined };
};

/**
 * In one pass over a transcript's text (the rebuild has refused a corrupt one): the mode of the last
 * whole `control`/`mode` line, and the keys taken (`inbox_taking`) and never delivered, in the order taken.
 */
function resumeState(text: string): { mode?: PermissionMode; undelivered: string[] } {
  let mode: PermissionMode | undefined;
  const taken = new Set<string>();
  for (const line of jsonlValues(parseJsonl(text, resumeLine))) {
    if (line?.kind === 'control') mode = line.mode;
    else if (line?.kind === 'inbox_taking') for (const key of line.msgKeys) taken.add(key);
    else if (line?.kind === 'inbox_delivered') for (const key of line.msgKeys) taken.delete(key);
    else if (line?.kind === 'user') for (const key of line.delivered) taken.delete(key);
  }
  return { ...(mode ? { mode } : {}), undelivered: [...taken] };
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
  if (rebuilt.skipped !== undefined && rebuilt.torn !== undefined) {
    await fs.truncate(file, rebuilt.torn.offset);
    notes.push(`${rebuilt.skipped}; its ${rebuilt.torn.chars} characters were cut off the transcript`);
  }
  return { messages: rebuilt.messages, notes, ...resumeState(text) };
}
