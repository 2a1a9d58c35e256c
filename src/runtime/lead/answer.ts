// The agent lead's last answer, from its transcript (logs/team-lead.jsonl, where runLead records
// `{kind: "finished", answer}` each time its team comes to rest): for a caller that outlives the
// console, such as `swarm demo` printing the answer after its session is gone. Read by
// storage/jsonl.ts's rule: a torn last line (the process died mid-write) is not written yet, so the
// earlier entries stand; a corrupt whole line could have been a later answer, so it is an error.
import { LEAD_NAME } from '../../protocol/names.js';
import { SwarmError } from '../../protocol/errors.js';
import { jsonlBadLines, jsonlValues, readJsonl } from '../../storage/jsonl.js';
import type { Team } from '../../team/team.js';

/** The answer of the lead's last finished run, or undefined (no transcript, or it never finished). */
export async function lastLeadAnswer(team: Team): Promise<string | undefined> {
  const file = team.paths.log(LEAD_NAME);
  const read = await readJsonl(file);
  const bad = jsonlBadLines(read)[0];
  if (bad !== undefined) throw new SwarmError('corrupt', `${file} line ${bad.line} is not JSON, so the lead's answer cannot be read; inspect it with 'jq -c . ${file}'`);
  let answer: string | undefined;
  for (const e of jsonlValues(read) as { kind?: unknown; answer?: unknown }[]) {
    if (e?.kind === 'finished' && typeof e.answer === 'string') answer = e.answer;
  }
  return answer;
}
