// Claude Code's first-run dialogs while spawn waits for a `--runtime claude` teammate (the screens
// alone: claude-dialog-screens.test.ts): spawns for real on a private tmux socket — the real Claude Code (the @anthropic-ai/claude-code devDependency, run with node) with
// an unseeded and a half-seeded CLAUDE_CONFIG_DIR and the stand-in Messages API, and a scripted
// `claude` that shows a dialog nobody answers.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { selectBackend } from '../../src/backends/registry.js';
import { TmuxServer, listAllPanes } from '../../src/backends/tmux/commands.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { startMessagesServer, type MessagesServer } from '../../src/standin/messages-server.js';
import { createTeam, readTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { spawnTeammate, type SpawnOptions } from '../../src/teammates/spawn.js';
import { CLAUDE_CODE_API_KEY, claudeCodeEnv, claudeCodeScript } from '../support/claude-code.js';
import { useTempRoot, afterThisTest, tempRoot } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';

const TEAM = 'cc';

describe('spawn --runtime claude waiting on a dialog (tmux, private socket)', () => {
  let root: string;
  let socket: string;
  let server: TmuxServer;
  let backend: Backend;
  let standin: MessagesServer;
  let work: string;
  let bin: string;

  useTempRoot((dir) => (root = dir), 'swarm-cc-');
  beforeEach(async () => {
    await createTeam(root, { name: TEAM });
    socket = tmuxForThisTest();
    server = new TmuxServer({ socket });
    standin = await startMessagesServer({ script: { turns: [] } });
    afterThisTest(() => standin.close());
    work = await fs.realpath(await tempRoot('swarm-work-'));
    bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    ({ backend } = await selectBackend({ requested: 'tmux', env: { SWARM_TMUX_SOCKET: socket }, team: new Team(root, TEAM), killTimeoutMs: 2000 }));
  });

  /** Spawn `claude` (a script in bin/) for member c1; notices are collected. */
  async function spawnClaude(claude: string, extra: Partial<SpawnOptions> = {}) {
    await fs.writeFile(path.join(bin, 'claude'), claude, { mode: 0o755 });
    const notices: string[] = [];
    const env = claudeCodeEnv({ root, bin, standinUrl: standin.url, socket });
    const spawned = spawnTeammate({
      team: new Team(root, TEAM), name: 'c1', prompt: 'say hi', runtime: 'claude', cwd: work, backend, env,
      readyTimeoutMs: 20_000, onNotice: (t) => notices.push(t), ...extra,
    });
    return { spawned, notices };
  }


  async function paneOf(name: string): Promise<string> {
    return waitFor(async () => (await readTeam(new Team(root, TEAM))).members.find((m) => m.name === name)?.tmuxPaneId, 10_000, `${name}'s pane`);
  }

  async function keys(pane: string, ...k: string[]): Promise<void> {
    await server.run(['send-keys', '-t', pane, ...k]);
  }

  it('the real Claude Code: trust and API key dialogs reported with the attach command and the fix; answered, it becomes ready', async () => {
    // Past the onboarding (which, offline, only checks api.anthropic.com and exits: the next test).
    await fs.writeFile(path.join(root, '.claude.json'), JSON.stringify({ hasCompletedOnboarding: true }));
    const { spawned, notices } = await spawnClaude(claudeCodeScript(), { readyTimeoutMs: 8000 });
    const pane = await paneOf('c1');
    await waitFor(() => notices.length >= 1, 30_000, 'the trust dialog notice');
    const [trust] = notices;
    expect(trust!.split('\n')[0]).toBe(
      `c1 is waiting on Claude Code's folder trust dialog ("Is this a project you created or one you trust?"); answer it in its pane: tmux -L ${socket} attach -t ${pane}`,
    );
    expect(trust).toContain(`merge this into ${path.join(root, '.claude.json')} once`);
    expect(trust).toContain(JSON.stringify({ [work]: { hasTrustDialogAccepted: true } }));
    expect(trust).not.toContain(CLAUDE_CODE_API_KEY.slice(-20));

    await keys(pane, 'Enter'); // "1. Yes, I trust this folder" is preselected
    await waitFor(() => notices.length >= 2, 20_000, 'the API key dialog notice');
    expect(notices[1]!.split('\n')[0]).toMatch(/^c1 is waiting on Claude Code's API key dialog \("Detected a custom API key in your environment … Do you want to use this API key\?"\); answer it in its pane: tmux -L /);
    expect(notices[1]).not.toContain('merge this into'); // the fix is said once

    await keys(pane, '1'); // "No" is preselected: choose "Yes"
    await keys(pane, 'Enter');
    const r = await spawned;
    expect(r).toMatchObject({ name: 'c1', paneId: pane, backendType: 'tmux' });
    // It took its prompt: marked read, or removed (Claude Code does either: docs/protocol.md#inboxes).
    const left = await new Mailbox({ team: new Team(root, TEAM) }).read('c1');
    expect(left.filter((m) => m.text === 'say hi' && m.read !== true)).toEqual([]);
    expect(notices).toHaveLength(2);
  }, 90_000);

  it('the real Claude Code with no .claude.json: offline it exits at its connectivity check, and spawn shows why', async () => {
    const { spawned, notices } = await spawnClaude(claudeCodeScript());
    const outcome = await spawned.then(
      () => 'ready',
      (e: unknown) => (e as Error).message,
    );
    if (notices.length > 0) {
      // A machine that reaches api.anthropic.com gets the first onboarding screen instead.
      expect(notices[0]).toMatch(/^c1 is waiting on Claude Code's first-run onboarding \(theme\) screen/);
      return;
    }
    expect(outcome).toMatch(/^spawn of c1 failed: c1 exited before it was ready/);
    expect(outcome).toContain('last output of its pane:');
    expect(outcome).toContain('Unable to connect to Anthropic services');
    expect(outcome).toContain('Failed to connect to api.anthropic.com');
    expect(outcome.split('\n').filter((l) => l.trim() === '')).toEqual([]);
  }, 60_000);

  it('a dialog nobody answers: spawn waits past the ready timeout, up to the dialog timeout, then fails naming it', async () => {
    const dialog = ['Accessing workspace:', 'Quick safety check: Is this a project you created or one you trust?', '❯ 1. Yes, I trust this folder', '  2. No, exit'];
    const script = `#!/bin/sh\nprintf '%s\\n' ${quote(dialog)}\nexec sleep 600\n`;
    const started = Date.now();
    // A ready timeout of 2 s, not less: the dialog must be on the screen before it runs out, even
    // when a loaded machine is slow to start the pane (at 1 s it once ran out first).
    const { spawned, notices } = await spawnClaude(script, { readyTimeoutMs: 2000, dialogTimeoutMs: 4000 });
    const err = await spawned.then(
      () => new Error('spawn succeeded'),
      (e: unknown) => e as Error,
    );
    const took = Date.now() - started;
    expect(took).toBeGreaterThan(4000); // the dialog, not the 2 s ready timeout, set the deadline
    expect(took).toBeLessThan(15_000);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('(spawn keeps waiting for the answer, up to 4 s)');
    expect(err.message.split('\n')[0]).toBe(
      'spawn of c1 failed: c1 was still waiting on Claude Code\'s folder trust dialog ("Is this a project you created or one you trust?"): nobody answered it in time (answer it in its pane, or seed Claude Code\'s state file as the notice said)',
    );
    expect(err.message).toContain('❯ 1. Yes, I trust this folder');
    expect((await readTeam(new Team(root, TEAM))).members.map((m) => m.name)).toEqual(['team-lead']);
    expect(await listAllPanes(server)).toHaveLength(1);
  }, 30_000);
});
