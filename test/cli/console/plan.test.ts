// A plan approval from the console, with `swarm launch --backend in-process` (the console is the
// host: the teammate runs inside its process) in a real tmux pane (private server, reaped). The
// plan-mode teammate submits a plan; `n` + feedback rejects it (the feedback reaches the model);
// the revised plan is approved with `y`; the teammate then finishes; /quit stops the hosted
// teammate and takes it off the roster.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { parseControl } from '../../../src/protocol/control.js';
import { startMessagesServer, type IncomingRequest, type MessagesServer, type StepInput } from '../../../src/standin/messages-server.js';
import { lastUserText } from '../../../src/standin/request.js';
import { readTeam } from '../../../src/team/team-store.js';
import { SWARM_BIN } from '../../support/cli.js';
import { useTempRoot, afterThisTest } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { Team } from '../../../src/team/team.js';

let root: string;
let socket: string;
let tmux: TmuxServer;
let standin: MessagesServer;

function planner(req: IncomingRequest): StepInput {
  const last = lastUserText(req.body);
  if (last.includes('approved your plan')) return { reply: 'Plan approved; done.' };
  if (last.includes('add a test first')) return { reply: { content: [{ type: 'tool_use', name: 'ExitPlanMode', input: { plan: '1. write a test\n2. then the change' } }] } };
  return { reply: { content: [{ type: 'tool_use', name: 'ExitPlanMode', input: { plan: '1. make the change' } }] } };
}

useTempRoot((dir) => (root = dir), 'swarm-plan-');
beforeEach(async () => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
  standin = await startMessagesServer({ script: { turns: Array.from({ length: 8 }, () => ({ match: { agent: 'p1' }, respond: planner })) } });
  afterThisTest(() => standin.close());
});

async function planAnswers(): Promise<{ approved: boolean; feedback?: string }[]> {
  return (await new Mailbox({ team: new Team(root, 'pt') }).read('p1')).flatMap((m) => {
    const c = parseControl(m.text);
    return c.kind === 'control' && c.message.type === 'plan_approval_response' ? [{ approved: c.message.approved, ...(c.message.feedback ? { feedback: c.message.feedback } : {}) }] : [];
  });
}

describe('plan approval in the console (in-process teammate)', () => {
  it('n + feedback rejects, y approves the revised plan, /quit stops the hosted teammate', async () => {
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(file, ['name: pt', 'members:', '  - name: p1', '    planModeRequired: true', '    prompt: plan the change', ''].join('\n'));
    const env = { CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: standin.url, SWARM_TMUX_SOCKET: socket, SWARM_RETRY_BASE_MS: '10', SWARM_POLL_MS: '250' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = `${quote([process.execPath, SWARM_BIN, 'launch', file, '--backend', 'in-process'])}; echo LAUNCH-EXIT=$?; sleep 300`;
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '160', '-y', '50', ...flags, '-c', root, cmd], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '' },
    });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    const screen = (): Promise<string> => capturePane(tmux, pane, 300);

    await waitFor(async () => (await screen()).includes('[y] approve  [n] reject (feedback)'), 20_000, 'the plan question');
    expect(await screen()).toContain('1. make the change');
    expect((await readTeam(new Team(root, 'pt'))).members.find((m) => m.name === 'p1')?.backendType).toBe('in-process');
    await tmux.run(['send-keys', '-t', pane, 'n']);
    await waitFor(async () => (await screen()).includes('reject feedback (Enter for none)>'), 5000, 'the feedback prompt');
    await tmux.run(['send-keys', '-t', pane, '-l', '--', 'add a test first']);
    await tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => (await planAnswers()).length === 1, 10_000, 'the rejection');
    expect(await planAnswers()).toEqual([{ approved: false, feedback: 'add a test first' }]);

    await waitFor(async () => (await screen()).includes('1. write a test'), 15_000, 'the revised plan');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await planAnswers()).length === 2, 10_000, 'the approval');
    expect((await planAnswers())[1]).toEqual({ approved: true });
    await waitFor(async () => (await screen()).includes('p1 is idle: Plan approved; done.'), 15_000, 'p1 done');

    await tmux.run(['send-keys', '-t', pane, '-l', '--', '/quit']);
    await tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => (await screen()).includes('LAUNCH-EXIT=0'), 15_000, 'the console to exit');
    expect((await readTeam(new Team(root, 'pt'))).members.map((m) => m.name)).toEqual(['team-lead']);
  }, 60_000);
});
