// Teammates that come back after a crash (SPEC §11): a swarm
// teammate on a private tmux server works a turn against the stand-in Messages API, the server is
// killed under it, `swarm status` shows it `stopped` (its task kept), `swarm send` queues a message
// with the resume hint, `swarm resume` brings it back in a new pane, and the model's next request
// holds the turns from before the crash and the queued message. Then what must not resume: a
// transcript corrupt in the middle and a cwd that is gone leave the member stopped, saying why; a
// transcript whose last line a SIGKILL cut short resumes; an old signed shutdown_request put back
// in the inbox is not obeyed twice. The console (`/send`) and the agent lead (SendMessage through
// the run's powers) resume a stopped member they message. A `--runtime claude` teammate (the fake
// teammate as `claude` on PATH) gets its original prompt again in a new session, or, when Claude
// Code's transcript of its session is there, is started with `--resume <id>` and no prompt.
// The first test spawns and resumes through the built executable (run `npm run build` first); the
// other command lines run in-process through main(argv, io).
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { openLeadMailbox } from '../../../src/permissions/lead-mailbox.js';
import { SpentLedgerSchema } from '../../../src/protocol/budget.js';
import { encodeControl } from '../../../src/protocol/control.js';
import { isSessionId } from '../../../src/protocol/ids.js';
import { StatusFileSchema } from '../../../src/protocol/status.js';
import { RESUMED_NOTE } from '../../../src/runtime/agent-loop.js';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { leadPowers } from '../../../src/cli/run/lead-powers.js';
import { sendMessage } from '../../../src/mailbox/send.js';
import { leadSendTool, type LeadPowers } from '../../../src/runtime/lead/tools.js';
import type { ToolContext } from '../../../src/runtime/tools/types.js';
import { capturePane } from '../../../src/backends/tmux/commands.js';
import { lastUserText, type RecordedRequest } from '../../../src/standin/request.js';
import type { MessagesServer } from '../../../src/standin/messages-server.js';
import { TaskList } from '../../../src/tasks/index.js';
import { addMember, claudeTranscript, readTeam, updateMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { deadPid } from '../../support/team-fixture.js';
import { useStandinTeam } from '../../support/standin-team.js';
import { reapServer, tmuxEnv } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

const TEAM = 'rs';
const FAKE = path.resolve(import.meta.dirname, '../../support/fake-teammate.mjs');
const WRITER = path.resolve(import.meta.dirname, '../../support/transcript-writer.mjs');

const t = useStandinTeam(TEAM, 'swarm-resume-');
const pids = t.pids;
let root: string;
let work: string;
let socket: string;
let standin: MessagesServer | undefined;
beforeEach(() => {
  ({ root, work, socket } = t);
  standin = undefined;
});
const envFor = (server: MessagesServer, extra: Record<string, string> = {}): Record<string, string> => t.env(server, extra);

interface Row {
  name: string;
  agentId: string;
  paneId: string | null;
  pid: number | null;
  state: string;
  resumeCommand: string | null;
  task: { id: string } | null;
}

async function member(env: Record<string, string>, name: string): Promise<Row> {
  const r = await swarmInProcess(root, ['status', '--json'], env);
  expect(r.exitCode, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { members: Row[] }).members.find((m) => m.name === name)!;
}

/** Messages without the prompt-cache marks (the runtime puts them on the latest block only). */
const uncached = (messages: unknown): unknown => JSON.parse(JSON.stringify(messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v)));

/** The state in a member's status file (cheaper to poll than `swarm status`). */
async function heartbeatState(name: string): Promise<string | undefined> {
  const raw = await fs.readFile(path.join(root, 'teams', TEAM, 'status', `${name}.json`), 'utf8').catch(() => undefined);
  return raw === undefined ? undefined : (JSON.parse(raw) as { state: string }).state;
}

const requestsOf = (server: MessagesServer, agent: string): RecordedRequest[] => server.requests.filter((r) => r.agent === agent && r.body !== undefined);

