// Durations a person gives (`--hibernate-after 10m`, a team file's `hibernateAfter`): a number with a
// unit, read by the `ms` package; a bare number, a negative or zero one, or words are refused with
// one line that says what to give. The team file reports a bad one by line; spawn refuses it before
// anything is made.
import { describe, expect, it } from 'vitest';
import { parseTeamFileText } from '../../src/cli/launch/team-file.js';
import { parseDuration } from '../../src/protocol/duration.js';
import { createTeam, readTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { swarmInProcess } from '../support/cli.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-duration-');

describe('parseDuration', () => {
  it('reads a number with a unit', () => {
    expect(parseDuration('10m', '--x')).toBe(600_000);
    expect(parseDuration('30s', '--x')).toBe(30_000);
    expect(parseDuration('1.5h', '--x')).toBe(5_400_000);
    expect(parseDuration(' 2 minutes ', '--x')).toBe(120_000);
    expect(parseDuration('250ms', '--x')).toBe(250);
  });

  it('refuses a bare number, zero, a negative, words and non-strings, in one line naming the flag', () => {
    for (const bad of ['10', '0s', '-5m', 'soon', '', '10 parsecs', 600]) {
      expect(() => parseDuration(bad, '--hibernate-after'), String(bad)).toThrow(/^--hibernate-after: expected a duration with a unit \(30s, 10m, 1h\), got .+$/);
    }
  });
});

describe('where a duration is given', () => {
  it("a team file's hibernateAfter is read, a bad one named with its line", () => {
    const base = ['name: t', 'members:', '  - name: a', '    prompt: hi'];
    expect(parseTeamFileText([...base, 'hibernateAfter: 10m'].join('\n'), 'team.yaml', '/base').hibernateAfter).toBe('10m');
    expect(() => parseTeamFileText([...base, 'hibernateAfter: 10'].join('\n'), 'team.yaml', '/base')).toThrow(/^team\.yaml:5: hibernateAfter: expected a duration with a unit \(30s, 10m, 1h\), got 10/);
  });

  it('spawn --hibernate-after without a unit: one line, nothing created', async () => {
    await createTeam(root, { name: 'd', cwd: root });
    const r = await swarmInProcess(root, ['spawn', 'w1', '-p', 'hi', '--team', 'd', '--hibernate-after', '10']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe('swarm: --hibernate-after: expected a duration with a unit (30s, 10m, 1h), got "10"');
    expect((await readTeam(new Team(root, 'd'))).members.map((m) => m.name)).toEqual(['team-lead']);
  });
});
