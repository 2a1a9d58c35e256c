// The agent lead's last answer, from its transcript (logs/team-lead.jsonl, where runLead records
// `{kind: "finished", answer}` each time its team comes to rest): for a caller that outlives the
// console, such as `swarm demo` printing the answer after its session is gone.
import { promises as fs } from 'node:fs';
import { LEAD_NAME } from '../../protocol/names.js';
import type { Team } from '../../team/team.js';

/** The answer of the lead's last finished run, or undefined (no transcript, or it never finished). */
export async function lastLeadAnswer(team: Team): Promise<string | undefined> {
  const text = await fs.readFile(team.paths.log(LEAD_NAME), 'utf8').catch(() => '');
  let answer: string | undefined;
  for (const line of text.split('\n')) {
    if (!line.includes('"finished"')) continue;
    try {
      const e = JSON.parse(line) as { kind?: unknown; answer?: unknown };
      if (e.kind === 'finished' && typeof e.answer === 'string') answer = e.answer;
    } catch {
      // a torn last line (the process died mid-write): the earlier entries stand
    }
  }
  return answer;
}
