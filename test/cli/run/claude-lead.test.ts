// `swarm run -p --lead claude` end to end with the real Claude Code as the lead (issue 33 item 5):
// the devDependency 2.1.112 and the newest native build 2.1.332, each offline against the stand-in
// Messages API. Claude Code starts swarm's MCP server itself (--mcp-config) and its scripted model
// calls mcp__swarm__task_create, mcp__swarm__spawn_teammate (a swarm-runtime teammate in a pane of a
// private tmux server), mcp__swarm__wait_for_messages until the teammate's result is in it, and
// mcp__swarm__send_message with a shutdown request, then answers. The teammate's Bash request is
// printed with its `swarm approve` line, approved by the person from another process, and runs.
// Nothing is left running: the teammate is gone (verified), Claude Code and the MCP server exited.
import { execa } from 'execa';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { lastUserText, type IncomingRequest } from '../../../src/standin/request.js';
import { afterMcp as after, claudeLeadScript, LEAD_ANSWER, LEAD_GOAL as GOAL, leadRequest as lead } from '../../support/claude-lead-script.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { descendantsOf, isProcessAlive } from '../../../src/backends/process.js';
import { CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, CLAUDE_CODE_BUILDS, claudeCodeWorkspace } from '../../support/claude-code.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { afterThisTest, tempRoot, useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'ccmcp';

describe.each(CLAUDE_CODE_BUILDS)('Claude Code $version leads through swarm mcp (swarm run -p --lead claude)', (build) => {
  let root = '';
  let work = '';
  let bin = '';
  let standin: MessagesServer;
  let socket = '';

  useTempRoot((r) => (root = r), 'swarm-ccmcp-');
  beforeEach(async () => {
    ({ work, bin } = await claudeCodeWorkspace(root, build, tempRoot));
    socket = tmuxForThisTest();
    standin = await startMessagesServer({ script: claudeLeadScript() });
    afterThisTest(() => standin.close());
  });

  it('task_create, spawn_teammate, wait_for_messages (the result), send_message shutdown_request, the answer; the Bash request approved from another process', async () => {
    const env = {
      ...tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']),
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
      ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET,
      SWARM_TEAM: '',
      NO_COLOR: '1',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_HEARTBEAT_MS: '500',
    };
    const child = execa(process.execPath, [SWARM_BIN, 'run', '-p', '--lead', 'claude', '--team', TEAM, GOAL], { env, cwd: work, reject: false, stdin: 'ignore' });
    afterThisTest(async () => {
      if (child.pid !== undefined && isProcessAlive(child.pid)) child.kill('SIGKILL');
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const line = await waitFor(() => /waiting for approval: worker Bash echo checked > out.txt → (swarm approve \S+ --team ccmcp)/.exec(stderr)?.[1], 90_000, 'the approval line', 100).catch((e: Error) => {
      const asked = standin.requests.map((q) => `  ${q.outcome} ${q.body === undefined ? `${q.method} ${q.path}` : `${lead(q as IncomingRequest) ? 'lead' : q.agent || 'side'}: ${lastUserText(q.body).slice(0, 120).replace(/\s+/g, ' ')}`}${q.error ? ` — ${q.error}` : ''}`);
      throw new Error(`${e.message}\n--- stderr:\n${stderr}\n--- the stand-in's requests:\n${asked.join('\n')}`);
    });
    // The claude process and its MCP server, found while they run, to see them gone at the end.
    const lineage = child.pid === undefined ? [] : await descendantsOf(child.pid);
    const approved = await swarmInProcess(root, line.split(' ').slice(1), { SWARM_TMUX_SOCKET: socket });
    expect(approved.exitCode, approved.stderr).toBe(0);
    const r = await child;
    expect(r.exitCode, `${r.stdout}\n${stderr}`).toBe(0);
    expect(r.stdout.trim()).toBe(LEAD_ANSWER);
    expect(await fs.readFile(path.join(work, 'out.txt'), 'utf8')).toBe('checked\n');
    // Its progress: the lead's tool calls, the task, the teammate's words, the verified stop.
    expect(stderr).not.toMatch(/failed|unmatched|error/i);
    for (const want of ['lead › task_create', 'lead › spawn_teammate', 'task #1 created: Write out.txt', 'worker › out.txt written', 'lead › send_message', 'team files kept: swarm status --team ccmcp']) expect(stderr).toContain(want);
    expect(stderr).toMatch(/lead › wait_for_messages/);
    // The Claude Code lead's MCP server held the lease while it ran, and let it go.
    const config = await readTeam(new Team(root, TEAM));
    expect(config.leadProcess).toBeUndefined();
    expect(config.members.map((m) => m.name)).toEqual(['team-lead']);
    // What the lead was told by wait_for_messages: the result, as a <teammate-message>; never the question.
    const told = standin.requests.filter((q) => q.body !== undefined && after('wait_for_messages')(q as IncomingRequest)).map((q) => lastUserText(q.body!)).join('\n');
    expect(told).toContain('<teammate-message teammate_id="worker"');
    expect(told).not.toContain('permission_request');
    for (const pid of lineage) expect(isProcessAlive(pid), `pid ${pid} outlived the run`).toBe(false);
    expect(existsSync(path.join(root, 'teams', TEAM, 'config.json'))).toBe(true);
  }, 180_000);
});
