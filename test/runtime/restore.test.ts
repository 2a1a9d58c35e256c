// `swarm teammate --resume` (runtime/restore.ts, the agent loop's restored history), the process
// end to end against the stand-in Messages API: a conversation cut off after the model asked for
// tools gets those calls answered `not run` and goes on at once; a compacted conversation goes on
// from its summary, in the permission mode it last ran in (an approved plan is not asked for
// again); a transcript corrupt in the middle ends the process with one line, before any
// status file. Real processes, no tmux (the CLI resume tests cover panes). And the repair itself
// (restoreConversation, in-process): a last line cut short is cut off the file, the newline of the
// line before it kept, so the next append starts a whole line; a whole transcript is left as it is;
// a missing one is an empty conversation, an unreadable or corrupt one a SwarmError; the mode is that
// of the last whole mode line.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NOT_RUN_AFTER_CRASH, RESUMED_NOTE } from '../../src/runtime/agent-loop.js';
import { readConversation, SUMMARY_HEADER } from '../../src/runtime/conversation.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import { restoreConversation } from '../../src/runtime/restore.js';
import { messageKey } from '../../src/protocol/message.js';
import { tempRoot } from '../support/tmp-root.js';
import { readStatus, setupRuntime, waitFor, type RuntimeEnv } from '../support/runtime-harness.js';

/** Without the prompt-cache marks (the runtime puts them on the latest block only). */
const uncached = (v: unknown): unknown => JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x)));

const text = (t: string) => [{ type: 'text', text: t }];

async function writeTranscript(env: RuntimeEnv, entries: Record<string, unknown>[]): Promise<void> {
  await fs.mkdir(env.paths.logsDir, { recursive: true });
  await fs.writeFile(env.paths.log('w1'), entries.map((e) => `${JSON.stringify(e)}\n`).join(''));
}

