// Name rules (SPEC §3.1): which team and member names are accepted, and agent id parsing.
import { describe, expect, it } from 'vitest';
import {
  agentId,
  assertEnvName,
  assertInboxName,
  assertMemberName,
  assertTeamName,
  isSwarmError,
  parseAgentId,
  sameName,
  SwarmError,
} from '../../src/protocol/index.js';

function kindOf(fn: () => unknown): string {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return isSwarmError(e) ? e.kind : `not a SwarmError: ${String(e)}`;
  }
}

const a64 = 'a'.repeat(64);
const a65 = 'a'.repeat(65);

// [input, team name ok?, member name ok?]
const TABLE: [string, boolean, boolean][] = [
  ['review-squad', true, true],
  ['a', true, true],
  ['0team', true, true],
  [a64, true, true],
  [a65, false, false],
  ['', false, false],
  ['../x', false, false],
  ['..', false, false],
  ['.', false, false],
  ['a/b', false, false],
  ['a\\b', false, false],
  ['/abs', false, false],
  ['a\u0000b', false, false],
  ['a\nb', false, false],
  ['abc\n', false, false],
  ['a\tb', false, false],
  ['a\u001bb', false, false],
  ['a\u007fb', false, false],
  ['alice@team', false, false],
  ['a b', false, false],
  [' a', false, false],
  ['a ', false, false],
  ['café', false, false],
  ['ａｌｉｃｅ', false, false], // full-width letters
  ['名前', false, false],
  ['-lead', false, false],
  ['_x', false, false],
  ['Alice', false, true],
  ['w_1', false, true],
  ['a.b', false, false],
  ['*', false, false],
  ['a*', false, false],
  ['team-lead', true, false], // reserved as a member, fine as a team
  ['Team-Lead', false, false],
  ['TEAM-LEAD', false, false],
  ['user', true, false],
  ['User', false, false],
  ['system', true, false],
  ['main', true, false],
  ['MAIN', false, false],
];

describe('team and member names', () => {
  it.each(TABLE)('%j → team %s, member %s', (input, teamOk, memberOk) => {
    expect(kindOf(() => assertTeamName(input))).toBe(teamOk ? 'ok' : 'invalid_name');
    expect(kindOf(() => assertMemberName(input))).toBe(memberOk ? 'ok' : 'invalid_name');
  });

  it('64 characters is the longest name; errors say the limit', () => {
    expect(assertTeamName(a64)).toBe(a64);
    expect(assertMemberName(`A${'b'.repeat(63)}`)).toHaveLength(64);
    expect(() => assertTeamName(a65)).toThrow(/1-64/);
    expect(() => assertMemberName('x'.repeat(100))).toThrow(/100 chars/);
  });

  it('shows control characters visibly in the error message', () => {
    expect(() => assertMemberName('a\u0000b')).toThrow(/a\\x00b/);
  });

  it('says why a reserved name is refused', () => {
    expect(() => assertMemberName('Team-Lead')).toThrow(/reserved/);
    expect(() => assertMemberName('*')).toThrow(SwarmError);
  });

  it('inbox names: members and team-lead pass, paths do not', () => {
    expect(assertInboxName('team-lead')).toBe('team-lead');
    expect(assertInboxName('alice')).toBe('alice');
    for (const bad of ['../x', 'a/b', '', 'a\u0000', 'a@b', '*']) {
      expect(kindOf(() => assertInboxName(bad)), bad).toBe('invalid_name');
    }
  });

  it('sameName compares case-insensitively', () => {
    expect(sameName('Alice', 'alice')).toBe(true);
    expect(sameName('alice', 'alice2')).toBe(false);
  });
});

describe('agent ids', () => {
  it('build and parse <name>@<team>', () => {
    expect(agentId('alice', 'review-squad')).toBe('alice@review-squad');
    expect(parseAgentId('alice@review-squad')).toEqual({ name: 'alice', team: 'review-squad' });
    expect(parseAgentId('team-lead@review-squad')).toEqual({ name: 'team-lead', team: 'review-squad' });
    expect(parseAgentId('Bob_2@t1')).toEqual({ name: 'Bob_2', team: 't1' });
  });

  it.each([
    'alice',
    '@team',
    'alice@',
    '',
    'a@b@team',
    '../x@team',
    'alice@../x',
    'alice@Team',
    'user@team',
    'alice@team/x',
    'al ice@team',
  ])('rejects %j', (id) => {
    expect(kindOf(() => parseAgentId(id))).toBe('invalid_name');
  });
});

describe('assertEnvName', () => {
  it('takes letters, digits and _ not starting with a digit; refuses anything else with the rule', () => {
    expect(assertEnvName('SWARM_TEAM')).toBe('SWARM_TEAM');
    expect(assertEnvName('_x9')).toBe('_x9');
    for (const bad of ['', '9A', 'A-B', 'A B', 'A=B']) {
      expect(() => assertEnvName(bad)).toThrow(/invalid environment variable name .*: use letters, digits and '_'/);
    }
  });
});
