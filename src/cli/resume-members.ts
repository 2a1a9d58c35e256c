// Resume as every front end does it (`swarm resume`, the console, the agent lead's powers): the
// lifecycle is teammates/resume.ts; the transcript check it needs comes from the runtime layer
// (runtime/conversation.ts), wired here; and the one line each member's outcome prints.
import type { Backend } from '../backends/backend.js';
import { SwarmError } from '../protocol/errors.js';
import { readConversation } from '../runtime/conversation.js';
import type { Env } from '../teammates/command-line.js';
import { resumeTeammates, type ResumeOptions, type ResumeResult } from '../teammates/resume.js';
import type { Team } from '../team/team.js';

/** How many messages `file` restores; SwarmError when a corrupt line would lose part of the conversation. */
export async function inspectTranscript(file: string): Promise<number> {
  const r = await readConversation(file).catch((e: unknown) => {
    throw new SwarmError('io', `its transcript ${file} is unreadable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  });
  if (r.corrupt !== undefined) throw new SwarmError('corrupt', `its transcript cannot be restored whole: ${r.corrupt}; repair or move that line, then resume again`);
  return r.messages.length;
}

export interface ResumeNamedOptions extends Partial<Omit<ResumeOptions, 'team' | 'names' | 'backend' | 'env'>> {
  backend: Backend;
  env: Env;
}

/** Resume `names` (stopped members, checked by the caller) of `team`; one result each. */
export function resumeNamed(team: Team, names: readonly string[], o: ResumeNamedOptions, onSettled?: (r: ResumeResult) => void): Promise<ResumeResult[]> {
  return resumeTeammates({ inspectTranscript, ...o, team, names }, onSettled);
}

/** `resumed alice: ready (12 turns restored, 1 unread message waiting)`, or the failure's first line. */
export function resumedLine(r: ResumeResult): string {
  if (!r.ok) return r.error.message.split('\n')[0]!;
  const what = r.runtime === 'claude' ? 'its original prompt sent again' : `${r.restored} turn${r.restored === 1 ? '' : 's'} restored`;
  const unread = r.unread === 0 ? '' : `, ${r.unread} unread message${r.unread === 1 ? '' : 's'} waiting`;
  return `resumed ${r.name}: ready (${what}${unread})`;
}
