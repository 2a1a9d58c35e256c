// A team file's `tasks:` through the built `swarm launch` (tmux on a private socket, fake teammates,
// reaped afterwards): the tasks exist in file order with their blockers (by position and by
// subject) once launch returns, and an owner finds a task_assignment signed as team-lead after its
// prompt; a bad task entry is refused with the file's line, exit 2, and nothing is created (that
// refusal, and the task list read back, in-process through main(argv, io)).
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseControl } from '../../../src/protocol/control.js';
import { InboxSchema } from '../../../src/protocol/message.js';
import { TaskSchema } from '../../../src/protocol/task.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { useFakeTeammates, writeTeamFile } from '../../support/fake-team.js';

let root: string;
let env: Record<string, string>;

useFakeTeammates((t) => ({ root, env } = t), 'swarm-launch-tasks-');
const teamFile = (lines: string[]): Promise<string> => writeTeamFile(root, lines);

const MEMBERS = ['name: lt', 'members:', '  - name: alice', '    prompt: build it', '  - name: bob', '    prompt: test it'];

describe('swarm launch with tasks:', { timeout: 90_000 }, () => {
  it('creates the tasks with their blockers before spawning; the owner gets a signed task_assignment after its prompt', async () => {
    const file = await teamFile([
      ...MEMBERS,
      'tasks:',
      '  - subject: Ship it',
      '    blockedBy: [2, "Write the parser"]',
      '  - subject: Test the parser',
      '    owner: bob',
      '    blockedBy: ["Write the parser"]',
      '  - subject: Write the parser',
      '    description: src/parse.ts',
      '    owner: Alice', // names are case-insensitive; the task records the roster's spelling
    ]);
    const r = await swarm(root, ['launch', file, '--no-console', '--backend', 'tmux'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('created 3 tasks (swarm tasks --team lt)');
    const list = await swarmInProcess(root, ['tasks', '--team', 'lt', '--json']);
    const tasks = TaskSchema.array().parse(JSON.parse(list.stdout));
    expect(tasks.map((t) => [t.id, t.subject, t.owner ?? '-', t.blockedBy, t.blocks])).toEqual([
      ['1', 'Ship it', '-', ['2', '3'], []],
      ['2', 'Test the parser', 'bob', ['3'], ['1']],
      ['3', 'Write the parser', 'alice', [], ['1', '2']],
    ]);
    const inbox = InboxSchema.parse(JSON.parse(await fs.readFile(path.join(root, 'teams/lt/inboxes/alice.json'), 'utf8')));
    expect(inbox.map((m) => [m.from, m.lead_sig !== undefined])).toEqual([
      ['team-lead', true],
      ['team-lead', true],
    ]);
    expect(inbox[0]!.text).toBe('build it');
    expect(parseControl(inbox[1]!.text)).toMatchObject({ kind: 'control', message: { type: 'task_assignment', taskId: '3', subject: 'Write the parser', description: 'src/parse.ts', assignedBy: 'team-lead' } });
  });

  it('a bad task entry: one line with the file, line and field; exit 2; no team, no task list', async () => {
    const file = await teamFile([...MEMBERS, 'tasks:', '  - subject: a', '    blockedBy: [2]', '  - subject: b', '    owner: carol', '    blockedBy: [1]']);
    const r = await swarmInProcess(root, ['launch', file, '--no-console', '--backend', 'tmux'], env);
    expect(r.exitCode, r.stderr).toBe(2);
    expect(r.stderr.split('\n')).toEqual([
      `swarm: ${file}:9: tasks[0].blockedBy: the tasks wait for each other in a circle (1 → 2 → 1): none could ever start (+1 more)`,
      `  ${file}:11: tasks[1].owner: "carol" is not a member of this team file (members: alice, bob)`,
    ]);
    expect(existsSync(path.join(root, 'teams/lt'))).toBe(false);
    expect(existsSync(path.join(root, 'tasks/lt'))).toBe(false);
  });
});
