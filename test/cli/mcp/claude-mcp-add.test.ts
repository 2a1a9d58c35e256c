// Your own Claude Code session as the lead (issue 33 item 4), with the real Claude Code 2.1.112 and
// the native 2.1.332 offline against the stand-in: `claude mcp add swarm -- swarm mcp --team
// <team>` as docs/claude-code-lead.md prints it (`swarm` on PATH), `claude mcp list` connects to it,
// and a session calls its team_status; then the same from the project's .mcp.json, in the JSON form
// the page prints, approved in the project's settings.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { lastToolResultNames, lastUserText, type IncomingRequest } from '../../../src/standin/request.js';
import { createTeam } from '../../../src/team/team-store.js';
import { CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, CLAUDE_CODE_BUILDS, claudeCodeWorkspace } from '../../support/claude-code.js';
import { SWARM_BIN } from '../../support/cli.js';
import { afterThisTest, tempRoot, useTempRoot } from '../../support/tmp-root.js';

const TEAM = 'mine';
const ASK = 'How is my team doing?';
const statusCalled = (r: IncomingRequest): boolean => lastToolResultNames(r.body).includes('mcp__swarm__team_status');
const offersSwarm = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'mcp__swarm__team_status');

/** The .mcp.json the page prints for a project (docs/claude-code-lead.md). */
const PROJECT_MCP = { mcpServers: { swarm: { command: 'swarm', args: ['mcp', '--team', TEAM] } } };

describe.each(CLAUDE_CODE_BUILDS)('Claude Code $version: your session leads through claude mcp add / .mcp.json', (build) => {
  let root = '';
  let work = '';
  let env: Record<string, string> = {};
  let standin: MessagesServer;

  useTempRoot((r) => (root = r), 'swarm-mcpadd-');
  beforeEach(async () => {
    let bin: string;
    ({ work, bin } = await claudeCodeWorkspace(root, build, tempRoot));
    await fs.writeFile(path.join(bin, 'swarm'), `#!/bin/sh\nexec '${process.execPath}' '${SWARM_BIN}' "$@"\n`, { mode: 0o755 });
    await createTeam(root, { name: TEAM });
    standin = await startMessagesServer({
      script: {
        turns: Array.from({ length: 2 }, () => [
          { match: (r: IncomingRequest) => offersSwarm(r) && lastToolResultNames(r.body).length === 0 && lastUserText(r.body).includes(ASK), reply: { content: [{ type: 'tool_use' as const, name: 'mcp__swarm__team_status', input: {} }] } },
          { match: statusCalled, reply: 'Your team has no teammates yet.' },
        ]).flat().concat(Array.from({ length: 20 }, () => ({ match: (r: IncomingRequest) => !offersSwarm(r), reply: 'ok' }))),
      },
    });
    afterThisTest(() => standin.close());
    env = {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      HOME: root,
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
      ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET,
      ENABLE_TOOL_SEARCH: 'false', // the stand-in's script sees the tools in the request (a first-party host may defer them behind a search)
      // Claude Code's wait for an MCP server to start (ms): its default let a loaded machine's
      // `swarm mcp` connect after the first request went out without the team's tools.
      MCP_TIMEOUT: '60000',
    };
  });

  const claude = (args: string[]) => execa('claude', args, { env, cwd: work, reject: false, stdin: 'ignore', extendEnv: false, timeout: 90_000 });

  /**
   * `claude -p ASK`, again (up to 3 times) while its requests went out without the team's tools:
   * Claude Code 2.1.112 gives MCP servers 5 s (then 2 s more) to connect in -p mode and then goes
   * on without them, which a loaded machine's `swarm mcp` start has missed.
   */
  const ask = async (): Promise<Awaited<ReturnType<typeof claude>>> => {
    for (let attempt = 1; ; attempt++) {
      const from = standin.requests.length;
      const r = await claude(['-p', ASK, '--allowedTools', 'mcp__swarm__team_status']);
      const offered = standin.requests.slice(from).some((q) => q.body !== undefined && offersSwarm(q as IncomingRequest));
      if (offered || attempt === 3) return r;
    }
  };

  /** The team_status result the session got, as the model saw it. */
  const statusSeen = (): string => standin.requests.filter((q) => q.body !== undefined && statusCalled(q as IncomingRequest)).map((q) => lastUserText(q.body!)).join('\n');

  it('claude mcp add swarm -- swarm mcp --team <team>: listed as connected, and the session calls its tools; then the .mcp.json form', async () => {
    const added = await claude(['mcp', 'add', 'swarm', '--', 'swarm', 'mcp', '--team', TEAM]);
    expect(added.exitCode, `${added.stdout}${added.stderr}`).toBe(0);
    const listed = await claude(['mcp', 'list']);
    expect(listed.stdout).toMatch(/swarm: swarm mcp --team mine - [✓✔] Connected/);
    const asked = await ask();
    expect(asked.exitCode, asked.stderr).toBe(0);
    expect(asked.stdout.trim()).toBe('Your team has no teammates yet.');
    expect(statusSeen()).toContain('"team": "mine"');

    // The project form: .mcp.json, approved once in the project's settings.
    expect((await claude(['mcp', 'remove', 'swarm'])).exitCode).toBe(0);
    standin.requests.length = 0;
    await fs.writeFile(path.join(work, '.mcp.json'), JSON.stringify(PROJECT_MCP, null, 2));
    await fs.mkdir(path.join(work, '.claude'));
    await fs.writeFile(path.join(work, '.claude/settings.local.json'), JSON.stringify({ enabledMcpjsonServers: ['swarm'] }));
    const fromProject = await ask();
    expect(fromProject.exitCode, fromProject.stderr).toBe(0);
    expect(fromProject.stdout.trim()).toBe('Your team has no teammates yet.');
    expect(statusSeen()).toContain('"team": "mine"');
  }, 180_000);
});