describe('swarm teammate --resume', () => {
  it('answers the tool calls a crash cut off as not run and goes on at once; a compaction is restored as its summary; the last mode holds', async () => {
    const env = await setupRuntime({ turns: [{ match: { agent: 'w1', lastUser: 'stopped in the middle' }, reply: 'carrying on' }] });
    await writeTranscript(env, [
      { kind: 'start', pid: 1 },
      { kind: 'user', content: text('old prompt') },
      { kind: 'assistant', content: text('old answer') },
      { kind: 'user', content: text('next job') },
      { kind: 'assistant', content: [{ type: 'tool_use', id: 'toolu_kept', name: 'Read', input: { file_path: 'a' } }] },
      { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_kept', content: 'file a' }] },
      { kind: 'control', what: 'mode', mode: 'acceptEdits' }, // its plan was approved before the crash
      { kind: 'compaction', summary: 'THE SUMMARY', replaced: 3, promptTokens: 9000 },
      { kind: 'assistant', content: [{ type: 'tool_use', id: 'toolu_lost', name: 'Bash', input: { command: 'make' } }] },
    ]);
    const t = env.start(['--resume', '--plan-mode-required']);
    const [req] = await env.server.waitForRequests(1, 15_000);
    const messages = req!.body!.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(messages[0])).toContain(SUMMARY_HEADER);
    expect(JSON.stringify(messages[0])).toContain('THE SUMMARY');
    expect(JSON.stringify(messages)).not.toContain('old prompt');
    expect(JSON.stringify(messages[2])).toContain('file a');
    const last = messages[4]!.content as { type: string; tool_use_id?: string; content?: string; is_error?: boolean; text?: string }[];
    expect(last[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'toolu_lost', content: NOT_RUN_AFTER_CRASH, is_error: true });
    expect(last[1]).toMatchObject({ type: 'text', text: RESUMED_NOTE });
    expect(t.output()).toContain('resumed: 4 messages of the conversation restored');
    expect(t.output()).toContain('· acceptEdits mode ·'); // not plan mode again
    // The repair is in the transcript too: the next resume rebuilds what the model saw.
    await waitFor(async () => (await fs.readFile(env.paths.log('w1'), 'utf8')).includes('carrying on'), 10_000, 'the reply in the transcript');
    const rebuilt = await readConversation(env.paths.log('w1'));
    expect(uncached(rebuilt.messages)).toEqual(uncached([...messages, { role: 'assistant', content: text('carrying on') }]));
    await waitFor(async () => (await readStatus(env))?.state === 'idle', 10_000, 'idle after the resumed turn');
  });

  it('a message taken before the crash and carried by no turn is delivered first; one a turn carried is not given again', async () => {
    const env = await setupRuntime({ turns: [{ match: { agent: 'w1', lastUser: 'lost in the crash' }, reply: 'got it' }] });
    const seen = await env.plain.append('w1', { from: 'w2', text: 'already seen' });
    const lost = await env.plain.append('w1', { from: 'w2', text: 'lost in the crash' });
    await env.plain.consume('w1'); // the earlier run took both, and died before its turn carried the second
    await writeTranscript(env, [
      { kind: 'start', pid: 1 },
      { kind: 'inbox_taking', msgKeys: [messageKey(seen), messageKey(lost)] },
      { kind: 'user', content: text('<teammate-message teammate_id="w2">already seen</teammate-message>'), delivered: [messageKey(seen)] },
      { kind: 'assistant', content: text('noted') },
    ]);
    const t = env.start(['--resume']);
    const [req] = await env.server.waitForRequests(1, 15_000);
    const last = JSON.stringify(req!.body!.messages.at(-1));
    expect(last).toContain('lost in the crash');
    expect(last).not.toContain('already seen');
    expect(t.output()).toContain('delivering 1 message taken before the restart and never read');
    await waitFor(async () => (await fs.readFile(env.paths.log('w1'), 'utf8')).includes('got it'), 10_000, 'the reply in the transcript');
    expect((await restoreConversation(env.paths.log('w1'))).undelivered, 'carried by the resumed turn').toEqual([]);
  });

  it('a transcript corrupt in the middle: exit 1 with one line naming it, no status file, the transcript untouched', async () => {
    const env = await setupRuntime({ turns: [] });
    const bad = `${JSON.stringify({ kind: 'user', content: text('one') })}\n{"kind":"assi\n${JSON.stringify({ kind: 'user', content: text('three') })}\n`;
    await fs.mkdir(env.paths.logsDir, { recursive: true });
    await fs.writeFile(env.paths.log('w1'), bad);
    const t = env.start(['--resume']);
    expect((await t.exited).code).toBe(1);
    expect(t.output()).toContain(`cannot resume: ${env.paths.log('w1')} line 2: not JSON; the conversation is rebuilt up to the line before it; repair or move that line, then run swarm resume again`);
    expect(await readStatus(env)).toBeUndefined();
    expect(await fs.readFile(env.paths.log('w1'), 'utf8')).toBe(bad);
    expect(env.server.requests).toHaveLength(0);
  });

  it('the repair of a cut last line keeps the newline of the line before it (multi-byte text too), so the next line appended is whole', async () => {
    const file = path.join(await tempRoot('swarm-restore-'), 'w1.jsonl');
    const whole = [{ kind: 'user', content: text('café — naïve') }, { kind: 'assistant', content: text('ünïcödé answer') }].map((e) => `${JSON.stringify(e)}\n`).join('');
    const next = `${JSON.stringify({ kind: 'user', content: text('after the resume') })}\n`;
    // Cut in the middle of a write (no newline: storage/jsonl.ts's torn line).
    for (const cut of ['{"kind":"assistant","content":[{"type":"te', '{"kind":"assi']) {
      await fs.writeFile(file, whole + cut);
      const r = await restoreConversation(file);
      expect(r.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
      expect(await fs.readFile(file, 'utf8')).toBe(whole);
      expect(r.notes).toEqual([expect.stringContaining(`its ${cut.length} characters were cut off the transcript`)]);
      await fs.appendFile(file, next);
      const again = await readConversation(file);
      expect([again.corrupt, again.skipped, again.messages.length]).toEqual([undefined, undefined, 3]);
    }
    // A bad last line that did get its newline is a whole line, so corrupt: the resume is refused, the file untouched.
    await fs.writeFile(file, `${whole}{"kind":"assi\n`);
    await expect(restoreConversation(file)).rejects.toMatchObject({ kind: 'corrupt', message: expect.stringContaining(`${file} line 3: not JSON`) });
    expect(await fs.readFile(file, 'utf8')).toBe(`${whole}{"kind":"assi\n`);
  });

  it('a whole transcript is left as it is, with no note; a missing one is an empty conversation', async () => {
    const dir = await tempRoot('swarm-restore-');
    const file = path.join(dir, 'w1.jsonl');
    const whole = [{ kind: 'user', content: text('one') }, { kind: 'assistant', content: text('two') }].map((e) => `${JSON.stringify(e)}\n`).join('');
    await fs.writeFile(file, whole);
    const r = await restoreConversation(file);
    expect([r.messages.map((m) => m.role), r.notes, 'mode' in r]).toEqual([['user', 'assistant'], [], false]);
    expect(await fs.readFile(file, 'utf8')).toBe(whole);
    expect(await restoreConversation(path.join(dir, 'never.jsonl'))).toEqual({ messages: [], notes: [], undelivered: [] });
  });

  it('an unreadable transcript is an io error naming it, with its cause; a corrupt middle line a corrupt error, the file untouched', async () => {
    const dir = await tempRoot('swarm-restore-');
    const unreadable = path.join(dir, 'dir.jsonl');
    await fs.mkdir(unreadable);
    const e = await restoreConversation(unreadable).catch((x: unknown) => x);
    expect(isSwarmError(e, 'io')).toBe(true);
    expect((e as Error).message).toMatch(new RegExp(`^cannot resume: ${unreadable} is unreadable \\(EISDIR: .*\\)$`));
    expect(((e as Error).cause as NodeJS.ErrnoException).code).toBe('EISDIR');
    const file = path.join(dir, 'w1.jsonl');
    const bad = `${JSON.stringify({ kind: 'user', content: text('one') })}\n{"kind":"assi\n${JSON.stringify({ kind: 'user', content: text('three') })}\n`;
    await fs.writeFile(file, bad);
    const c = await restoreConversation(file).catch((x: unknown) => x);
    expect(isSwarmError(c, 'corrupt')).toBe(true);
    expect((c as Error).message).toBe(`cannot resume: ${file} line 2: not JSON; the conversation is rebuilt up to the line before it; repair or move that line, then run swarm resume again`);
    expect(await fs.readFile(file, 'utf8')).toBe(bad);
  });

  it('the mode is that of the last whole control/mode line: other lines that name a mode, a bad mode and a cut line change nothing', async () => {
    const file = path.join(await tempRoot('swarm-restore-'), 'w1.jsonl');
    const mode = (m: string) => ({ kind: 'control', what: 'mode', mode: m });
    const lines = [
      { kind: 'user', content: text('go') },
      mode('plan'),
      mode('acceptEdits'),
      { kind: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Fmt', input: { mode: 'plan' } }] }, // "mode" in a tool's input
      { kind: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done' }] },
      mode('yolo'), // not a permission mode
      { kind: 'control', what: 'model', mode: 'plan' }, // another control line
    ];
    await fs.writeFile(file, `${lines.map((e) => `${JSON.stringify(e)}\n`).join('')}{"kind":"control","what":"mode","mode":"bypassPer`);
    const r = await restoreConversation(file);
    expect(r.mode).toBe('acceptEdits');
    expect(r.notes).toHaveLength(1);
  });
});