describe('swarm resume', () => {
  it('kill the tmux server under a working teammate: stopped, send queues with the hint, resume restores the turns and delivers the message', async () => {
    await fs.writeFile(path.join(work, 'notes.txt'), 'the notes\n');
    standin = await t.serve({
      script: {
        turns: [
          { match: { agent: 'w1', lastUser: 'read notes.txt' }, reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } }] } },
          { match: { agent: 'w1', toolResult: 'Read' }, reply: 'BEFORE-CRASH: the notes are read.' },
          { match: { agent: 'w1', lastUser: 'queued while stopped' }, reply: 'AFTER-RESUME: got it.' },
        ],
      },
    });
    const env = envFor(standin);
    const spawned = await swarm(root, ['spawn', 'w1', '-p', 'read notes.txt', '--backend', 'tmux', '--cwd', work, '--json'], env);
    expect(spawned.exitCode, spawned.stderr).toBe(0);
    const first = JSON.parse(spawned.stdout) as { agentId: string; color: string; paneId: string; pid: number };
    pids.add(first.pid);
    await waitFor(async () => requestsOf(standin!, 'w1').length === 2 && (await heartbeatState('w1')) === 'idle', 20_000, 'w1 idle after its turn');
    const before = requestsOf(standin, 'w1')[1]!.body!.messages;
    expect(JSON.stringify(before)).toContain('the notes');
    const pid = (await member(env, 'w1')).pid!;

    await reapServer(socket); // the tmux server dies, and the teammate with it
    await waitFor(() => !isProcessAlive(pid) && !isProcessAlive(first.pid), 10_000, 'the teammate to die with its server');
    // The task it was on (claimed here: a live teammate would take up an owned task as work).
    const tasks = new TaskList(new Team(root, TEAM));
    await tasks.create({ subject: 'Read the notes', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'w1');
    const stopped = await member(env, 'w1');
    expect(stopped).toMatchObject({ state: 'stopped', resumeCommand: `swarm resume w1 --team ${TEAM}`, task: { id: '1' } });
    const human = await swarmInProcess(root, ['status'], env);
    expect(human.stdout).toContain(`stopped: w1 (its process and pane are gone; inbox, tasks and conversation kept) — resume with: swarm resume w1 --team ${TEAM}`);

    const sent = await swarmInProcess(root, ['send', 'w1', 'queued while stopped'], env);
    expect(sent.exitCode, sent.stderr).toBe(0);
    expect(sent.stdout).toMatch(/^sent to w1 /);
    expect(sent.stderr).toBe(`swarm: note: w1 is stopped (its process and pane are gone); the message waits in its inbox until you resume it: swarm resume w1 --team ${TEAM}`);

    const notStopped = await swarmInProcess(root, ['resume', 'team-lead'], env);
    expect(notStopped.exitCode).toBe(1);
    expect(notStopped.stderr).toMatch(/no teammate team-lead in team rs/);

    const crashed = StatusFileSchema.parse(JSON.parse(await fs.readFile(path.join(root, 'teams', TEAM, 'status', 'w1.json'), 'utf8')));
    expect(crashed.totalTokens).toBeGreaterThan(0);
    const resumed = await swarm(root, ['resume'], env);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/^resumed w1: ready \(4 turns restored/);
    // The crashed process's heartbeat gave way to the new one's; what it spent still counts (team/spend.ts).
    const spent = SpentLedgerSchema.parse(JSON.parse(await fs.readFile(path.join(root, 'teams', TEAM, 'spent.json'), 'utf8')));
    expect(Object.values(spent.left)).toEqual([{ name: 'w1', tokens: crashed.totalTokens, ...(crashed.costUsd === undefined ? {} : { costUsd: crashed.costUsd }) }]);
    expect(resumed.stdout.split('\n')[1]).toBe(`  tmux -L ${socket} attach -t swarm-${TEAM}`);
    await waitFor(() => requestsOf(standin!, 'w1').length === 3, 20_000, "w1's first request after the resume");
    const after = requestsOf(standin, 'w1')[2]!.body!;
    // The whole conversation from before the crash (its last reply included), then the queued message.
    expect(uncached(after.messages.slice(0, before.length))).toEqual(uncached(before));
    expect(after.messages[before.length]).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'BEFORE-CRASH: the notes are read.' }] });
    expect(after.messages).toHaveLength(before.length + 2);
    expect(lastUserText(after)).toContain('queued while stopped');

    const back = await member(env, 'w1');
    pids.add(back.pid!);
    expect(back).toMatchObject({ agentId: first.agentId, task: { id: '1' }, resumeCommand: null });
    expect(back.paneId).not.toBe(null);
    const config = await readTeam(new Team(root, TEAM));
    expect(config.members[1]).toMatchObject({ name: 'w1', color: first.color, tmuxPaneId: back.paneId });
    expect((await listAllPanes(new TmuxServer({ socket }))).map((p) => p.paneId)).toContain(back.paneId);
    expect((await swarmInProcess(root, ['resume', 'w1'], env)).stderr).toMatch(/^swarm: w1 is already running \(pid \d+, (idle|working)\): only a stopped member \(process and pane gone\) can be resumed$/);
  }, 90_000);

  it('a corrupt transcript, a cwd that is gone or a teammate that dies at start leaves the member stopped and says why; a last line cut short by SIGKILL resumes; an old signed shutdown_request is not obeyed twice', async () => {
    standin = await t.serve({
      script: {
        turns: [
          { match: { agent: 'w1', lastUser: 'stopped in the middle' }, reply: 'RESUMED: carrying on.' },
          { match: { agent: 'w1', lastUser: 'ping' }, reply: 'pong' },
        ],
      },
    });
    const env = envFor(standin, { SWARM_SHUTDOWN_GRACE_MS: '200' });
    const team = new Team(root, TEAM);
    const gone = await deadPid();
    const gonePane = { tmuxPaneId: '%7', backendType: 'tmux', pid: gone, isActive: true };
    await addMember(team, { name: 'w1', cwd: work });
    await updateMember(team, 'w1', gonePane);
    await addMember(team, { name: 'w2', cwd: path.join(root, 'removed') });
    await updateMember(team, 'w2', { ...gonePane, tmuxPaneId: '%8' });
    const log = path.join(root, 'teams', TEAM, 'logs', 'w1.jsonl');
    await fs.mkdir(path.dirname(log), { recursive: true });
    const line = (kind: string, text: string) => JSON.stringify({ kind, content: [{ type: 'text', text }] });
    await fs.writeFile(log, [line('user', 'one'), '{"kind":"assistant","content":[{"type":"te', line('user', 'three'), ''].join('\n'));

    const failed = await swarmInProcess(root, ['resume'], env);
    expect(failed.exitCode).toBe(1);
    expect(failed.stderr).toContain(`swarm: resume of w1 failed: its transcript cannot be restored whole: ${log} line 2: not JSON`);
    expect(failed.stderr).toContain(`swarm: resume of w2 failed: its cwd ${path.join(root, 'removed')} no longer exists`);
    for (const name of ['w1', 'w2']) expect((await member(env, name)).state).toBe('stopped');
    expect((await readTeam(team)).members.slice(1).map((m) => [m.tmuxPaneId, m.pid])).toEqual([['%7', gone], ['%8', gone]]);

    // A real SIGKILL in the middle of an append: whole lines, then half of one.
    await fs.rm(log);
    const writer = spawn(process.execPath, [WRITER, log], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    writer.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => writer.once('exit', resolve));
    await waitFor(() => out.includes('half'), 10_000, 'the writer to write half a line');
    writer.kill('SIGKILL');
    await exited;
    // An old signed shutdown_request, already acted on before the crash, back in the inbox unread.
    const { mailbox: lead } = await openLeadMailbox({ team });
    const old = await lead.append('w1', { from: 'team-lead', text: encodeControl({ type: 'shutdown_request', requestId: `shutdown-${Date.now()}@w1`, from: 'team-lead', reason: 'old', timestamp: new Date().toISOString() }) });
    await fs.writeFile(path.join(root, 'teams', TEAM, 'status', 'w1.acted.jsonl'), `${JSON.stringify(old.msg_id)}\n`);

    // A teammate that exits before it is ready (the fake one, crashing): its new pane is closed, the member stays stopped as it was.
    const crashing = quote(['env', 'FAKE_CRASH=1', process.execPath, FAKE]);
    const died = await swarmInProcess(root, ['resume', 'w1'], { ...env, SWARM_TEAMMATE_COMMAND: crashing });
    expect(died.exitCode).toBe(1);
    expect(died.stderr).toMatch(/^swarm: resume of w1 failed: w1 exited before it was ready( \(exit status 3\))?; w1 is still stopped\nlast output of its pane:\n/);
    expect(died.stderr).toContain('"--cwd","' + work + '","--resume"]'); // its command line: the swarm teammate's flags, --resume added
    expect(died.stderr).toContain('fake-teammate: crashing at once (FAKE_CRASH=1)');
    expect((await readTeam(team)).members[1]).toMatchObject({ tmuxPaneId: '%7', pid: gone });
    expect((await member(env, 'w1')).state).toBe('stopped');

    const resumed = await swarmInProcess(root, ['resume', 'w1'], env);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout.split('\n')[0]).toMatch(/^resumed w1: ready \(3 turns restored(, 1 unread message waiting)?\)$/);
    const back = await member(env, 'w1');
    pids.add(back.pid!);
    await waitFor(() => requestsOf(standin!, 'w1').length === 1, 20_000, "w1's request after the resume");
    const body = requestsOf(standin, 'w1')[0]!.body!;
    // Cut off mid-turn: the whole lines, then the note (and the replayed request, shown as unverified) in the same user message.
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(body.messages[2])).toContain('x'.repeat(50_000));
    expect(JSON.stringify(body.messages[2])).toContain(RESUMED_NOTE.slice(0, 40));
    expect(await fs.readFile(log, 'utf8')).not.toContain('the half that never ends');

    // Past its 200 ms grace, the replayed request has not stopped it.
    await lead.append('w1', { from: 'team-lead', text: 'ping' });
    await waitFor(() => requestsOf(standin!, 'w1').length === 2, 20_000, "w1's answer to ping");
    await waitFor(async () => (await heartbeatState('w1')) === 'idle', 10_000, 'w1 idle again');
    expect(isProcessAlive(back.pid!)).toBe(true);
    const leadInbox = await new Mailbox({ team }).read('team-lead');
    expect(leadInbox.some((m) => m.text.includes('shutdown_approved'))).toBe(false);
    expect(await fs.readFile(log, 'utf8')).toMatch(/"kind":"message_in".*"type":"shutdown_request".*"unverified":"a replay of a message already acted on"/);
  }, 90_000);

  it('the agent lead and the console resume a stopped member they message', async () => {
    standin = await t.serve({
      script: {
        turns: [
          { match: { agent: 'w1', lastUser: 'from the lead' }, reply: 'lead heard' },
          { match: { agent: 'w2', lastUser: 'from the console' }, reply: 'console heard' },
        ],
      },
    });
    const env = envFor(standin);
    const team = new Team(root, TEAM);
    const gone = await deadPid();
    for (const [name, pane] of [['w1', '%7'], ['w2', '%8']] as const) {
      await addMember(team, { name, cwd: work });
      await updateMember(team, name, { tmuxPaneId: pane, backendType: 'tmux', pid: gone, isActive: false });
      const log = path.join(root, 'teams', TEAM, 'logs', `${name}.jsonl`);
      await fs.mkdir(path.dirname(log), { recursive: true });
      const line = (kind: string, text: string) => JSON.stringify({ kind, content: [{ type: 'text', text }] });
      await fs.writeFile(log, `${line('user', 'start')}\n${line('assistant', 'done')}\n`);
    }

    // The agent lead: SendMessage through the run's powers.
    const { mailbox: lead } = await openLeadMailbox({ team });
    const printed: string[] = [];
    const powers: LeadPowers = {
      ...leadPowers({ team, env: { PATH: process.env.PATH, CLAUDE_CONFIG_DIR: root, ...env }, backend: 'tmux', cwd: work, print: (l) => printed.push(l) }),
      mayAddTeammate: async () => undefined,
      send: async (to, text) => (await sendMessage(lead, { to, text })).recipients,
    };
    const send = await leadSendTool(powers).prepare({ to: 'w1', message: 'from the lead' }, {} as ToolContext);
    const result = await send.execute(new AbortController().signal);
    expect(result.content).toMatch(/^Message sent to w1\nresumed w1: ready \(2 turns restored(, 1 unread message waiting)?\) — it was stopped \(its process and pane were gone\) and reads the message now$/);
    expect(printed).toEqual([result.content.split('\n')[1]]);
    await waitFor(() => requestsOf(standin!, 'w1').length === 1, 20_000, 'w1 to answer the lead');
    expect(lastUserText(requestsOf(standin, 'w1')[0]!.body!)).toContain('from the lead');
    pids.add((await member(env, 'w1')).pid!);

    // The console: /send.
    const flags = Object.entries({ CLAUDE_CONFIG_DIR: root, ...env, SWARM_TEAM: '' }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = `${quote([process.execPath, SWARM_BIN, 'lead', '--team', TEAM])}; sleep 300`;
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', root, cmd], { env: { ...process.env, TMUX: '', SWARM_TEAM: '' } });
    const server = new TmuxServer({ socket });
    const pane = (await server.run(['list-panes', '-t', 'main', '-F', '#{pane_id}'])).trim();
    const screen = (): Promise<string> => capturePane(server, pane, 200);
    await waitFor(async () => (await screen()).includes('lead>'), 15_000, 'the console prompt');
    await server.run(['send-keys', '-t', pane, '-l', '--', '/send w2 from the console']);
    await server.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => /resumed w2: ready \(2 turns restored/.test(await screen()), 30_000, 'the console to resume w2');
    await waitFor(() => requestsOf(standin!, 'w2').length === 1, 20_000, 'w2 to answer the console');
    expect(lastUserText(requestsOf(standin, 'w2')[0]!.body!)).toContain('from the console');
    pids.add((await member(env, 'w2')).pid!);
  }, 90_000);

  /** A claude teammate c1 (the fake as `claude` on PATH), spawned, then crashed with its tmux server. */
  async function crashedClaude(): Promise<{ env: Record<string, string>; first: { pid: number }; bin: string }> {
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'claude'), `#!/bin/sh\nexec ${quote([process.execPath, FAKE])} "$@"\n`, { mode: 0o755 });
    const env = { ...tmuxEnv(socket, []), SWARM_TEAMMATE_COMMAND: '', SWARM_TEAM: TEAM, PATH: `${bin}:${process.env.PATH ?? ''}` };
    const spawned = await swarmInProcess(root, ['spawn', 'c1', '-p', 'ORIGINAL PROMPT', '--runtime', 'claude', '--backend', 'tmux', '--cwd', work, '--json'], env);
    expect(spawned.exitCode, spawned.stderr).toBe(0);
    const first = JSON.parse(spawned.stdout) as { pid: number };
    pids.add(first.pid);
    await reapServer(socket);
    await waitFor(() => !isProcessAlive(first.pid), 10_000, 'c1 to die with its server');
    return { env, first, bin };
  }

  it('a claude teammate is restarted with its original prompt, its unread message still there for it', async () => {
    const { env, bin } = await crashedClaude();
    expect((await member(env, 'c1')).state).toBe('stopped');
    expect((await swarmInProcess(root, ['send', 'c1', 'QUEUED'], env)).exitCode).toBe(0);
    // Its team's scratchpad removed by hand meanwhile: made again (0700) before claude is started.
    const scratchpad = new Team(root, TEAM).paths.scratchpad;
    await fs.rm(scratchpad, { recursive: true });

    // Started in a session swarm named; the fake keeps no transcript of it, so there is none to go on with.
    const firstSession = (await readTeam(new Team(root, TEAM))).members[1]!.sessionId!;
    expect(isSessionId(firstSession)).toBe(true);
    // A resume that fails (this claude exits at once) leaves the session it had recorded.
    const script = await fs.readFile(path.join(bin, 'claude'), 'utf8');
    await fs.writeFile(path.join(bin, 'claude'), '#!/bin/sh\nexit 3\n');
    expect((await swarmInProcess(root, ['resume', 'c1'], env)).exitCode).not.toBe(0);
    expect((await readTeam(new Team(root, TEAM))).members[1]!.sessionId).toBe(firstSession);
    await fs.writeFile(path.join(bin, 'claude'), script);
    const resumed = await swarmInProcess(root, ['resume', 'c1'], env);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect((await fs.stat(scratchpad)).mode & 0o777).toBe(0o700);
    expect(resumed.stdout).toMatch(/^resumed c1: ready \(its original prompt sent again/);
    // ... so it starts a new session, recorded for the next resume.
    const secondSession = (await readTeam(new Team(root, TEAM))).members[1]!.sessionId!;
    expect(isSessionId(secondSession) && secondSession !== firstSession).toBe(true);
    pids.add((await member(env, 'c1')).pid!);
    const inbox = await new Mailbox({ team: new Team(root, TEAM) }).read('c1');
    expect(inbox.map((m) => [m.text, m.read])).toEqual([
      ['ORIGINAL PROMPT', true],
      ['QUEUED', expect.any(Boolean)],
      ['ORIGINAL PROMPT', true], // the failed resume's, taken back
      ['ORIGINAL PROMPT', true],
    ]);
    await waitFor(async () => (await new Mailbox({ team: new Team(root, TEAM) }).unread('c1')).length === 0, 10_000, 'c1 to read the queued message');
  }, 60_000);

  it('a claude teammate whose session transcript is here goes on in it: --resume <id>, no prompt again, ready only once it writes there', async () => {
    const { env } = await crashedClaude();
    expect((await swarmInProcess(root, ['send', 'c1', 'QUEUED'], env)).exitCode).toBe(0);
    // Claude Code's transcript of its session, as a real claude leaves it (the fake writes none).
    const team = new Team(root, TEAM);
    const sessionId = (await readTeam(team)).members[1]!.sessionId!;
    const transcript = claudeTranscript(root, work, sessionId);
    await fs.mkdir(path.dirname(transcript), { recursive: true });
    await fs.writeFile(transcript, `${JSON.stringify({ type: 'user', sessionId })}\n`);

    // The fake takes the session and reads its inbox but never writes to the transcript: not ready.
    const resumed = await swarmInProcess(root, ['resume', 'c1', '--ready-timeout', '3'], env);
    expect(resumed.exitCode).not.toBe(0);
    expect(resumed.stdout + resumed.stderr).toContain(`c1 was not ready within 3 s (it did not take up its Claude Code session ${transcript})`);
    expect(resumed.stdout + resumed.stderr).toContain(`"--resume","${sessionId}"`);
    expect(resumed.stdout + resumed.stderr).not.toContain('--session-id');
    // Its prompt was not written again; the queued message was there for it as usual.
    expect((await new Mailbox({ team }).read('c1')).map((m) => m.text)).toEqual(['ORIGINAL PROMPT', 'QUEUED']);
    // Still stopped, in the same session, for a later resume.
    expect((await member(env, 'c1')).state).toBe('stopped');
    expect((await readTeam(team)).members[1]!.sessionId).toBe(sessionId);

    // A session id that is no UUID (config.json edited by hand) is not gone on with, even with a file
    // where it points: the prompt is sent again, in a new session.
    await updateMember(team, 'c1', { sessionId: '../escape' });
    await fs.writeFile(claudeTranscript(root, work, '../escape'), '{}\n');
    const again = await swarmInProcess(root, ['resume', 'c1', '--ready-timeout', '10'], env);
    expect(again.exitCode, again.stdout + again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^resumed c1: ready \(its original prompt sent again/);
    pids.add((await member(env, 'c1')).pid!);
    expect(isSessionId((await readTeam(team)).members[1]!.sessionId!)).toBe(true);
  }, 60_000);
});
