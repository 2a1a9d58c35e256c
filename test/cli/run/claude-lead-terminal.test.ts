// `swarm run --lead claude` with a terminal (issue 33 item 2), the real Claude Code 2.1.112 and the
// native 2.1.332 as the lead, offline against the stand-in. Started outside tmux (no terminal: it
// says where the session is instead of attaching), it makes the team's session on a private tmux
// server and starts itself again in its first pane: Claude Code leads there, the person's console
// (`swarm lead`, watching) opens in a pane beside it, and the teammate beside them. The person
// answers the teammate's Bash request with `y` in the console pane; the lead hears the result and
// shuts the teammate down; the person leaves Claude Code with /exit, and the run ends: teammate and
// console pane gone (verified), the session with them, the team's files kept.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { lastUserText } from '../../../src/standin/request.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, CLAUDE_CODE_BUILDS, claudeCodeWorkspace, claudeSettingsLeftBehind } from '../../support/claude-code.js';
import { afterMcp, claudeLeadScript, LEAD_GOAL } from '../../support/claude-lead-script.js';
import { SWARM_BIN } from '../../support/cli.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { afterThisTest, tempRoot, useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'cclt';

describe.each(CLAUDE_CODE_BUILDS)('Claude Code $version leads in a tmux session (swarm run --lead claude)', (build) => {
  let root = '';
  let work = '';
  let bin = '';
  let standin: MessagesServer;
  let socket = '';
  let tmux: TmuxServer;

  useTempRoot((r) => (root = r), 'swarm-cclt-');
  beforeEach(async () => {
    ({ work, bin } = await claudeCodeWorkspace(root, build, tempRoot));
    socket = tmuxForThisTest();
    tmux = new TmuxServer({ socket });
    standin = await startMessagesServer({ script: claudeLeadScript() });
    afterThisTest(() => standin.close());
  });

  /** Every pane's screen: what a failed wait shows. */
  async function screens(): Promise<string> {
    const panes = await listAllPanes(tmux).catch(() => []);
    const shown = (await Promise.all(panes.map(async (p) => `--- pane ${p.paneId}:\n${await capturePane(tmux, p.paneId, 0).catch(String)}`))).join('\n');
    const asked = standin.requests.map((q) => `  ${q.outcome} ${q.agent || '-'} tools=${(q.body?.tools ?? []).map((t) => t.name).filter((n) => n.startsWith('mcp')).length}/${q.body?.tools?.length ?? 0}: ${q.body === undefined ? q.path : lastUserText(q.body).slice(0, 100).replace(/\s+/g, ' ')}`);
    const debugDir = path.join(root, 'debug');
    const logged = (
      await Promise.all((await fs.readdir(debugDir).catch(() => [])).map(async (f) => (await fs.readFile(path.join(debugDir, f), 'utf8').catch(() => '')).split('\n').filter((l) => /MCP|mcp|hook|API REQUEST/i.test(l)).map((l) => `  ${l.slice(0, 220)}`)))
    ).flat();
    return `${shown}\n--- the stand-in's requests:\n${asked.join('\n')}\n--- Claude Code's debug lines about MCP, hooks and requests:\n${logged.join('\n')}`;
  }

  async function until<T>(cond: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
    return waitFor(cond, 60_000, what, 200).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await screens()}`);
    });
  }

  /** The pane whose screen matches `re`. */
  async function paneShowing(re: RegExp): Promise<string | undefined> {
    for (const p of await listAllPanes(tmux)) if (re.test(await capturePane(tmux, p.paneId, 200).catch(() => ''))) return p.paneId;
    return undefined;
  }

  it('Claude Code in the first pane, the console beside it answering the teammate\'s question, /exit ends the run with nothing left running', async () => {
    const since = Date.now() - 1000; // mtimes are coarser than Date.now()
    const env = {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: process.env.HOME ?? root,
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
      ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET,
      SWARM_TMUX_SOCKET: socket,
      TMUX: '',
      TMUX_PANE: '',
      SWARM_TEAM: '',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_HEARTBEAT_MS: '500',
      DEBUG: '1', // Claude Code's debug log, in <config>/debug/: what a failed wait shows
    };
    const started = await execa(process.execPath, [SWARM_BIN, 'run', '--lead', 'claude', '--team', TEAM, LEAD_GOAL], { env, cwd: work, reject: false, stdin: 'pipe', extendEnv: false });
    expect(started.exitCode, started.stderr).toBe(0);
    expect(started.stderr).toContain(`the run goes on in tmux session swarm-${TEAM}: leaving Claude Code there ends it and stops the teammates`);

    // The console pane asks the person; `y` allows the teammate's Bash.
    const consolePane = await until(() => paneShowing(/worker.*Bash[\s\S]*echo checked > out\.txt/), "the worker's Bash question in the console pane");
    await tmux.run(['send-keys', '-t', consolePane, 'y']);
    await until(() => standin.requests.some((q) => q.body !== undefined && afterMcp('send_message')(q as never)), "the lead's shutdown request answered");
    expect(await fs.readFile(path.join(work, 'out.txt'), 'utf8')).toBe('checked\n');
    await until(async () => (await readTeam(new Team(root, TEAM))).members.length === 1, 'the worker off the roster');

    // The person leaves Claude Code: the run ends, its console pane and session with it.
    const leadPane = await until(() => paneShowing(/Done: the worker wrote out\.txt/), "the lead's answer on screen");
    await tmux.run(['send-keys', '-t', leadPane, '-l', '/exit']);
    await new Promise((r) => setTimeout(r, 300));
    await tmux.run(['send-keys', '-t', leadPane, 'Enter']);
    await until(async () => (await listAllPanes(tmux)).length === 0, 'every pane gone with the run');
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members.map((m) => m.name)).toEqual(['team-lead']);
    expect(config.leadProcess).toBeUndefined();
    // The lead's and the teammate's settings came from the team's files, not JSON Claude Code copies to /tmp for good.
    expect([...(await claudeSettingsLeftBehind(root, since)), ...(await claudeSettingsLeftBehind(`--team ${TEAM}`, since))]).toEqual([]);
  }, 180_000);
});
