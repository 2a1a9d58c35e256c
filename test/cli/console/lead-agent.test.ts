// The agent lead in the leader console (SPEC §9; real tmux on a private socket, the stand-in
// Messages API in this process): `swarm run "<goal>"` opens the console with the lead, its reply is
// printed as `lead › …`, a plain line goes to the lead, and a limit is a console question (y goes
// on, n stops the lead); `swarm lead --agent` does the same for an existing team, with no goal.
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { startMessagesServer, type MessagesServer, type ScriptInput } from '../../../src/standin/messages-server.js';
import { createTeam } from '../../../src/team/team-store.js';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { useTempRoot, afterThisTest } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let socket: string;
let tmux: TmuxServer;
let server: MessagesServer | undefined;

useTempRoot((dir) => (root = dir), 'swarm-lead-agent-');
beforeEach(() => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
  server = undefined;
});

/** The console command in a 100x30 pane; what the pane shows now, and a way to type. */
async function consolePane(argv: string[], script: ScriptInput) {
  const started = await startMessagesServer({ script });
  afterThisTest(() => started.close());
  server = started;
  const env = { CLAUDE_CONFIG_DIR: root, SWARM_TMUX_SOCKET: socket, NO_COLOR: '1', ANTHROPIC_BASE_URL: server.url, SWARM_RETRY_BASE_MS: '10' };
  const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '100', '-y', '30', ...flags, '-c', root, quote([process.execPath, SWARM_BIN, ...argv])], {
    env: { ...process.env, TMUX: '', SWARM_TEAM: '' },
  });
  const pane = (await listAllPanes(tmux))[0]!.paneId;
  const screen = (): Promise<string> => tmux.run(['capture-pane', '-p', '-S', '-100', '-t', pane]);
  const shows = (text: string, what = text): Promise<string> => waitFor(async () => ((await screen()).includes(text) ? text : ''), 15_000, what).catch(async (e: Error) => {
    throw new Error(`${e.message}; screen:\n${await screen()}`);
  });
  const type = async (keys: string): Promise<void> => void (await tmux.run(['send-keys', '-t', pane, '-l', keys]));
  const enter = async (): Promise<void> => void (await tmux.run(['send-keys', '-t', pane, 'Enter']));
  return { screen, shows, type, enter };
}

describe('the agent lead in the console', () => {
  it('swarm run: the reply is shown as lead › …, a plain line goes to the lead, a limit is asked (y goes on, n stops)', async () => {
    const c = await consolePane(['run', 'say hello', '--team', 'goal', '--max-turns', '1'], {
      turns: [
        { match: { agent: 'team-lead', lastUser: 'say hello' }, reply: 'Hello from the lead.' },
        { match: { agent: 'team-lead', lastUser: 'and more' }, reply: 'Second answer.' },
        { match: { agent: 'team-lead' }, reply: 'Never said.' },
      ],
    });
    await c.shows('lead › Hello from the lead.');
    await c.shows('the lead is done');
    await c.type('and more');
    await c.enter();
    // --max-turns 1: the second step waits for the person.
    await c.shows('? limit reached: the lead took 1 model steps (--max-turns 1)');
    await c.type('y');
    await c.shows('lead › Second answer.');
    await c.type('one more');
    await c.enter();
    await c.shows('--max-turns 2)');
    await c.type('n');
    await c.shows('the lead stopped: over a limit: the lead took 2 model steps (--max-turns 2)');
    expect(await c.screen()).not.toContain('Never said.');
    expect(server!.requests.filter((r) => r.agent === 'team-lead')).toHaveLength(2);
    // The lead's status file carries its tokens and cost: swarm status shows them.
    const status = JSON.parse((await swarm(root, ['status', '--team', 'goal', '--json'])).stdout) as { members: { name: string; outputTokens: number | null }[] };
    expect(status.members.find((m) => m.name === 'team-lead')?.outputTokens).toBeGreaterThan(0);
  }, 60_000);

  it('swarm lead --agent: an existing team, no goal: the first line typed is the lead\'s first turn', async () => {
    await createTeam(root, { name: 'existing' });
    const c = await consolePane(['lead', '--agent', '--team', 'existing'], {
      turns: [{ match: { agent: 'team-lead', lastUser: 'what now' }, reply: 'Nothing yet.' }],
    });
    await c.shows('agent lead:');
    expect(server!.requests).toHaveLength(0); // it waits for the person
    await c.type('what now');
    await c.enter();
    await c.shows('lead › Nothing yet.');
  }, 60_000);
});
