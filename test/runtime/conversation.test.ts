// The transcript as the record of the conversation (SPEC §11): conversation lines written by the
// runtime's Transcript rebuild the exact message list, compactions applied; a last line cut short
// by a SIGKILL mid-write is skipped; a corrupt line before the last stops the rebuild and says
// where. Which messages a compaction replaces (compaction.ts). Real files, a real child process.
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { contextWindow, defaultCompactAt, DEFAULT_WINDOW } from '../../src/protocol/context-window.js';
import { KEEP_RECENT, renderConversation, splitPoint, summaryRequest, SUMMARY_TAG } from '../../src/runtime/compaction.js';
import { compacted, conversationFromText, readConversation, SUMMARY_HEADER } from '../../src/runtime/conversation.js';
import { Transcript } from '../../src/runtime/transcript.js';
import { tempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

const WRITER = path.resolve(import.meta.dirname, '../support/transcript-writer.mjs');

const u = (text: string): MessageParam => ({ role: 'user', content: [{ type: 'text', text }] });
const a = (text: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text }] });
const call = (id: string): MessageParam => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: 'a' } }] });
const result = (id: string, content = 'ok'): MessageParam => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] });

async function write(entries: Record<string, unknown>[]): Promise<string> {
  const file = path.join(await tempRoot(), 'logs', 'w1.jsonl');
  const t = new Transcript(file);
  for (const e of entries) t.append(e as { kind: string });
  await t.flush();
  return file;
}

const asEntry = (m: MessageParam): Record<string, unknown> => ({ kind: m.role, content: m.content });

describe('transcript → conversation', () => {
  it('rebuilds the exact messages, in full, with the people-only lines skipped and compactions applied', async () => {
    const big = 'line of output\n'.repeat(10_000);
    const thinking: MessageParam = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'redacted_thinking', data: 'xyz' },
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { file_path: 'big.txt' } },
      ],
    };
    const failed: MessageParam = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: big, is_error: true }, { type: 'text', text: 'a message' }] };
    const first = [u('do it'), thinking, failed, a('done')];
    const file = await write([
      { kind: 'start', pid: 1 },
      ...first.slice(0, 2).map(asEntry),
      { kind: 'tool_result', id: 'toolu_1', preview: 'line of' },
      ...first.slice(2).map(asEntry),
      { kind: 'exit', code: 0 },
    ]);
    expect(await readConversation(file)).toEqual({ messages: first });

    await fs.appendFile(file, [JSON.stringify({ kind: 'user', content: [{ type: 'text', text: 'next' }] }), JSON.stringify({ kind: 'compaction', summary: 'S', replaced: 3 }), JSON.stringify(asEntry(a('after')))].join('\n') + '\n');
    const after = await readConversation(file);
    expect(after).toEqual({ messages: [...compacted([...first, u('next')], 'S', 3), a('after')] });
    expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(after.messages[0])).toContain(SUMMARY_HEADER);
  });

  it('skips the half line a SIGKILL mid-write leaves, keeping every whole line', async () => {
    const file = path.join(await tempRoot(), 'logs', 'w1.jsonl');
    const child = spawn(process.execPath, [WRITER, file], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await waitFor(() => out.includes('half'), 10_000, 'the writer to write half a line');
    child.kill('SIGKILL');
    await exited;
    const raw = await fs.readFile(file, 'utf8');
    expect(raw.endsWith('\n')).toBe(false);
    const got = await readConversation(file);
    expect(got.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(got.messages[2])).toContain('x'.repeat(50_000));
    expect(got.skipped).toMatch(/line 5: not a whole line \(a write cut short; skipped\)/);
    expect(got.corrupt).toBeUndefined();
  });

  it('stops before a corrupt line that has lines after it, and says where', async () => {
    const file = await write([asEntry(u('one')), asEntry(a('two'))]);
    await fs.appendFile(file, '{"kind":"user","content":[{"type":"tex\n' + JSON.stringify(asEntry(u('three'))) + '\n');
    expect(await readConversation(file)).toEqual({ messages: [u('one'), a('two')], corrupt: `${file} line 3: not JSON; the conversation is rebuilt up to the line before it` });

    const bad = conversationFromText([JSON.stringify(asEntry(u('one'))), JSON.stringify({ kind: 'assistant', content: [{ type: 'image', data: 'x' }] }), JSON.stringify(asEntry(u('x')))].join('\n'));
    expect(bad.messages).toEqual([u('one')]);
    expect(bad.corrupt).toMatch(/^transcript line 2: a bad assistant entry/);

    const over = conversationFromText([JSON.stringify(asEntry(u('one'))), JSON.stringify({ kind: 'compaction', summary: 'S', replaced: 2 }), ''].join('\n'));
    expect(over.corrupt).toMatch(/line 2: a compaction replaces 2 messages but only 1 came before it/);
  });

  it('reads a missing transcript as an empty conversation', async () => {
    expect(await readConversation(path.join(await tempRoot(), 'none.jsonl'))).toEqual({ messages: [] });
  });
});

describe('compaction', () => {
  it('keeps the recent messages from an assistant message on, never parting a tool_use from its result', () => {
    const long = [u('go'), call('t1'), result('t1'), call('t2'), result('t2'), call('t3'), result('t3'), a('done'), u('more')];
    const at = splitPoint(long)!;
    expect(long[at]!.role).toBe('assistant');
    expect(long.length - at).toBeGreaterThanOrEqual(KEEP_RECENT);
    expect(at).toBe(5);
    expect(splitPoint([u('go'), call('t1'), result('t1')])).toBe(1); // at least the latest exchange is kept
    expect(splitPoint([u('go')])).toBeUndefined();
    expect(splitPoint([u('go'), u('again')])).toBeUndefined();
  });

  it('asks for the summary in one user message without tools', () => {
    const req = summaryRequest([u('go'), call('t1'), result('t1', 'file body')]);
    expect(req.tools).toEqual([]);
    expect(req.messages).toHaveLength(1);
    const text = JSON.stringify(req.messages[0]);
    expect(text).toContain(SUMMARY_TAG);
    expect(renderConversation([call('t1'), result('t1', 'file body')])).toBe('### assistant\n[tool call Read t1] {"file_path":"a"}\n\n### user\n[tool result t1]\nfile body');
  });

  it('compacts at 80 % of a known context window, 200k assumed for an unknown model', () => {
    expect(contextWindow('claude-sonnet-4-5-20250929')).toBe(200_000);
    expect(contextWindow('claude-sonnet-4-5[1m]')).toBe(1_000_000);
    expect(contextWindow('some-local-model')).toBe(DEFAULT_WINDOW);
    expect(defaultCompactAt('claude-opus-4-5')).toBe(160_000);
  });
});
