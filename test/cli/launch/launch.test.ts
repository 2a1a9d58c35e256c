// `swarm launch` inside tmux, driven for real: a private tmux server (SWARM_TMUX_SOCKET, reaped
// afterwards) whose one pane runs `swarm launch team.yaml` — so $TMUX is set there — with the
// teammates' model answered by a stand-in Messages API started here. Checks: the teammates split
// beside the console; w1's message shows in the console (capture-pane); `y` typed into the console
// approves w2's Bash request; `/send w1 …` reaches w1's inbox; `/shutdown --all` leaves only the
// console pane and an empty roster.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
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

function usedTools(req: IncomingRequest): string[] {
  return req.body.messages.flatMap((m) =>
    m.role === 'assistant' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'tool_use' && 'name' in b ? [String(b.name)] : [])) : [],
  );
}

/** Approve a shutdown request in the newest message, else undefined. */
function approveShutdown(req: IncomingRequest): StepInput | undefined {
  const last = lastUserText(req.body);
  const id = last.includes('shutdown_request') ? /"requestId"\s*:\s*"([^"]+)"/.exec(last)?.[1] : undefined;
  if (id === undefined) return undefined;
  return { reply: { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: { type: 'shutdown_response', request_id: id, approve: true } } }] } };
}

const brains: Record<string, (req: IncomingRequest) => StepInput> = {
  w1: (req) => {
    if (lastUserText(req.body).includes('console says hi')) return { reply: 'Got your message.' };
    if (!usedTools(req).includes('SendMessage')) {
      return { reply: { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: 'hello from w1, all set' } }] } };
    }
    return { reply: 'Done.' };
  },
  w2: (req) => {
    if (!usedTools(req).includes('Bash')) {
      return { reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo approved > approved.txt', description: 'mark approval' } }] } };
    }
    return { reply: 'Marker written.' };
  },
};

useTempRoot((dir) => (root = dir), 'swarm-launch-');
beforeEach(async () => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
  const turns = Object.entries(brains).flatMap(([agent, brain]) =>
    Array.from({ length: 10 }, () => ({ match: { agent }, respond: (req: IncomingRequest) => approveShutdown(req) ?? brain(req) })),
  );
  standin = await startMessagesServer({ script: { turns } });
  afterThisTest(() => standin.close());
});

async function screen(pane: string): Promise<string> {
  return capturePane(tmux, pane, 200);
}

async function type(pane: string, text: string): Promise<void> {
  await tmux.run(['send-keys', '-t', pane, '-l', '--', text]);
}

describe('swarm launch inside tmux', () => {
  it('splits teammates beside the console; messages, y-approval, /send and /shutdown --all work from the console', async () => {
    const work = path.join(root, 'work');
    await fs.mkdir(work);
    const file = path.join(root, 'team.yaml');
    await fs.writeFile(
      file,
      ['name: lt', 'members:', '  - name: w1', '    prompt: say hello to team-lead', '  - name: w2', '    prompt: write the marker file', `    cwd: ${work}`, ''].join('\n'),
    );
    const env = {
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_BASE_URL: standin.url,
      SWARM_TMUX_SOCKET: socket,
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
    };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = quote([process.execPath, SWARM_BIN, 'launch', file]);
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', work, cmd], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '' },
    });
    const consolePane = (await listAllPanes(tmux))[0]!.paneId;

    // Both teammates split beside the console, and w1's message is shown in it.
    await waitFor(async () => (await listAllPanes(tmux)).length === 3, 20_000, 'two teammate panes beside the console');
    await waitFor(async () => (await screen(consolePane)).includes('hello from w1, all set'), 20_000, "w1's message in the console");
    const config = await readTeam(new Team(root, 'lt'));
    expect(config.members.map((m) => [m.name, m.backendType])).toEqual([['team-lead', undefined], ['w1', 'tmux'], ['w2', 'tmux']]);
    const windows = new Set((await listAllPanes(tmux)).map((p) => p.windowId));
    expect(windows.size).toBe(1); // split, not new windows

    // w2's Bash request is a question in the console; one key approves it.
    await waitFor(async () => (await screen(consolePane)).includes('[y] allow once  [a] always  [n] deny'), 20_000, 'the permission question');
    expect(await screen(consolePane)).toContain('$ echo approved > approved.txt');
    await type(consolePane, 'y');
    await waitFor(() => existsSync(path.join(work, 'approved.txt')), 15_000, 'the approved command to run');
    await waitFor(async () => (await screen(consolePane)).includes('approved w2 Bash'), 5000, 'the approval line');

    // /send reaches w1's inbox, signed as team-lead.
    await type(consolePane, '/send w1 console says hi');
    await tmux.run(['send-keys', '-t', consolePane, 'Enter']);
    await waitFor(
      async () => (await new Mailbox({ team: new Team(root, 'lt') }).read('w1')).some((m) => m.from === 'team-lead' && m.text === 'console says hi' && m.lead_sig),
      10_000,
      "the message in w1's inbox",
    );

    // /shutdown --all: every teammate approves, exits, and its pane goes.
    await type(consolePane, '/shutdown --all');
    await tmux.run(['send-keys', '-t', consolePane, 'Enter']);
    await waitFor(async () => (await listAllPanes(tmux)).length === 1, 25_000, 'only the console pane left');
    expect((await listAllPanes(tmux))[0]!.paneId).toBe(consolePane);
    await waitFor(async () => (await readTeam(new Team(root, 'lt'))).members.length === 1, 5000, 'an empty roster');
    await waitFor(async () => /w1: approved the shutdown/.test(await screen(consolePane)), 5000, 'the outcome lines');

    // Leave the console, so nothing writes under the root while it is removed.
    await type(consolePane, '/quit');
    await tmux.run(['send-keys', '-t', consolePane, 'Enter']);
    await waitFor(async () => (await listAllPanes(tmux)).find((p) => p.paneId === consolePane)?.dead === true, 10_000, 'the console to exit');
    expect((await readTeam(new Team(root, 'lt'))).leadProcess).toBeUndefined();
  }, 60_000);
});
