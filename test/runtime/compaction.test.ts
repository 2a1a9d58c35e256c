// Compaction end to end against the stand-in Messages API (SPEC §11): a small SWARM_COMPACT_AT, a
// conversation that goes on after it (the next request carries the summary and the recent turns,
// not the old ones; the transcript's rebuild equals what was sent), and a failed summary request
// that keeps the conversation whole and is retried before a later step. Real teammate processes.
import { promises as fs } from 'node:fs';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { describe, expect, it } from 'vitest';
import { SUMMARY_TAG } from '../../src/runtime/compaction.js';
import { readConversation, SUMMARY_HEADER } from '../../src/runtime/conversation.js';
import type { RecordedRequest } from '../../src/standin/request.js';
import { logLines, setupRuntime, waitFor, waitForControl, type RuntimeEnv } from '../support/runtime-harness.js';

const small = (input_tokens: number) => ({ input_tokens, output_tokens: 5 });
const read = (id: string, input_tokens: number) => ({
  content: [{ type: 'tool_use' as const, id, name: 'Read', input: { file_path: 'notes.txt' } }],
  usage: small(input_tokens),
});

/** What a request sent, as the runtime keeps it (the cache breakpoints are added per request). */
function sent(r: RecordedRequest | undefined): unknown {
  return JSON.parse(JSON.stringify(r!.body!.messages, (k, v: unknown) => (k === 'cache_control' ? undefined : v)));
}

const w1 = (e: RuntimeEnv) => e.server.requests.filter((r) => r.agent === 'w1');
const isSummary = (r: RecordedRequest) => JSON.stringify(r.body!.messages).includes(SUMMARY_TAG);

async function rebuilt(e: RuntimeEnv, count: number): Promise<MessageParam[]> {
  return waitFor(async () => {
    const got = await readConversation(e.paths.log('w1'));
    return got.messages.length === count && got.skipped === undefined && got.corrupt === undefined ? got.messages : undefined;
  }, 5000, `${count} messages in the transcript`);
}

describe('compaction', () => {
  it('replaces the older turns by a summary past SWARM_COMPACT_AT, and the conversation goes on from it', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Start the job' }, reply: read('toolu_a', 100) },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: read('toolu_b', 100) },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: read('toolu_c', 5000) },
        { match: { agent: 'w1', lastUser: SUMMARY_TAG }, reply: { content: [{ type: 'text', text: 'SUMMARY-ONE: read notes.txt once.' }], usage: small(900) } },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: { content: [{ type: 'text', text: 'All done.' }], usage: small(300) } },
        { match: { agent: 'w1', lastUser: 'Second job' }, reply: { content: [{ type: 'text', text: 'Second done.' }], usage: small(400) } },
      ],
    });
    await fs.writeFile(`${env.work}/notes.txt`, 'alpha\n');
    await env.lead.append('w1', { from: 'team-lead', text: 'Start the job' });
    const t = env.start([], { SWARM_COMPACT_AT: '1000' });
    await waitForControl(env, 'team-lead', 'idle_notification');

    const reqs = w1(env);
    expect(reqs.map(isSummary)).toEqual([false, false, false, true, false]);
    const summaryReq = reqs[3]!.body!;
    expect(summaryReq.tools).toBeUndefined();
    expect(JSON.stringify(summaryReq.messages)).toContain('Start the job'); // the old turns went to the summary
    const after = reqs[4]!.body!.messages;
    // The summary first, then the kept turns from an assistant message on: tool_use b and c with their results.
    expect(after.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(JSON.stringify(after[0])).toContain(`${SUMMARY_HEADER}\\n<conversation-summary>\\nSUMMARY-ONE`);
    expect(JSON.stringify(after)).not.toContain('Start the job');
    expect(JSON.stringify(after)).not.toContain('toolu_a');
    expect(after[1]!.content).toEqual([{ type: 'tool_use', id: 'toolu_b', name: 'Read', input: { file_path: 'notes.txt' } }]);
    expect(JSON.stringify(after[2])).toContain('"tool_use_id":"toolu_b"');
    expect(t.output()).toContain('compacted the conversation: 3 older messages replaced by a summary (the prompt was 5000 tokens)');
    expect((await logLines(env)).filter((l) => l.kind === 'compaction')).toEqual([expect.objectContaining({ summary: 'SUMMARY-ONE: read notes.txt once.', replaced: 3, promptTokens: 5000 })]);

    // The conversation goes on from the compacted state; the transcript rebuilds what was sent.
    await env.lead.append('w1', { from: 'team-lead', text: 'Second job' });
    await waitForControl(env, 'team-lead', 'idle_notification', 2);
    const last = w1(env).at(-1)!;
    expect(sent(last)).toEqual([...(sent(reqs[4]) as unknown[]), { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }, expect.objectContaining({ role: 'user' })]);
    expect(await rebuilt(env, 8)).toEqual([...(sent(last) as MessageParam[]), { role: 'assistant', content: [{ type: 'text', text: 'Second done.' }] }]);
  });

  it('a failed summary request keeps the conversation whole and is tried again before a later step', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Start the job' }, reply: read('toolu_a', 5000) },
        { match: { agent: 'w1', lastUser: SUMMARY_TAG }, error: { status: 400, message: 'summary refused' } },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: read('toolu_b', 5000) },
        { match: { agent: 'w1', lastUser: SUMMARY_TAG }, reply: { content: [{ type: 'text', text: 'SUMMARY-TWO' }], usage: small(900) } },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: { content: [{ type: 'text', text: 'All done.' }], usage: small(300) } },
      ],
    });
    await fs.writeFile(`${env.work}/notes.txt`, 'alpha\n');
    await env.lead.append('w1', { from: 'team-lead', text: 'Start the job' });
    const t = env.start([], { SWARM_COMPACT_AT: '1000' });
    await waitForControl(env, 'team-lead', 'idle_notification');

    const reqs = w1(env);
    expect(reqs.map((r) => `${isSummary(r) ? 'summary' : 'step'}:${r.status}`)).toEqual(['step:200', 'summary:400', 'step:200', 'summary:200', 'step:200']);
    // After the failure the step went out with the whole conversation.
    expect(JSON.stringify(reqs[2]!.body!.messages[0])).toContain('Start the job');
    expect(reqs[2]!.body!.messages).toHaveLength(3);
    expect(JSON.stringify(reqs[4]!.body!.messages[0])).toContain('SUMMARY-TWO');
    expect(JSON.stringify(reqs[4]!.body!.messages)).not.toContain('Start the job');
    expect(t.output()).toMatch(/compaction failed \(.*summary refused.*\); the conversation is kept whole, tried again at a later step/);
    const kinds = (await logLines(env)).map((l) => l.kind).filter((k) => k.startsWith('compaction'));
    expect(kinds).toEqual(['compaction_failed', 'compaction']);
    expect(await rebuilt(env, 6)).toEqual([...(sent(reqs[4]) as MessageParam[]), { role: 'assistant', content: [{ type: 'text', text: 'All done.' }] }]);
    expect(t.child.exitCode).toBeNull();
  });
});
