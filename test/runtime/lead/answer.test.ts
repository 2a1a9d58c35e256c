// The agent lead's last answer from its transcript (runtime/lead/answer.ts), on real files: the last
// `finished` entry wins; a torn last line (a crash mid-write) is not written yet, so the earlier
// answer stands; a corrupt whole line could have been a later answer, so it is an error, not skipped.
import { mkdir, writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { lastLeadAnswer } from '../../../src/runtime/lead/answer.js';
import { Team } from '../../../src/team/team.js';
import { tempRoot } from '../../support/tmp-root.js';

async function leadLog(text: string | undefined): Promise<Team> {
  const team = new Team(await tempRoot(), 'sq');
  if (text !== undefined) {
    await mkdir(team.paths.logsDir, { recursive: true });
    await writeFile(team.paths.log('team-lead'), text);
  }
  return team;
}

const line = (e: object): string => `${JSON.stringify(e)}\n`;

describe('lastLeadAnswer', () => {
  it('is the answer of the last finished run; none without a transcript or a finished run', async () => {
    expect(await lastLeadAnswer(await leadLog(line({ kind: 'finished', answer: 'one' }) + line({ kind: 'state' }) + line({ kind: 'finished', answer: 'two' })))).toBe('two');
    expect(await lastLeadAnswer(await leadLog(undefined))).toBeUndefined();
    expect(await lastLeadAnswer(await leadLog(line({ kind: 'start' })))).toBeUndefined();
  });

  it('a torn last line is not read: the answer before it stands', async () => {
    expect(await lastLeadAnswer(await leadLog(`${line({ kind: 'finished', answer: 'one' })}{"kind":"finished","answer":"tw`))).toBe('one');
  });

  it('a corrupt whole line is an error naming it, never skipped', async () => {
    const team = await leadLog(`${line({ kind: 'finished', answer: 'one' })}{"kind":"finis\n${line({ kind: 'state' })}`);
    const file = team.paths.log('team-lead');
    await expect(lastLeadAnswer(team)).rejects.toMatchObject({ kind: 'corrupt', message: `${file} line 2 is not JSON, so the lead's answer cannot be read; inspect it with 'jq -c . ${file}'` });
  });
});
