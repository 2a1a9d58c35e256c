// Team files for `swarm launch` (src/cli/launch/team-file.ts): valid files parse (every one in examples/
// too), and every kind of mistake is reported with the file, the line and the field.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memberHosts, parseTeamFile, parseTeamFileText, taskBlockers, type TeamFile } from '../../../src/cli/launch/team-file.js';
import { isSwarmError } from '../../../src/protocol/errors.js';
import { REPO } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';

/** The error message of parsing `text` (fails the test if it parses). */
function errorOf(text: string): string {
  try {
    parseTeamFileText(text, 'team.yaml', '/base');
  } catch (e) {
    expect(isSwarmError(e, 'invalid_input'), String(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('expected a parse error');
}

describe('parseTeamFileText', () => {
  it('parses every field; relative cwd resolved against the file directory, absolute kept', () => {
    const team = parseTeamFileText(
      [
        'name: review-squad',
        'description: PR review',
        'backend: tmux',
        'permissionMode: acceptEdits',
        'model: claude-sonnet-4-5',
        'members:',
        '  - name: alice',
        '    prompt: |',
        '      Review src/app.ts.',
        '      Then report.',
        '    model: claude-opus-4-1',
        '    agentType: reviewer',
        '    planModeRequired: true',
        '    permissionMode: plan',
        '    cwd: ../app',
        '    runtime: claude',
        '  - name: Bob_2',
        '    prompt: Write tests.',
        '    cwd: /srv/repo',
        '',
      ].join('\n'),
      'team.yaml',
      '/home/u/teams',
    );
    expect(team).toEqual<TeamFile>({
      name: 'review-squad',
      description: 'PR review',
      backend: 'tmux',
      permissionMode: 'acceptEdits',
      model: 'claude-sonnet-4-5',
      members: [
        {
          name: 'alice',
          prompt: 'Review src/app.ts.\nThen report.\n',
          model: 'claude-opus-4-1',
          agentType: 'reviewer',
          planModeRequired: true,
          permissionMode: 'plan',
          cwd: '/home/u/app',
          runtime: 'claude',
        },
        { name: 'Bob_2', prompt: 'Write tests.', cwd: '/srv/repo' },
      ],
    });
  });

  it('isolation: worktree is the one isolation; another value names the line and the choice', () => {
    const team = parseTeamFileText(['name: t', 'members:', '  - name: a', '    prompt: p', '    isolation: worktree'].join('\n'), 'team.yaml', '/w');
    expect(team.members[0]).toEqual({ name: 'a', prompt: 'p', isolation: 'worktree' });
    expect(errorOf(['name: t', 'members:', '  - name: a', '    prompt: p', '    isolation: branch'].join('\n'))).toMatch(/^team\.yaml:5: members\[0\]\.isolation: .*"worktree"/);
  });

  it('an invalid member name: line and field, with the name rule', () => {
    const text = ['name: t', 'members:', '  - name: ok', '    prompt: p', '', '  # second', '  - name: a/b', '    prompt: p'].join('\n');
    expect(errorOf(text)).toBe(
      `team.yaml:7: members[1].name: invalid member name "a/b": use 1-64 letters, digits, '_' or '-', starting with a letter or digit`,
    );
  });

  it('reserved names, bad team name, bad enum values, all reported at once in line order', () => {
    const msg = errorOf(['name: Big Team', 'backend: screen', 'members:', '  - name: team-lead', '    prompt: p', '    runtime: python'].join('\n'));
    const lines = msg.split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^team\.yaml:1: name: invalid team name "Big Team": .* \(\+3 more\)$/);
    expect(lines[1]).toMatch(/^team\.yaml:2: backend: .*"auto"\|"tmux"\|"iterm2"\|"in-process"\|"ssh"/);
    expect(lines[2]).toMatch(/^team\.yaml:4: members\[0\]\.name: member name "team-lead" is reserved/);
    expect(lines[3]).toMatch(/^team\.yaml:6: members\[0\]\.runtime: .*"swarm"\|"claude"/);
  });

  it('duplicate names are rejected case-insensitively, even alongside other problems', () => {
    const msg = errorOf(['name: t', 'members:', '  - name: alice', '    prompt: p', '  - name: ALICE', '    prompt: p', '    model: ""'].join('\n'));
    expect(msg.split('\n')).toEqual([
      'team.yaml:5: members[1].name: duplicate member name "ALICE": members[0] is already "alice" (names are case-insensitive) (+1 more)',
      'team.yaml:7: members[1].model: expected a non-empty string',
    ]);
  });

  it('missing fields point at the member; unknown fields at the key, with a suggestion', () => {
    const msg = errorOf(['name: t', 'members:', '  - name: alice', '    planModeRequred: true', '  - name: bob', '    prompt: p', '    colour: red'].join('\n'));
    expect(msg.split('\n')).toEqual([
      'team.yaml:3: members[0].prompt: required field is missing (expected string) (+2 more)',
      'team.yaml:4: members[0].planModeRequred: unknown field (did you mean "planModeRequired"?)',
      'team.yaml:7: members[1].colour: unknown field (expected one of: name, prompt, model, agentType, planModeRequired, permissionMode, cwd, runtime, isolation, host)',
    ]);
  });

  it('wrong types and an empty member list', () => {
    expect(errorOf(['name: t', 'members: []'].join('\n'))).toBe('team.yaml:2: members: expected at least one member');
    expect(errorOf(['name: t', 'members:', '  - name: a', '    prompt: p', '    planModeRequired: "yes"'].join('\n'))).toMatch(
      /^team\.yaml:5: members\[0\]\.planModeRequired: .*expected boolean/,
    );
    expect(errorOf('members:\n  - name: a\n    prompt: p\n')).toBe('team.yaml:1: name: required field is missing (expected string)');
  });

  it('YAML syntax errors and non-mapping documents', () => {
    expect(errorOf(['name: t', 'members:', '  - name: a', '    prompt: [oops'].join('\n'))).toMatch(/^team\.yaml:4: YAML syntax: /);
    expect(errorOf(['name: t', 'name: u', 'members: []'].join('\n'))).toMatch(/^team\.yaml:2: YAML syntax: Map keys must be unique/);
    expect(errorOf('')).toBe('team.yaml:1: expected a mapping with "name" and "members", got an empty file');
    expect(errorOf('- a\n- b\n')).toBe('team.yaml:1: expected a mapping with "name" and "members", got a list');
  });

  it('a cwd starting with ~ is refused (never expanded)', () => {
    expect(errorOf(['name: t', 'members:', '  - name: a', '    prompt: p', '    cwd: ~/src'].join('\n'))).toBe(
      'team.yaml:5: members[0].cwd: "~/src": ~ is not expanded; use an absolute path or one relative to the team file',
    );
  });
});

describe('team file hosts (ssh backend)', () => {
  it('host: per member wins; the others take hosts: round-robin in member order', () => {
    const team = parseTeamFileText(
      ['name: t', 'backend: ssh', 'hosts: [build1, ci@build2:2222]', 'members:',
        ...['a', 'b', 'c', 'd'].flatMap((n) => [`  - name: ${n}`, '    prompt: p', ...(n === 'b' ? ['    host: gpu1'] : [])])].join('\n'),
      'team.yaml', '/w',
    );
    expect(memberHosts(team)).toEqual(['build1', 'gpu1', 'ci@build2:2222', 'build1']);
    expect(memberHosts(parseTeamFileText('name: t\nmembers:\n  - name: a\n    prompt: p', 'team.yaml', '/w'))).toEqual([undefined]);
  });

  it('a bad host, hosts with another backend, backend ssh with a member left without one: each at its line', () => {
    const msg = errorOf(['name: t', 'backend: tmux', 'hosts: ["a b"]', 'members:', '  - name: a', '    prompt: p', '    host: "x@y:99999"'].join('\n'));
    expect(msg.split('\n')).toEqual([
      expect.stringMatching(/^team\.yaml:2: backend: host\/hosts run members over ssh, not backend tmux; use backend: ssh/),
      expect.stringMatching(/^team\.yaml:3: hosts\[0\]: expected \[user@\]host\[:port\]/),
      expect.stringMatching(/^team\.yaml:7: members\[0\]\.host: expected \[user@\]host\[:port\]/),
    ]);
    expect(errorOf(['name: t', 'backend: ssh', 'members:', '  - name: a', '    prompt: p'].join('\n'))).toMatch(
      /^team\.yaml:4: members\[0\]: backend ssh: give this member a host, or the file a hosts: list$/,
    );
  });
});

describe('team file tasks:', () => {
  const head = ['name: t', 'members:', '  - name: alice', '    prompt: p'];

  it('parses tasks; blockers by 1-based position or by subject resolve to positions', () => {
    const team = parseTeamFileText(
      [...head, 'tasks:', '  - subject: a', '    description: the first', '    owner: Alice', '  - subject: b', '    activeForm: doing b', '    blockedBy: [1]', '  - subject: c', '    blockedBy: [b, 1]'].join('\n'),
      'team.yaml',
      '/base',
    );
    expect(team.tasks).toEqual([
      { subject: 'a', description: 'the first', owner: 'Alice' },
      { subject: 'b', activeForm: 'doing b', blockedBy: [1] },
      { subject: 'c', blockedBy: ['b', 1] },
    ]);
    expect(taskBlockers(team.tasks!)).toEqual([[], [0], [1, 0]]);
  });

  it('every bad reference at its line: out of range, unknown or ambiguous subject, itself, an unknown key', () => {
    const msg = errorOf(
      [...head, 'tasks:', '  - subject: a', '    blockedBy: [4]', '  - subject: a', '    blockedBy: [nope, a]', '  - subject: c', '    blockedBy: [3]', '    owners: alice'].join('\n'),
    );
    expect(msg.split('\n')).toEqual([
      'team.yaml:7: tasks[0].blockedBy[0]: no task 4: tasks has 3 entries (+4 more)',
      'team.yaml:9: tasks[1].blockedBy[0]: no task with subject "nope"',
      'team.yaml:9: tasks[1].blockedBy[1]: subject "a" names 2 tasks; use its 1-based position',
      'team.yaml:11: tasks[2].blockedBy[0]: a task cannot be blocked by itself',
      'team.yaml:12: tasks[2].owners: unknown field (did you mean "owner"?)',
    ]);
  });

  it('a circle of three (found by the task list\'s own cycle check) is named in waiting order, at a task of it', () => {
    // a waits for c, c for b, b for a.
    const msg = errorOf([...head, 'tasks:', '  - subject: a', '    blockedBy: [3]', '  - subject: b', '    blockedBy: [1]', '  - subject: c', '    blockedBy: [2]'].join('\n'));
    expect(msg).toBe('team.yaml:9: tasks[1].blockedBy: the tasks wait for each other in a circle (2 → 1 → 3 → 2): none could ever start');
  });
});

describe('team file tasks: caps', () => {
  it('a subject, activeForm or description over its cap is refused with the rest of the file, before any task is made', () => {
    const head = ['name: t', 'members:', '  - name: alice', '    prompt: p', 'tasks:'];
    const msg = errorOf([...head, `  - subject: ${'s'.repeat(501)}`, `    activeForm: ${'a'.repeat(501)}`, `    description: ${'d'.repeat(65_537)}`, `  - subject: ${'s'.repeat(500)}`].join('\n'));
    expect(msg.split('\n')).toEqual([
      'team.yaml:6: tasks[0].subject: expected at most 500 characters (+2 more)',
      'team.yaml:7: tasks[0].activeForm: expected at most 500 characters',
      'team.yaml:8: tasks[0].description: expected at most 65536 characters',
    ]);
  });
});

describe('parseTeamFile', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));

  it('reads a file: errors carry its path, cwd is relative to its directory', async () => {
    const dir = path.join(root, 'conf');
    await fs.mkdir(dir);
    const file = path.join(dir, 'team.yaml');
    await fs.writeFile(file, 'name: t\nmembers:\n  - name: a\n    prompt: p\n    cwd: ./work\n');
    expect((await parseTeamFile(file)).members[0]!.cwd).toBe(path.join(dir, 'work'));
    await fs.writeFile(file, 'name: t\nmembers:\n  - name: a\n');
    await expect(parseTeamFile(file)).rejects.toThrow(`${file}:3: members[0].prompt: required field is missing`);
    await expect(parseTeamFile(path.join(dir, 'nope.yaml'))).rejects.toThrow(/^no team file at .*nope\.yaml/);
  });

  it('every file in examples/ parses, with prompts that mention SendMessage and team-lead', async () => {
    const dir = path.join(REPO, 'examples');
    const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'));
    expect(files).toEqual(expect.arrayContaining(['docs-pair.yaml', 'hello.yaml', 'review-trio.yaml']));
    for (const f of files) {
      const team = await parseTeamFile(path.join(dir, f));
      expect(team.name, f).toBe(f.replace(/\.ya?ml$/, ''));
      for (const m of team.members) {
        expect(m.prompt, `${f} ${m.name}`).toContain('SendMessage');
        expect(m.prompt, `${f} ${m.name}`).toContain('team-lead');
      }
    }
  });
});
