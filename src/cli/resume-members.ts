// Resume as every front end does it (`swarm resume`, the console, the agent lead's powers): the
// lifecycle is teammates/resume.ts; the transcript check it needs comes from the runtime layer
// (runtime/conversation.ts), wired here; and the one line each member's outcome prints. The console
// and the agent lead resume a stopped member when they message it (`resumeRecipients`, docs/protocol.md#transcripts-and-resume);
// the plain `swarm send` only says how.
import type { Backend } from '../backends/backend.js';
import { selectBackend } from '../backends/registry.js';
import { SwarmError } from '../protocol/errors.js';
import { readConversation } from '../runtime/conversation.js';
import type { Env } from '../teammates/command-line.js';
import { resumeTeammates, type ResumeOptions, type ResumeResult } from '../teammates/resume.js';
import { stoppedAmong } from '../teammates/status-report.js';
import { findMember, readTeam } from '../team/team-store.js';
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

/**
 * Resume `names` (stopped members, checked by the caller) of `team`; one result each. A member on
 * another machine (`host`, the ssh backend) comes back on that machine, through its own backend;
 * the others on `o.backend`.
 */
export async function resumeNamed(team: Team, names: readonly string[], o: ResumeNamedOptions, onSettled?: (r: ResumeResult) => void): Promise<ResumeResult[]> {
  const config = await readTeam(team);
  const byHost = new Map<string | undefined, string[]>();
  for (const name of names) {
    const host = findMember(config, name)?.host;
    byHost.set(host, [...(byHost.get(host) ?? []), name]);
  }
  const groups = [...byHost].map(async ([host, group]) => {
    const backend = host === undefined ? o.backend : (await selectBackend({ requested: 'ssh', host, env: o.env, team })).backend;
    return resumeTeammates({ inspectTranscript, ...o, backend, team, names: group }, onSettled);
  });
  return (await Promise.all(groups)).flat();
}

/** `resumed alice: ready (12 turns restored, 1 unread message waiting)`, or the failure's first line. */
export function resumedLine(r: ResumeResult): string {
  if (!r.ok) return r.error.message.split('\n')[0]!;
  const claude = r.continued ? 'its Claude Code session continued' : 'its original prompt sent again';
  const what = r.runtime === 'claude' ? claude : `${r.restored} turn${r.restored === 1 ? '' : 's'} restored`;
  const unread = r.unread === 0 ? '' : `, ${r.unread} unread message${r.unread === 1 ? '' : 's'} waiting`;
  return `resumed ${r.name}: ready (${what}${unread})`;
}

/**
 * After a message went out: resume the stopped ones among its recipients (the message waits in
 * their inbox and is delivered once they run). `backend` is asked only when one is stopped.
 * One line per stopped recipient, resumed or not (a failure says why; the member stays stopped).
 */
export async function resumeRecipients(
  team: Team,
  recipients: readonly string[],
  o: { backend: () => Promise<Backend>; env: Env; onNotice?: (text: string) => void },
): Promise<string[]> {
  const stopped = await stoppedAmong(team, recipients, o.env);
  if (stopped.length === 0) return [];
  const backend = await o.backend();
  const results = await resumeNamed(team, stopped, { backend, env: o.env, ...(o.onNotice ? { onNotice: o.onNotice } : {}) });
  return results.map((r) =>
    r.ok
      ? `${resumedLine(r)} — it was stopped (its process and pane were gone) and reads the message now`
      : `${r.name} is stopped and could not be resumed, so the message waits in its inbox: ${r.error.message.split('\n')[0]}`,
  );
}
