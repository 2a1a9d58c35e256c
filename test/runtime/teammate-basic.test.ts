// The teammate process end to end against the stand-in Messages API: the initial prompt, SendMessage,
// retries on 429 and 529, idle notifications, status and transcript, mid-turn messages delivered
// after the tool round (in order, once), fatal errors, and refusing bad flags. Real processes.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readTeam } from '../../src/team/team-store.js';
import { lastUserText, systemText } from '../../src/standin/request.js';
import { swarm } from '../support/cli.js';
import {
  controls,
  logLines,
  readStatus,
  setupRuntime,
  toolResults,
  waitFor,
  waitForControl,
  type RuntimeEnv,
} from '../support/runtime-harness.js';
import { Team } from '../../src/team/team.js';


async function member(e: RuntimeEnv, name = 'w1') {
  return (await readTeam(new Team(e.root, 't'))).members.find((m) => m.name === name);
}

describe('swarm teammate', () => {
  it('answers its initial prompt with SendMessage, retries 429 and 529, reports idle, keeps status and transcript', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1' }, error: { status: 429, retryAfter: 0.05 } },
        {
          match: { agent: 'w1', lastUser: 'Say hi' },
          reply: {
            content: [
              { type: 'text', text: 'Sending a greeting.' },
              { type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: 'hi lead', summary: 'greeting' } },
            ],
          },
        },
        { match: { agent: 'w1', toolResult: 'SendMessage' }, reply: 'Said hi to the lead.' },
        { match: { agent: 'w1' }, error: { status: 529 } },
        { match: { agent: 'w1', lastUser: 'second task' }, reply: 'Second task done.' },
      ],
    });
    await env.lead.append('w1', { from: 'team-lead', text: 'Say hi to the lead' });
    const t = env.start();

    const idle1 = await waitForControl(env, 'team-lead', 'idle_notification');
    expect(idle1[0]!.message).toMatchObject({ from: 'w1', idleReason: 'available', summary: 'Said hi to the lead.' });
    const inbox = await env.plain.read('team-lead');
    expect(inbox.find((m) => m.text === 'hi lead')).toMatchObject({ from: 'w1', summary: 'greeting', color: 'blue' });
    // The prompt was taken (read), the member is marked inactive again with its pid.
    expect((await env.plain.read('w1')).every((m) => m.read)).toBe(true);
    await waitFor(async () => (await member(env))?.isActive === false, 5000, 'isActive false');
    expect((await member(env))?.pid).toBe(t.child.pid);
    await waitFor(async () => (await readStatus(env))?.state === 'idle', 5000, 'status idle');

    await env.lead.append('w1', { from: 'team-lead', text: 'Here is the second task' });
    const idle2 = await waitForControl(env, 'team-lead', 'idle_notification', 2);
    expect(idle2[1]!.message.summary).toBe('Second task done.');

    const outcomes = env.server.requests.map((r) => `${r.outcome}:${r.status}`);
    expect(outcomes).toEqual(['error:429', 'reply:200', 'reply:200', 'error:529', 'reply:200']);
    // Stable prefix cached: the system block carries cache_control; the agent header routes the script.
    const body = env.server.requests[1]!.body!;
    expect(body.system).toEqual([expect.objectContaining({ type: 'text', cache_control: { type: 'ephemeral' } })]);
    expect((body.tools ?? []).map((x) => x.name)).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'ExitPlanMode', 'Agent']);
    expect(systemText(body)).toContain('You are "w1", a member of the agent team "t"');
    expect(lastUserText(body)).toContain('<teammate-message teammate_id="team-lead"');

    const status = await readStatus(env);
    expect(status).toMatchObject({ name: 'w1', pid: t.child.pid, toolUses: 1 });
    expect(status!.outputTokens).toBeGreaterThan(0);
    expect(status!.inputTokens).toBeGreaterThan(0);
    expect(status!.activities.map((a) => a.text)).toContain('SendMessage to team-lead: hi lead');
    const kinds = (await logLines(env)).map((l) => l.kind);
    expect(kinds).toEqual(expect.arrayContaining(['start', 'message_in', 'retry', 'model_step', 'tool_call', 'tool_result', 'message_out']));
    expect((await logLines(env)).filter((l) => l.kind === 'retry').map((l) => l.status)).toEqual([429, 529]);

    t.child.kill('SIGTERM');
    expect(await t.exited).toEqual({ code: 0, signal: null });
    expect((await readStatus(env))?.state).toBe('exiting');
    expect(t.output()).toContain('⏺ SendMessage(to team-lead: hi lead)');
    expect(t.output()).toContain('rate limited (429)');
  });

  it('delivers messages sent mid-turn after the tool round, in order, once', async () => {
    let e!: RuntimeEnv;
    e = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'Read the notes' },
          respond: async () => {
            await e.plain.append('w1', { from: 'w2', text: 'first mid-turn message', color: 'green' });
            await e.plain.append('w1', { from: 'w2', text: 'second mid-turn message' });
            return { reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } }] } };
          },
        },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: 'Read them; got two messages too.' },
        { match: { agent: 'w1', lastUser: 'third message' }, reply: 'Third seen.' },
      ],
    });
    await fs.writeFile(`${e.work}/notes.txt`, 'alpha\nbeta\n');
    await e.lead.append('w1', { from: 'team-lead', text: 'Read the notes' });
    e.start();
    await waitForControl(e, 'team-lead', 'idle_notification');

    const second = e.server.requests[1]!;
    const last = second.body!.messages.at(-1)!;
    expect(last.role).toBe('user');
    const blocks = last.content as { type: string; text?: string }[];
    expect(blocks.map((b) => b.type)).toEqual(['tool_result', 'text', 'text']);
    expect(blocks[1]!.text).toContain('<teammate-message teammate_id="w2" color="green">\nfirst mid-turn message');
    expect(blocks[2]!.text).toContain('second mid-turn message');
    expect(toolResults(second)[0]!.content).toBe('     1\talpha\n     2\tbeta');
    // The first request had not seen them (they arrived during it).
    expect(JSON.stringify(e.server.requests[0]!.body!.messages)).not.toContain('mid-turn');

    await e.plain.append('w1', { from: 'w2', text: 'a third message' });
    await waitForControl(e, 'team-lead', 'idle_notification', 2);
    const third = e.server.requests[2]!;
    expect(lastUserText(third.body!)).toContain('a third message');
    expect(lastUserText(third.body!)).not.toContain('mid-turn');
    expect(JSON.stringify(third.body!.messages).split('first mid-turn message').length - 1).toBe(1);
    expect(e.server.requests).toHaveLength(3);
  });

  it('a single Ctrl-C only says how to stop it; a second within 3 s stops it cleanly', async () => {
    const env = await setupRuntime({ turns: [] });
    const t = env.start();
    await waitFor(async () => (await readStatus(env)) !== undefined, 10_000, 'w1 running');
    t.child.kill('SIGINT');
    await waitFor(() => t.output().includes('^C again within 3 s stops w1 now; to stop it cleanly: swarm shutdown w1'), 5000, 'the hint');
    await new Promise((r) => setTimeout(r, 300));
    expect(t.child.exitCode).toBeNull(); // still running
    t.child.kill('SIGINT');
    expect(await t.exited).toEqual({ code: 0, signal: null });
  });

  it('reports a fatal API error to team-lead as a failed idle notification and exits 1', async () => {
    const env = await setupRuntime({ turns: [{ match: { agent: 'w1' }, error: { status: 401, message: 'bad key' } }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'work' });
    const t = env.start();
    expect((await t.exited).code).toBe(1);
    const [failed] = await controls(env, 'team-lead', 'idle_notification');
    expect(failed!.message).toMatchObject({ from: 'w1', idleReason: 'failed' });
    expect(failed!.message.failureReason).toMatch(/401.*bad key/);
    expect((await readStatus(env))?.state).toBe('exiting');
    expect((await member(env))?.isActive).toBe(false);
    expect(env.server.requests).toHaveLength(1); // not retried
  });

  it('refuses to start on inconsistent flags, with a one-line error and nothing touched', async () => {
    const env = await setupRuntime({ turns: [] });
    const base = env.args();
    const withFlag = (flag: string, value: string): string[] => {
      const args = [...base];
      args[args.indexOf(flag) + 1] = value;
      return args;
    };
    const cases: [string[], number, RegExp][] = [
      [withFlag('--agent-id', 'w2@t'), 2, /--agent-id: expected w1@t/],
      [withFlag('--lead-verify-key', 'not-a-key'), 2, /--lead-verify-key/],
      [withFlag('--parent-session-id', 'someone-else'), 2, /--parent-session-id/],
      [['teammate', '--agent-id', 'w9@t', '--agent-name', 'w9', '--team-name', 't', '--lead-verify-key', env.key.verifyKey], 1, /no member "w9"/],
      [[...base, '--permission-mode', 'yolo'], 2, /--permission-mode: expected default\|acceptEdits\|bypassPermissions\|plan, got "yolo"/],
    ];
    const results = await Promise.all(cases.map(([args]) => swarm(env.root, args)));
    for (const [i, [, code, message]] of cases.entries()) {
      const r = results[i]!;
      expect(r.exitCode, r.stderr).toBe(code);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(await readStatus(env)).toBeUndefined();
    expect((await member(env))?.isActive).toBeUndefined();
  });
});
