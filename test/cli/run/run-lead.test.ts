// `swarm run -p` and the agent lead's rules (SPEC §9), end to end: the real CLI process, the
// stand-in Messages API, teammates as real `swarm teammate` processes in a private tmux server.
// Limits (--budget-tokens, --max-turns) end the run with exit 1 and say which; spawn refusals reach
// the lead as tool errors; the lead's tools; shutdown outcomes as SendMessage results; the nudge
// limit; bad flags refused before any team exists (in-process through main(argv, io), as are the
// status checks).
import { execa } from 'execa';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TmuxServer } from '../../../src/backends/tmux/commands.js';
import { MAX_NUDGES } from '../../../src/runtime/lead/lead.js';
import { startMessagesServer, type MessagesServer, type RecordedRequest, type ScriptInput } from '../../../src/standin/messages-server.js';
import { lastToolResultNames, lastUserText, shutdownRequestId } from '../../../src/standin/request.js';
import { shutdownApproval } from '../../../src/standin/script.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { toolResults } from '../../support/runtime-harness.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-run-');
const servers: MessagesServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(script: ScriptInput): Promise<MessagesServer> {
  const s = await startMessagesServer({ script });
  servers.push(s);
  return s;
}

/** `swarm run -p` in `root`/work against `server`; teammates (if any) in the private tmux server `socket`. */
async function run(args: string[], server: MessagesServer, socket?: string) {
  const work = path.join(root, 'work');
  await fs.mkdir(work, { recursive: true });
  const r = await execa(process.execPath, [SWARM_BIN, 'run', '-p', ...args], {
    env: {
      CLAUDE_CONFIG_DIR: root,
      NO_COLOR: '1',
      SWARM_TEAM: '',
      ...(socket ? tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']) : {}),
      ANTHROPIC_BASE_URL: server.url,
      ANTHROPIC_API_KEY: 'sk-test',
      SWARM_RETRY_BASE_MS: '10',
      SWARM_POLL_MS: '250',
      SWARM_HEARTBEAT_MS: '500',
    },
    cwd: work,
    reject: false,
    stdin: 'ignore',
  });
  return { exitCode: r.exitCode, stdout: String(r.stdout), stderr: String(r.stderr) };
}

const leadRequests = (s: MessagesServer): RecordedRequest[] => s.requests.filter((q) => q.agent === 'team-lead');
const toolNames = (q: RecordedRequest): string[] => (q.body?.tools ?? []).map((t) => t.name);
/** The lead's request whose last user message holds `text` (the result it was answering). */
function leadRequestWith(s: MessagesServer, text: string): RecordedRequest {
  const q = leadRequests(s).find((r) => lastUserText(r.body!).includes(text));
  if (q === undefined) throw new Error(`no lead request holds ${JSON.stringify(text)}; lead requests:\n${leadRequests(s).map((r) => lastUserText(r.body!)).join('\n---\n')}`);
  return q;
}

async function roster(team: string): Promise<string[]> {
  const status = await swarmInProcess(root, ['status', '--team', team, '--json']);
  return (JSON.parse(status.stdout) as { members: { name: string }[] }).members.map((m) => m.name);
}

async function panes(socket: string): Promise<string> {
  return (await new TmuxServer({ socket }).tryRun(['list-panes', '-a', '-F', '#{pane_id} #{session_name}'])).stdout.trim();
}

const GOAL = 'Check the build.';
const small = { input_tokens: 10, output_tokens: 10 };
const tool = (name: string, input: Record<string, unknown>) => ({ type: 'tool_use' as const, name, input });

describe('swarm run -p: limits and refusals', () => {
  it('over --budget-tokens: exit 1 naming the budget; a bad name and --max-teammates reach the lead as tool errors; --lead-tools read; the team is shut down', async () => {
    const socket = tmuxForThisTest();
    const server = await serve({
      shutdown: 'approve',
      turns: [
        { match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [tool('Agent', { name: 'bad name!', prompt: 'Say ready.' })], usage: small } },
        { match: { agent: 'team-lead', lastUser: 'invalid member name' }, reply: { content: [tool('Agent', { name: 'w1', prompt: 'Say ready.' })], usage: small } },
        { match: { agent: 'team-lead', lastUser: 'Spawned w1' }, reply: { content: [tool('Agent', { name: 'w2', prompt: 'Say ready.' })], usage: small } },
        // This step alone spends more than the budget: the next step is not taken.
        { match: { agent: 'team-lead', lastUser: '--max-teammates 1' }, reply: { content: [tool('TaskList', {})], usage: { input_tokens: 5000, output_tokens: 10 } } },
        { match: { agent: 'w1' }, reply: { content: [{ type: 'text', text: 'Ready.' }], usage: small } },
      ],
    });
    const r = await run([GOAL, '--team', 'lim', '--backend', 'tmux', '--max-teammates', '1', '--budget-tokens', '1000', '--lead-tools', 'read'], server, socket);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/stopped: over a limit: \d+ tokens used of --budget-tokens 1000/);
    expect(r.stdout).toBe('');
    expect(leadRequests(server)).toHaveLength(4);
    // The refusals, as the lead saw them in its next request.
    expect(toolResults(leadRequestWith(server, 'invalid member name'))).toEqual([{ content: expect.stringContaining('invalid member name "bad name!"') as string, is_error: true }]);
    expect(toolResults(leadRequestWith(server, '--max-teammates 1'))).toEqual([
      { content: expect.stringMatching(/the team already has 1 teammates \(--max-teammates 1\)/) as string, is_error: true },
    ]);
    // --lead-tools read adds Read, Glob and Grep; never Write, Edit or Bash.
    expect(toolNames(leadRequests(server)[0]!)).toEqual(['Agent', 'SendMessage', 'TaskStop', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'Read', 'Glob', 'Grep']);
    // w1 was still there at the end: shut down, verified, off the roster, its pane gone.
    expect(r.stderr, r.stderr).toMatch(/w1: approved the shutdown; process exited, pane closed, removed from the team/);
    expect(await roster('lim')).toEqual(['team-lead']);
    expect(await panes(socket)).toBe('');
    // The run made the team and spawned into it: the team stays, and the run says what it holds.
    expect(r.stderr).toMatch(/team lim keeps 0 tasks and the inboxes of w1: swarm team delete lim removes it/);
  }, 60_000);

  it('over --max-turns: exit 1 naming it, after exactly that many lead steps; the lead has no Write, Edit, Bash (nor Read without --lead-tools)', async () => {
    const server = await serve({
      turns: [
        { match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [tool('TaskList', {})] } },
        { match: { agent: 'team-lead', toolResult: 'TaskList' }, reply: { content: [tool('TaskList', {})] } },
      ],
      exhaustedReply: 'FINAL: should not be reached.',
    });
    const r = await run([GOAL, '--team', 'turns', '--max-turns', '2'], server);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(/stopped: over a limit: the lead took 2 model steps \(--max-turns 2\)/);
    expect(leadRequests(server)).toHaveLength(2);
    expect(toolNames(leadRequests(server)[0]!)).toEqual(['Agent', 'SendMessage', 'TaskStop', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    // A failed run that spawned nobody leaves no team behind (it made it), nor its key.
    expect(r.stderr).toMatch(/removed team turns: nobody was spawned into it/);
    expect(await fs.readdir(path.join(root, 'teams'))).toEqual([]);
    expect(await fs.readdir(path.join(root, 'swarm', 'keys')).catch(() => [])).toEqual([]);
  }, 30_000);

  it(`fails (exit 1) when the lead ends ${MAX_NUDGES + 1} turns in a row with a task open and nobody working`, async () => {
    const server = await serve({
      turns: [{ match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [tool('TaskCreate', { subject: 'Build it', description: 'run the build' })] } }],
      exhaustedReply: 'I will wait.',
    });
    const r = await run([GOAL, '--team', 'nudge'], server);
    expect(r.exitCode, r.stderr).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`failed: the lead stopped ${MAX_NUDGES} times with 1 task open and no teammate working`));
    expect(leadRequests(server).filter((q) => lastUserText(q.body!).startsWith('[swarm] The run is not finished: 1 task is still open'))).toHaveLength(MAX_NUDGES);
    expect(r.stdout).toBe('');
  }, 30_000);

  it('refuses bad flags in one line, exit non-zero, before any team exists', async () => {
    const cases: [string[], RegExp][] = [
      [['--max-teammates', '0'], /expected --max-teammates to be a positive whole number, got 0/],
      [['--budget-usd', '-1'], /expected --budget-usd to be a positive number, got -1/],
      [['--budget-usd', '1', '--lead-model', 'some-unknown-model'], /--budget-usd needs a list price.* has none for some-unknown-model: give --budget-tokens instead/],
    ];
    const results = await Promise.all(cases.map(([flags]) => swarmInProcess(root, ['run', '-p', GOAL, '--team', 'bad', ...flags], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-test' })));
    results.forEach((r, i) => {
      expect(r.exitCode, r.stderr).not.toBe(0);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(r.stderr).toMatch(cases[i]![1]);
    });
    expect(existsSync(path.join(root, 'teams', 'bad'))).toBe(false);
  }, 30_000);
});

describe('swarm run -p: stopping teammates', () => {
  const reject = (id: string) => ({
    content: [tool('SendMessage', { to: 'team-lead', message: { type: 'shutdown_response', request_id: id, approve: false, reason: 'still migrating the database' } })],
  });

  it('the lead hears each outcome of its shutdown_request: approved, rejected with the reason, and to "*"', async () => {
    const socket = tmuxForThisTest();
    const server = await serve({
      exhaustedReply: 'FINAL: all stopped.',
      turns: [
        { match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [tool('Agent', { name: 'w1', prompt: 'Say ready.' }), tool('Agent', { name: 'w2', prompt: 'Say ready.' })] } },
        { match: { agent: 'team-lead', lastUser: 'Spawned w2' }, reply: { content: [tool('SendMessage', { to: 'w2', message: { type: 'shutdown_request', reason: 'done' } })] } },
        { match: { agent: 'team-lead', lastUser: 'w2 approved the shutdown' }, reply: { content: [tool('SendMessage', { to: 'w1', message: { type: 'shutdown_request', reason: 'done' } })] } },
        { match: { agent: 'team-lead', lastUser: 'w1 rejected the shutdown' }, reply: { content: [tool('SendMessage', { to: '*', message: { type: 'shutdown_request', reason: 'the run is over' } })] } },
        { match: { agent: 'team-lead', lastUser: 'w1 approved the shutdown' }, reply: 'FINAL: all stopped.' },
        // w1 rejects the first request, approves the second; the shutdown turns come first so a
        // request that lands with the prompt is still answered. The request to "*" may land before
        // w1 asks the model again after its rejection, in the same message as that tool result: the
        // plain reply is only for a tool result alone, or that request would go unanswered.
        { match: { agent: 'w1', lastUser: 'shutdown_request' }, respond: (q) => ({ reply: reject(shutdownRequestId(q.body)!) }) },
        { match: (q) => q.agent === 'w1' && lastToolResultNames(q.body).includes('SendMessage') && !lastUserText(q.body).includes('shutdown_request'), reply: 'Still migrating.' },
        { match: { agent: 'w1', lastUser: 'shutdown_request' }, respond: (q) => ({ reply: shutdownApproval(shutdownRequestId(q.body)!) }) },
        { match: { agent: 'w1', lastUser: 'Say ready.' }, reply: 'Ready.' },
        { match: { agent: 'w2', lastUser: 'shutdown_request' }, respond: (q) => ({ reply: shutdownApproval(shutdownRequestId(q.body)!) }) },
        { match: { agent: 'w2', lastUser: 'Say ready.' }, reply: 'Ready.' },
      ],
    });
    const r = await run([GOAL, '--team', 'stop', '--backend', 'tmux'], server, socket);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('FINAL: all stopped.');
    expect(toolResults(leadRequestWith(server, 'w2 approved the shutdown'))).toEqual([{ content: 'w2 approved the shutdown and is gone (verified).' }]);
    expect(toolResults(leadRequestWith(server, 'w1 rejected the shutdown'))).toEqual([{ content: 'w1 rejected the shutdown: still migrating the database. It is still working.' }]);
    expect(toolResults(leadRequestWith(server, 'w1 approved the shutdown'))).toEqual([{ content: 'w1 approved the shutdown and is gone (verified).' }]);
    expect(await roster('stop')).toEqual(['team-lead']);
    expect(await panes(socket)).toBe('');
  }, 60_000);
});
