// Interop with the real Claude Code: a `--runtime claude` teammate (2.1.112, the devDependency run
// with node, and the native 2.1.332), spawned by swarm on a private tmux socket offline against the
// stand-in Messages API, is started in a session swarm names (`--session-id`, config.json
// `sessionId`). Killed after a turn, it is resumed with `claude --resume <that id>` and the same
// teammate flags: it comes back as the teammate it was, reads the message that waited in its inbox,
// and its request to the model carries the earlier conversation. (That no prompt is sent again is
// resume.test.ts's: 2.1.112 delivers a prompt more than once by itself, and both builds may drop
// read entries from the inbox.)
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { resumedLine } from '../../src/cli/resume-members.js';
import { isProcessAlive } from '../../src/backends/process.js';
import { selectBackend } from '../../src/backends/registry.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { isSessionId } from '../../src/protocol/ids.js';
import { lastUserText, systemText, type IncomingRequest } from '../../src/standin/request.js';
import { startMessagesServer, type MessagesServer } from '../../src/standin/messages-server.js';
import { claudeTranscript, createTeam, readTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { resumeTeammates } from '../../src/teammates/resume.js';
import { spawnTeammate } from '../../src/teammates/spawn.js';
import { CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, CLAUDE_CODE_BUILDS, claudeCodeWorkspace } from '../support/claude-code.js';
import { makeRepo } from '../support/git-repo.js';
import { afterThisTest, tempRoot, useTempRoot } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';
import { waitFor } from '../support/wait.js';

const TEAM = 'cc';
const PROMPT = 'Remember the word MARKER-ALPHA.';
const QUESTION = 'Which word did you remember?';

/** Claude Code's main conversation (its side requests, e.g. a title from Haiku, carry no tools). */
const main = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'Write');

