// A swarm-runtime teammate's subagents (docs/subagents.md), run in this process against the
// stand-in Messages API: a named spawn is refused; a subagent's request holds only its prompt,
// with its type's system prompt and tools, and its text and usage come back as the tool result
// while its tokens count in the teammate's status; a subagent's own Agent call is refused; a fork's
// request starts with the teammate's, byte for byte.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../src/standin/request.js';
import { systemText } from '../../src/standin/request.js';
import { readConversation } from '../../src/runtime/conversation.js';
import { FORK_NOTE, FORK_PLACEHOLDER, NO_NESTED_SUBAGENTS } from '../../src/runtime/subagent.js';
import { NAMED_SPAWN_REFUSAL } from '../../src/runtime/tools/agent.js';
import { setTeamBudget } from '../../src/team/spend.js';
import { readTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { readStatus, runInProcess, setupRuntime, toolResults, waitFor, waitForControl, type RuntimeEnv } from '../support/runtime-harness.js';

const SUB = 'You are a subagent of "w1"';

function body(r: RecordedRequest | undefined) {
  if (r?.body === undefined) throw new Error('no such recorded request');
  return r.body;
}

const subRequests = (env: RuntimeEnv): RecordedRequest[] => env.server.requests.filter((r) => r.body !== undefined && systemText(r.body).startsWith(SUB));
const toolNames = (r: RecordedRequest): string[] => (body(r).tools ?? []).map((t) => t.name);

/** The value with every cache_control removed (where the breakpoint sits is not part of the prefix). */
function withoutBreakpoints(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v, (k, x: unknown) => (k === 'cache_control' ? undefined : x)));
}

