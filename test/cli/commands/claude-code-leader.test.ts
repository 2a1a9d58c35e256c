// swarm on a team a REAL Claude Code leader made (issue 21 item 4): Claude Code 2.1.112 (the
// devDependency, run with node) is the leader in a pane of a private tmux server, offline against
// the stand-in Messages API, its state file seeded so no first-run dialog shows, agent teams on
// (CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1). Its scripted model creates team `ccl` with TeamCreate and
// spawns teammates w1 and w2 with the Agent tool (team_name + name); Claude Code splits their panes
// on that same server ($TMUX in its pane) and types each teammate — Claude Code too — into the new
// pane's shell. w1 runs a Bash command that needs permission, so its permission_request goes to
// team-lead's inbox; `swarm permissions` lists it, `swarm approve` answers it and the command runs.
// Then `swarm status` and `swarm doctor` on that team, `swarm shutdown w1` (its model approves) and
// `swarm kill w2`, each teammate's Claude Code process verified gone.
import { execa } from 'execa';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { descendantsOf, isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { lastToolResultNames, lastUserText, type IncomingRequest, type MessagesRequest } from '../../../src/standin/request.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { teamPaths } from '../../../src/team/index.js';
import { CLAUDE_CODE, CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, requireClaudeCode, seedClaudeCodeState } from '../../support/claude-code.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { useTempRoot, afterThisTest, tempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'ccl';
const LEAD_PROMPT = 'Make team ccl and start w1 and w2.';
const W1_PROMPT = 'Run the build step.';
const W2_PROMPT = 'Wait for instructions.';
const COMMAND = 'touch built.txt && echo built-$((6*7))';

/** A request of a conversation (side requests, such as a title from Haiku, carry no tools). */
const main = (r: { body: MessagesRequest }): boolean => (r.body.tools ?? []).some((t) => t.name === 'Bash');
/** A conversation's turn on a new user message (no tool result) containing `text`. */
const fresh = (text: string) => (r: IncomingRequest): boolean => main(r) && lastToolResultNames(r.body).length === 0 && lastUserText(r.body).includes(text);
const after = (tool: string) => (r: { body: MessagesRequest }): boolean => main(r) && lastToolResultNames(r.body).includes(tool);

/** Whose conversation a request belongs to, by the prompt its first user message carries. */
function whose(body: MessagesRequest): string {
  const first = body.messages.find((m) => m.role === 'user');
  const text = first === undefined ? '' : JSON.stringify(first.content);
  const who = text.includes(LEAD_PROMPT) ? 'leader' : text.includes(W1_PROMPT) ? 'w1' : text.includes(W2_PROMPT) ? 'w2' : '?';
  return main({ body }) ? who : `${who} (side)`;
}

describe('a real Claude Code leader and its teammates, driven by swarm', () => {
  let root: string;
  let work: string;
  let socket: string;
  let tmux: TmuxServer;
  let standin: MessagesServer;
  const started = new Set<number>();

  useTempRoot((dir) => (root = dir), 'swarm-ccl-');
  beforeEach(async () => {
    requireClaudeCode();
    work = await fs.realpath(await tempRoot('swarm-work-'));
    await seedClaudeCodeState(root, work);
    const w2Idle = async (): Promise<boolean> =>
      (await fs.readFile(teamPaths(root, TEAM).inbox('team-lead'), 'utf8').catch(() => '')).includes('\\"idle_notification\\",\\"from\\":\\"w2\\"');
    /** No lock held and nothing written for 1.5 s in the team's directory and inboxes. */
    const teamFilesQuiet = async (): Promise<boolean> => {
      const dirs = [teamPaths(root, TEAM).dir, teamPaths(root, TEAM).inboxes];
      for (const dir of dirs) {
        for (const f of await fs.readdir(dir).catch(() => [])) {
          if (f.endsWith('.lock')) return false;
          const st = await fs.stat(path.join(dir, f)).catch(() => undefined);
          if (st !== undefined && Date.now() - st.mtimeMs < 1500) return false;
        }
      }
      return true;
    };
    standin = await startMessagesServer({
      script: {
        shutdown: 'approve', // a shutdown_request is answered with SendMessage shutdown_response approve
        turns: [
          { match: fresh(LEAD_PROMPT), reply: { content: [{ type: 'tool_use', name: 'TeamCreate', input: { team_name: TEAM, description: 'swarm interop' } }] } },
          {
            match: after('TeamCreate'),
            reply: {
              content: [
                { type: 'tool_use', name: 'Agent', input: { description: 'build', prompt: W1_PROMPT, name: 'w1', team_name: TEAM } },
                { type: 'tool_use', name: 'Agent', input: { description: 'standby', prompt: W2_PROMPT, name: 'w2', team_name: TEAM } },
              ],
            },
          },
          // w1 asks only once w2 is up and idle and the team's files are quiet: Claude Code 2.1.112 sends
          // a permission request once, and drops it when the team file it reads the leader's name from
          // is mid-rewrite (w2 joining) or when team-lead's inbox lock stays taken for its ~0.7 s of
          // retries (the leader marking w2's idle notices read, on a loaded machine).
          {
            match: fresh(W1_PROMPT),
            respond: async () => {
              await waitFor(w2Idle, 60_000, "w2's idle notification", 100).catch(() => undefined); // then ask anyway
              await waitFor(teamFilesQuiet, 20_000, "the team's files quiet", 100).catch(() => undefined);
              return { reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: COMMAND, description: 'build' } }] } };
            },
          },
          { match: after('Bash'), reply: 'Built.' },
          // Anything else (the leader after its spawns, w2, side requests, idle notices): a short answer.
          ...Array.from({ length: 80 }, () => ({ match: () => true, reply: 'ok' })),
        ],
      },
    });
    afterThisTest(() => standin.close());
    socket = tmuxForThisTest(started); // reaped after the test, and the Claude Code processes found SIGKILLed
    tmux = new TmuxServer({ socket });
  });

  /** Every pane's screen and what the stand-in was asked: what a failed wait shows. */
  async function diagnosis(): Promise<string> {
    const panes = await listAllPanes(tmux).catch(() => []);
    const screens = await Promise.all(
      panes.map(async (p) => `--- pane ${p.paneId} (pid ${p.pid}):\n${await capturePane(tmux, p.paneId, 0).catch((e: unknown) => String(e))}`),
    );
    const requests = standin.requests.map((r) => {
      const body = r.body;
      const what = body === undefined ? `${r.method} ${r.path}` : `${whose(body)}: "${lastUserText(body).slice(0, 100).replace(/\s+/g, ' ')}"`;
      return `  ${r.outcome}${r.turn === undefined ? '' : ` (turn ${r.turn})`} ${what}${r.error ? ` — ${r.error}` : ''}`;
    });
    const dir = teamPaths(root, TEAM).inboxes;
    const inboxes = await Promise.all(
      (await fs.readdir(dir).catch(() => [])).map(async (f) => {
        const raw = await fs.readFile(path.join(dir, f), 'utf8').catch((e: unknown) => String(e));
        let lines: string[];
        try {
          lines = (JSON.parse(raw) as { from: string; read: boolean; text: string }[]).map((m) => `  ${m.from}${m.read ? '' : ' (unread)'}: ${m.text.slice(0, 100).replace(/\s+/g, ' ')}`);
        } catch {
          lines = [`  (not JSON) ${raw.slice(0, 200)}`];
        }
        return `--- inbox ${f}:\n${lines.join('\n')}`;
      }),
    );
    // Claude Code's own account of its mailbox and permission traffic (DEBUG=1 logs to <config>/debug/).
    const debugDir = path.join(root, 'debug');
    const logged = (
      await Promise.all(
        (await fs.readdir(debugDir).catch(() => [])).map(async (f) =>
          (await fs.readFile(path.join(debugDir, f), 'utf8').catch(() => ''))
            .split('\n')
            .filter((l) => /PermissionSync|Failed to|writeToMailbox/.test(l))
            .map((l) => `  ${f.slice(0, 8)} ${l.slice(0, 200)}`),
        ),
      )
    ).flat();
    return `${screens.join('\n')}\n${inboxes.join('\n')}\n--- the stand-in's requests:\n${requests.join('\n')}\n--- Claude Code's debug logs:\n${logged.join('\n')}`;
  }

  /** waitFor with the CI deadline; a timeout says what every pane shows and what was asked. */
  async function until<T>(cond: () => T | Promise<T>, what: string): Promise<NonNullable<T>> {
    return waitFor(cond, 60_000, what, 100).catch(async (e: Error) => {
      throw new Error(`${e.message}\n${await diagnosis()}`);
    });
  }

  type Member = { name: string; tmuxPaneId: string; backendType?: string };
  const members = async (): Promise<Member[]> =>
    (JSON.parse(await fs.readFile(teamPaths(root, TEAM).config, 'utf8')) as { members: Member[] }).members;

  /** The Claude Code process of a teammate: what runs under its pane's shell (titled `claude`). */
  async function teammateProcess(pane: string, name: string): Promise<number> {
    const shell = Number((await tmux.run(['display-message', '-p', '-t', pane, '#{pane_pid}'])).trim());
    return until(async () => {
      for (const pid of await descendantsOf(shell)) {
        const title = (await execa('ps', ['-o', 'args=', '-p', String(pid)], { reject: false })).stdout.trim();
        if (title !== 'claude') continue;
        started.add(pid);
        return pid;
      }
      return undefined;
    }, `${name}'s Claude Code process in pane ${pane}`);
  }

  it("TeamCreate + Agent split panes on the leader's server; swarm lists and approves w1's Bash request (it runs), status, doctor, shutdown w1, kill w2", async () => {
    // HOME of its own: Claude Code's Bash snapshots a login shell, which would read this machine's
    // ~/.profile and ~/.bashrc (and fail with them when they are broken).
    const env = { HOME: root, CLAUDE_CONFIG_DIR: root, ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY, ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET, CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1', DEBUG: '1' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    // Claude Code types each teammate's command into a new pane's shell: /bin/sh, no rc files to wait on.
    // --teammate-mode tmux: panes, as auto picks inside tmux; auto once fell back to in-process teammates on a loaded machine.
    const leader = (
      await tmux.runChain([
        ['start-server'],
        ['set-option', '-g', 'default-shell', '/bin/sh'],
        ['new-session', '-d', '-s', 'leader', '-x', '200', '-y', '50', '-c', work, '-P', '-F', '#{pane_id}', ...flags, quote([process.execPath, CLAUDE_CODE, '--teammate-mode', 'tmux', LEAD_PROMPT])],
      ])
    ).trim();
    started.add(Number((await tmux.run(['display-message', '-p', '-t', leader, '#{pane_pid}'])).trim()));

    // The team Claude Code made, its teammates in panes it split on this (private) server.
    const [w1, w2] = await until(async () => {
      const listed = await members().catch(() => []);
      const both = ['w1', 'w2'].map((n) => listed.find((m) => m.name === n && m.tmuxPaneId.startsWith('%')));
      return both.every((m) => m !== undefined) ? (both as Member[]) : undefined;
    }, 'w1 and w2 in the team Claude Code created, with their panes');
    const panes = (await listAllPanes(tmux)).map((p) => p.paneId);
    expect(panes).toEqual(expect.arrayContaining([leader, w1!.tmuxPaneId, w2!.tmuxPaneId]));
    expect(w1).toMatchObject({ backendType: 'tmux' });

    const run = (...args: string[]) => swarm(root, [...args, '--team', TEAM], { SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' });

    // w1's permission_request, listed and approved by swarm; the command runs.
    const listed = await until(async () => {
      const r = await swarmInProcess(root, ['permissions', '--team', TEAM], { SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' }); // polled in process: a CLI start each time costs 0.4 CPU-s
      return /perm-\S+\s+w1\s+Bash/.exec(r.stdout)?.[0];
    }, "w1's Bash request in swarm permissions");
    const id = listed.split(/\s+/)[0]!;
    const approved = await run('approve', id);
    expect(approved.exitCode, approved.stderr).toBe(0);
    await until(
      () => standin.requests.some((r) => r.body !== undefined && whose(r.body) === 'w1' && after('Bash')({ body: r.body }) && lastUserText(r.body).includes('built-42')),
      "the Bash output in w1's next request",
    );
    expect(existsSync(path.join(work, 'built.txt'))).toBe(true);
    expect((await run('permissions')).stdout).toContain('no pending permission requests');

    // status and doctor on the team Claude Code made.
    const status = await run('status');
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`\\bw1\\s+tmux\\s+${w1!.tmuxPaneId}\\s`));
    expect(status.stdout).toMatch(new RegExp(`\\bw2\\s+tmux\\s+${w2!.tmuxPaneId}\\s`));
    const doctor = await run('doctor');
    expect(doctor.exitCode, doctor.stdout).toBe(0);
    expect(doctor.stdout).toContain(`i team ${TEAM}'s directory ${teamPaths(root, TEAM).dir} has mode 0755, as Claude Code made it`);
    expect(doctor.stdout).not.toContain('✗');

    // shutdown w1: its model approves; its Claude Code process and pane are verified gone.
    const w1Process = await teammateProcess(w1!.tmuxPaneId, 'w1');
    const down = await run('shutdown', 'w1', '--json');
    expect(down.exitCode, `${down.stdout}${down.stderr}`).toBe(0);
    // It exited by itself (its pane's shell, left at a prompt, is not the teammate): nothing was killed.
    expect(JSON.parse(down.stdout)).toEqual([{ name: 'w1', outcome: 'approved', verified: true }]);
    expect(isProcessAlive(w1Process)).toBe(false);

    // kill w2: at once, its Claude Code process verified gone (it outlives its pane's shell).
    const w2Process = await teammateProcess(w2!.tmuxPaneId, 'w2');
    const killed = await run('kill', 'w2', '--json');
    expect(killed.exitCode, `${killed.stdout}${killed.stderr}`).toBe(0);
    expect(JSON.parse(killed.stdout)).toMatchObject({ name: 'w2', outcome: 'killed', verified: true });
    expect(isProcessAlive(w2Process)).toBe(false);

    const left = (await listAllPanes(tmux)).map((p) => p.paneId);
    expect(left).toContain(leader);
    expect(left).not.toContain(w1!.tmuxPaneId);
    expect(left).not.toContain(w2!.tmuxPaneId);
    expect((await members()).map((m) => m.name)).toEqual(['team-lead']);
  }, 180_000);
});
