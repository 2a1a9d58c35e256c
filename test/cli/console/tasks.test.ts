// The task list in the leader console (`swarm lead` in a real tmux pane, private server, reaped):
// the status line shows each teammate's current task and the progress, a teammate whose process is
// gone shows `stopped` and keeps its task (for `swarm resume`; no release notice), and `/tasks`
// prints the same table as `swarm tasks`.
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { TaskList } from '../../../src/tasks/index.js';
import { addMember, createTeam, updateMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN } from '../../support/cli.js';
import { deadPid, startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'ct';
let root: string;
let socket: string;
let tmux: TmuxServer;

useTempRoot((dir) => (root = dir), 'swarm-ctasks-');
beforeEach(async () => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
  await createTeam(root, { name: TEAM, cwd: root });
});

describe('tasks in the leader console', () => {
  it('status line with the current task and progress, a stopped teammate keeping its task, /tasks', async () => {
    const team = new Team(root, TEAM);
    const live = await startSleeper();
    const gone = await deadPid();
    for (const [name, pid] of [['busy', live], ['ghost', gone]] as const) {
      await addMember(team, { name, cwd: root });
      await updateMember(team, name, { pid, isActive: true });
    }
    const tasks = new TaskList(team);
    await tasks.create({ subject: 'Done first', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'busy');
    await tasks.update('1', { status: 'completed' }, 'busy');
    await tasks.create({ subject: 'Parse the flags', description: 'x' }, 'team-lead');
    await tasks.claim('2', 'busy');
    await tasks.create({ subject: 'Haunted work', description: 'x' }, 'team-lead');
    await tasks.claim('3', 'ghost');

    const env = { CLAUDE_CONFIG_DIR: root, SWARM_TMUX_SOCKET: socket, NO_COLOR: '1' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = `${quote([process.execPath, SWARM_BIN, 'lead', '--team', TEAM])}; echo LEAD-EXIT=$?; sleep 300`;
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', root, cmd], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '' },
    });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    const screen = (): Promise<string> => capturePane(tmux, pane, 300);

    await waitFor(async () => (await screen()).includes('busy working #2 Parse the flags · ghost stopped #3 Haunted work'), 20_000, 'the status line');
    expect(await screen()).toMatch(/tasks 1\/3 done/);
    expect(await tasks.get('3')).toMatchObject({ status: 'in_progress', owner: 'ghost' });

    await tmux.run(['send-keys', '-t', pane, '-l', '--', '/tasks']);
    await tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => /ID\s+STATUS\s+OWNER\s+SUBJECT\s+BLOCKED BY/.test(await screen()), 10_000, 'the /tasks table');
    const text = await screen();
    expect(text).toMatch(/\n2\s+in_progress\s+busy\s+Parse the flags\s+-/);
    expect(text).toMatch(/\n3\s+in_progress\s+ghost\s+Haunted work\s+-/);

    await tmux.run(['send-keys', '-t', pane, '-l', '--', '/quit']);
    await tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => (await screen()).includes('LEAD-EXIT=0'), 15_000, 'the console to exit');
    // Nothing released, however often the console looked.
    expect((await new Mailbox({ team }).read('team-lead')).filter((m) => m.from === 'system')).toHaveLength(0);
  }, 60_000);
});
