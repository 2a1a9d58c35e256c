// The console keeps its open permission question in sight (real tmux on a private socket, reaped,
// a 16-row pane, `capture-pane -p` of what is on screen): after `y` answers the first of two
// requests, the second question is printed below the first one's "approved" line, not above it;
// when later messages fill the screen, the question is printed again before it scrolls off; and the
// prompt itself names what is asked.
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { writePending } from '../../../src/permissions/pending.js';
import { PendingRequestSchema } from '../../../src/protocol/permission.js';
import { addMember, createTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN } from '../../support/cli.js';
import { startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let socket: string;
let tmux: TmuxServer;

useTempRoot((dir) => (root = dir), 'swarm-question-');
beforeEach(() => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
});
async function request(team: Team, id: string, command: string, workerPid: number): Promise<void> {
  await writePending(
    team.paths,
    PendingRequestSchema.parse({
      id,
      workerId: `w1@${team.name}`,
      workerName: 'w1',
      teamName: team.name,
      toolName: 'Bash',
      toolUseId: `toolu_${id.replace(/-/g, '')}`,
      description: '',
      input: { command },
      permissionSuggestions: [],
      status: 'pending',
      createdAt: Date.now(),
      workerPid,
      cwd: root,
    }),
  );
}

describe('the open question stays in sight', () => {
  it('comes after the last answer, is printed again before it scrolls away, and the prompt names it', async () => {
    const { team } = await createTeam(root, { name: 'qv' });
    await addMember(team, { name: 'w1', cwd: root });
    const pid = await startSleeper();
    await request(team, 'perm-1000000000001-aaaaaaaaaaaa', 'npm run first', pid);
    await request(team, 'perm-1000000000002-bbbbbbbbbbbb', 'npm run second', pid);

    const env = { CLAUDE_CONFIG_DIR: root, SWARM_TMUX_SOCKET: socket, NO_COLOR: '1' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = quote([process.execPath, SWARM_BIN, 'lead', '--team', 'qv']);
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '100', '-y', '16', ...flags, '-c', root, cmd], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '' },
    });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    const visible = async (): Promise<string> => tmux.run(['capture-pane', '-p', '-t', pane]);

    await waitFor(async () => (await visible()).includes('$ npm run first'), 15_000, 'the first question');
    // The prompt line is drawn just after the question: wait for it rather than catch the screen between the two.
    await waitFor(async () => (await visible()).includes('w1 Bash: npm run first [y/a/n]>'), 10_000, 'the prompt naming the first question');
    expect(await visible()).toContain('w1 Bash: npm run first [y/a/n]>');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await visible()).includes('w1 Bash: npm run second [y/a/n]>'), 10_000, 'the second question');
    const screen = await visible();
    expect(screen.indexOf('approved w1 Bash: npm run first')).toBeGreaterThan(-1);
    expect(screen.indexOf('$ npm run second')).toBeGreaterThan(screen.indexOf('approved w1 Bash: npm run first'));

    // Twenty messages: far more than the screen holds below the question.
    const mailbox = new Mailbox({ team: new Team(root, 'qv') });
    for (let i = 1; i <= 20; i++) await mailbox.append('team-lead', { from: 'w1', text: `progress note ${i}` });
    await waitFor(async () => (await visible()).includes('progress note 20'), 15_000, 'the last message on screen');
    const after = await visible();
    expect(after).not.toContain('progress note 1\n');
    expect(after).toContain('$ npm run second');
    expect(after).toContain('[y] allow once  [a] always  [n] deny (feedback)');
    expect(after.trimEnd().split('\n').at(-1)).toBe('w1 Bash: npm run second [y/a/n]>');
  }, 60_000);
});