describe('a teammate\'s Agent tool', () => {
  it('refuses a named spawn with the flat-roster line (before any field check), an unknown type and a typed fork, and nothing else happens', async () => {
    const env = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'Get a helper' },
          reply: {
            content: [
              { type: 'tool_use', name: 'Agent', input: { prompt: 'Help me', name: 'helper' } },
              { type: 'tool_use', name: 'Agent', input: { description: 'd', prompt: 'Help me', subagent_type: 'Nope' } },
              { type: 'tool_use', name: 'Agent', input: { description: 'd', prompt: 'Help me', fork: true, subagent_type: 'Explore' } },
            ],
          },
        },
        { match: { agent: 'w1', toolResult: 'Agent' }, reply: 'Doing it myself.' },
      ],
    });
    await env.lead.append('w1', { from: 'team-lead', text: 'Get a helper' });
    const t = runInProcess(env);
    await waitForControl(env, 'team-lead', 'idle_notification');
    const [refused, unknownType, forkWithType, ...more] = toolResults(env.server.requests[1]);
    expect(more).toEqual([]);
    expect(refused).toEqual({ content: NAMED_SPAWN_REFUSAL, is_error: true });
    // A bad call is one line back to the model, and nothing runs either.
    expect(unknownType).toMatchObject({ is_error: true, content: expect.stringMatching(/^unknown agent type "Nope"; known: general-purpose, Explore, Plan, verification/) });
    expect(forkWithType).toEqual({ content: 'fork: true runs with your own model, system prompt and tools; leave out subagent_type and model', is_error: true });
    expect(NAMED_SPAWN_REFUSAL).toBe('Teammates cannot spawn other teammates — the team roster is flat.');
    expect(env.server.requests).toHaveLength(2);
    expect(subRequests(env)).toEqual([]);
    expect((await readTeam(new Team(env.root, 't'))).members.map((m) => m.name)).toEqual(['team-lead', 'w1', 'w2']);
    expect(await t.stop()).toBe(0);
  });

  it('runs a subagent on its prompt alone, with its type\'s prompt and tools; its text and usage are the result, its tokens the teammate\'s', async () => {
    let e!: RuntimeEnv;
    let statusAfterSubagent: Awaited<ReturnType<typeof readStatus>>;
    e = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'Explore the notes' },
          reply: {
            content: [{ type: 'tool_use', name: 'Agent', input: { description: 'find notes', prompt: 'Find the notes file and quote it', subagent_type: 'Explore' } }],
            usage: { input_tokens: 100, output_tokens: 10 },
          },
        },
        {
          match: { agent: 'w1', system: SUB, lastUser: 'Find the notes file' },
          reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } }], usage: { input_tokens: 200, output_tokens: 20 } },
        },
        { match: { agent: 'w1', system: SUB, toolResult: 'Read' }, reply: { content: [{ type: 'text', text: 'The notes say alpha.' }], usage: { input_tokens: 300, output_tokens: 30 } } },
        {
          match: { agent: 'w1', toolResult: 'Agent' },
          respond: async () => {
            // Between the subagent's end and the teammate's next step: the subagent's tokens are in, the context is still the teammate's.
            statusAfterSubagent = await waitFor(async () => {
              const s = await readStatus(e);
              return s?.totalTokens === 110 + 220 + 330 ? s : undefined;
            }, 5000, 'the subagent\'s tokens in the status file');
            return { reply: { content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 400, output_tokens: 40 } } };
          },
        },
      ],
    });
    await fs.writeFile(`${e.work}/notes.txt`, 'alpha\n');
    await e.lead.append('w1', { from: 'team-lead', text: 'Explore the notes' });
    const t = runInProcess(e);
    await waitForControl(e, 'team-lead', 'idle_notification');

    const [first, second, ...more] = subRequests(e);
    expect(more).toEqual([]);
    // Only its prompt: no teammate conversation, no inbox envelope.
    expect(body(first).messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Find the notes file and quote it', cache_control: { type: 'ephemeral' } }] }]);
    // Its type's system prompt and tools (Explore: read-only), not the teammate's.
    const system = systemText(body(first));
    expect(system).toContain('working as Explore');
    expect(system).toContain('You explore the codebase to answer questions.');
    expect(system).not.toContain('You are "w1"');
    expect(toolNames(first!)).toEqual(['Read', 'Bash', 'Glob', 'Grep']);
    expect(toolResults(second)[0]!.content).toBe('     1\talpha');

    // Its final text and usage are the tool result.
    const parentNext = e.server.requests.at(-1);
    expect(systemText(body(parentNext))).toContain('You are "w1"');
    const [result] = toolResults(parentNext);
    expect(result!.is_error).toBeUndefined();
    expect(result!.content).toMatch(/^The notes say alpha\.\n\n<usage>tokens: 550, tool_uses: 1, duration_ms: \d+<\/usage>$/);

    // Its tokens count in the teammate's status (and so the budget); the context figure stays the teammate's.
    expect(statusAfterSubagent).toMatchObject({ totalTokens: 660, inputTokens: 100, outputTokens: 60 });
    await waitFor(async () => (await readStatus(e))?.totalTokens === 1100, 5000, 'status after the last step');
    expect(await readStatus(e)).toMatchObject({ totalTokens: 1100, inputTokens: 400, outputTokens: 100, toolUses: 2 });

    // The teammate's conversation (what a resume rebuilds) holds none of the subagent's messages.
    expect(await t.stop()).toBe(0);
    const rebuilt = await readConversation(e.paths.log('w1'));
    expect(rebuilt.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(JSON.stringify(rebuilt.messages)).not.toContain('     1\\talpha');
  });

  it('holds a subagent at the team\'s budget like the teammate: its tokens count, and its next step waits', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Look around' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { description: 'look', prompt: 'List the files' } }], usage: { input_tokens: 100, output_tokens: 10 } } },
        { match: { agent: 'w1', system: SUB, lastUser: 'List the files' }, reply: { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }], usage: { input_tokens: 200, output_tokens: 20 } } },
        { match: { agent: 'w1', system: SUB, toolResult: 'Glob' }, reply: 'Nothing much.' },
        { match: { agent: 'w1', toolResult: 'Agent' }, reply: 'Done.' },
      ],
    });
    await setTeamBudget(new Team(env.root, 't'), { tokens: 200 });
    await env.lead.append('w1', { from: 'team-lead', text: 'Look around' });
    const t = runInProcess(env);
    // 110 tokens (the teammate) are under the budget; with the subagent's 220 it is reached, so the subagent's second step waits.
    await waitFor(async () => (await readStatus(env))?.state === 'waiting_budget', 10_000, 'w1 waiting at the budget');
    expect(subRequests(env)).toHaveLength(1);
    expect((await readStatus(env))?.totalTokens).toBe(330);
    expect((await env.plain.read('team-lead')).map((m) => m.text).join('\n')).toContain("w1 is waiting: the team's budget is reached");
    expect(await t.stop()).toBe(0);
    expect(subRequests(env)).toHaveLength(1);
  });

  it('refuses a subagent\'s own Agent call: a subagent cannot start another', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Delegate' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { description: 'nest', prompt: 'Try to nest' } }] } },
        { match: { agent: 'w1', system: SUB, lastUser: 'Try to nest' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { description: 'inner', prompt: 'Inner work' } }] } },
        { match: { agent: 'w1', system: SUB, toolResult: 'Agent' }, reply: 'Could not nest.' },
        { match: { agent: 'w1', toolResult: 'Agent' }, reply: 'Done.' },
      ],
    });
    await env.lead.append('w1', { from: 'team-lead', text: 'Delegate' });
    const t = runInProcess(env);
    await waitForControl(env, 'team-lead', 'idle_notification');
    const [first, second, ...more] = subRequests(env);
    expect(more).toEqual([]);
    expect(toolNames(first!)).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']); // general-purpose, without Agent and the team tools
    expect(systemText(body(first))).toContain('working as general-purpose');
    expect(toolResults(second)).toEqual([{ content: NO_NESTED_SUBAGENTS, is_error: true }]);
    expect(toolResults(env.server.requests.at(-1))[0]!.content).toMatch(/^Could not nest\.\n\n<usage>tokens: \d+, tool_uses: 1, duration_ms: \d+<\/usage>$/);
    expect(env.server.requests).toHaveLength(4);
    expect(await t.stop()).toBe(0);
  });

  it('forks: the child\'s request is the parent\'s system prompt, tools and messages, then a placeholder per open call and the instruction', async () => {
    const env = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'Fork a summary' },
          reply: {
            content: [
              { type: 'text', text: 'Reading and forking.' },
              { type: 'tool_use', name: 'Read', input: { file_path: 'notes.txt' } },
              { type: 'tool_use', name: 'Agent', input: { description: 'summarise', prompt: 'Summarise the notes in one line', fork: true } },
            ],
          },
        },
        { match: { agent: 'w1', lastUser: 'Summarise the notes in one line' }, reply: 'Alpha and beta.' },
        { match: { agent: 'w1', toolResult: 'Agent' }, reply: 'Done.' },
      ],
    });
    await fs.writeFile(`${env.work}/notes.txt`, 'alpha\nbeta\n');
    await env.lead.append('w1', { from: 'team-lead', text: 'Fork a summary' });
    const t = runInProcess(env);
    await waitForControl(env, 'team-lead', 'idle_notification');
    expect(env.server.requests).toHaveLength(3);
    const [parent, child, parentNext] = env.server.requests.map(body);
    const n = parent!.messages.length;

    expect(child!.system).toEqual(parent!.system);
    expect(child!.tools).toEqual(parent!.tools);
    expect(child!.messages.slice(0, n)).toEqual(withoutBreakpoints(parent!.messages));
    // The parent's assistant message too: the child's first n+1 messages are the parent's next request's.
    expect(child!.messages.slice(0, n + 1)).toEqual(parentNext!.messages.slice(0, n + 1));
    const calls = (child!.messages[n]!.content as { type: string; id?: string; name?: string }[]).filter((b) => b.type === 'tool_use');
    expect(calls.map((c) => c.name)).toEqual(['Read', 'Agent']);
    expect(child!.messages.slice(n + 1)).toEqual([
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: calls[0]!.id, content: FORK_PLACEHOLDER },
          { type: 'tool_result', tool_use_id: calls[1]!.id, content: FORK_PLACEHOLDER },
          { type: 'text', text: `${FORK_NOTE}\n\nSummarise the notes in one line`, cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
    expect(FORK_PLACEHOLDER).toBe('forked: this result belongs to the parent');
    const results = toolResults(env.server.requests[2]);
    expect(results[0]!.content).toBe('     1\talpha\n     2\tbeta');
    expect(results[1]!.content).toMatch(/^Alpha and beta\.\n\n<usage>tokens: \d+, tool_uses: 0, duration_ms: \d+<\/usage>$/);
    expect(await t.stop()).toBe(0);
  });
});