describe.each(CLAUDE_CODE_BUILDS)('a real Claude Code $version teammate resumed in its session', (build) => {
  let root: string;
  let socket: string;
  let backend: Backend;
  let standin: MessagesServer;
  let work: string;
  let bin: string;
  const pids = new Set<number>();

  useTempRoot((dir) => (root = dir), 'swarm-ccr-');
  beforeEach(async () => {
    await createTeam(root, { name: TEAM });
    socket = tmuxForThisTest(pids);
    ({ work, bin } = await claudeCodeWorkspace(root, build, tempRoot));
    standin = await startMessagesServer({
      script: {
        turns: [
          { match: (r) => main(r) && lastUserText(r.body).includes(PROMPT), reply: 'MARKER-ALPHA noted.' },
          { match: (r) => main(r) && lastUserText(r.body).includes(QUESTION), reply: 'MARKER-BETA: it was MARKER-ALPHA.' },
          // Anything else (side requests, a prompt read twice): a short answer, as often as asked.
          ...Array.from({ length: 40 }, () => ({ match: () => true, reply: 'ok' })),
        ],
      },
    });
    afterThisTest(() => standin.close());
    ({ backend } = await selectBackend({ requested: 'tmux', env: { SWARM_TMUX_SOCKET: socket }, team: new Team(root, TEAM), killTimeoutMs: 2000 }));
  });

  it('goes on with its conversation as the same teammate: the waiting message read, the earlier turns sent along', async () => {
    const env = {
      PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      CLAUDE_CONFIG_DIR: root,
      ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
      ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET,
      SWARM_TMUX_SOCKET: socket,
    };
    const team = new Team(root, TEAM);
    // It works in a subdirectory of a repository: Claude Code keys its sessions by that directory
    // itself, not by the repository's root as it does its memory.
    const cwd = path.join(await makeRepo(work, { 'sub/README.md': 'in sub\n' }), 'sub');
    const spawned = await spawnTeammate({ team, name: 'c1', prompt: PROMPT, runtime: 'claude', permissionMode: 'default', cwd, backend, env, readyTimeoutMs: 60_000 });
    pids.add(spawned.pid!);
    const sessionId = (await readTeam(team)).members[1]!.sessionId!;
    expect(isSessionId(sessionId)).toBe(true);
    // Claude Code keeps the session under the id swarm gave it: the turn is in that transcript.
    const transcript = claudeTranscript(root, cwd, sessionId);
    await waitFor(async () => (await fs.readFile(transcript, 'utf8').catch(() => '')).includes('MARKER-ALPHA noted.'), 60_000, 'the first turn in the session transcript');
    // Its turn is over once it told team-lead it is idle (read as it is: Claude Code writes in place).
    const idle = async (): Promise<number> => {
      const raw = await fs.readFile(team.paths.inbox('team-lead'), 'utf8').catch(() => '[]');
      const entries = ((): { from: string; text: string }[] => {
        try {
          return JSON.parse(raw) as { from: string; text: string }[];
        } catch {
          return [];
        }
      })();
      return entries.filter((m) => m.from === 'c1' && m.text.includes('"idle_notification"')).length;
    };
    await waitFor(async () => (await idle()) >= 1, 60_000, 'c1 idle after its first turn');
    // 2.1.112 also rewrites config.json in place (isActive) about 0.2 s after that notification: a
    // SIGKILL in the middle of it left the file empty in a loaded CI run. Killed once the file has
    // been still for a second.
    let seen = '';
    let stillSince = Date.now();
    await waitFor(
      async () => {
        const st = await fs.stat(team.paths.config);
        const now = `${st.ino}:${st.size}:${st.mtimeMs}`;
        if (now !== seen) [seen, stillSince] = [now, Date.now()];
        return st.size > 0 && Date.now() - stillSince >= 1000;
      },
      20_000,
      'config.json still after c1 went idle',
    );

    // Killed outright (a crash): 2.1.112 ended by SIGTERM or SIGHUP rewrites config.json in place on
    // its way out and, now and then, dies between the truncation and the write, leaving it empty.
    process.kill(spawned.pid!, 'SIGKILL');
    await waitFor(() => !isProcessAlive(spawned.pid!), 20_000, 'c1 to die');
    const { mailbox } = await openLeadMailbox({ team });
    await mailbox.append('c1', { from: 'team-lead', text: QUESTION });
    const before = standin.requests.length;

    const [result] = await resumeTeammates({ team, names: ['c1'], backend, env, inspectTranscript: () => Promise.resolve(0), readyTimeoutMs: 60_000 });
    if (!result!.ok) throw result!.error;
    pids.add(result!.teammate.pid!);
    expect(result).toMatchObject({ ok: true, runtime: 'claude', continued: true });
    expect(resumedLine(result!)).toMatch(/^resumed c1: ready \(its Claude Code session continued/);
    expect((await readTeam(team)).members[1]!.sessionId).toBe(sessionId);

    const asked = (): IncomingRequest | undefined =>
      standin.requests.slice(before).find((r): r is typeof r & IncomingRequest => r.body !== undefined && main(r as IncomingRequest) && lastUserText(r.body).includes(QUESTION));
    await waitFor(asked, 60_000, 'the waiting message sent to the model').catch(async (e: Error) => {
      const screen = (await backend.capture(result!.ok ? result!.teammate : { paneId: '', backendType: 'tmux' }, 40).catch(() => ({ lines: ['(no capture)'] }))).lines.join('\n');
      throw new Error(`${e.message}\n--- the pane:\n${screen}`);
    });
    // The earlier conversation goes with it: the first prompt and the answer to it.
    const sent = JSON.stringify(asked()!.body.messages);
    expect(sent).toContain(PROMPT);
    expect(sent).toContain('MARKER-ALPHA noted.');
    // It runs as the teammate it was: Claude Code's teammate instructions are in its system prompt.
    expect(systemText(asked()!.body)).toContain('# Agent Teammate Communication');
  }, 180_000);
});
