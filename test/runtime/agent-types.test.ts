// Agent types in the teammate runtime (SPEC §10), end to end against the stand-in Messages API: a
// project agent file limiting the tools (the request offers only those plus the team tools; a
// disallowed call is refused as is_error; the body is in the system prompt), and the built-in
// Explore's read-only Bash (a write is refused and nothing is written; a read-only command runs).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemText } from '../../src/standin/request.js';
import { updateMember } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { TEAM, setupRuntime, toolResults, waitForControl, type RuntimeEnv } from '../support/runtime-harness.js';

const REVIEWER = `---
name: reviewer
description: Reviews code; never edits
tools: Read, Grep
---
You are the reviewer. Cite file:line for every finding.
`;

async function agentFile(env: RuntimeEnv, name: string, text: string): Promise<void> {
  const dir = path.join(env.work, '.claude', 'agents');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, `${name}.md`), text);
}

/** The tool results w1 sent, request by request (requests without any left out). */
function resultsInOrder(env: RuntimeEnv): ReturnType<typeof toolResults>[] {
  return env.server.requests.filter((r) => r.agent === 'w1' && r.body !== undefined).map((r) => toolResults(r)).filter((x) => x.length > 0);
}

const exists = (file: string) => fs.access(file).then(() => true, () => false);

describe('agent types in the runtime', () => {
  it('a project type: only its tools and the team tools are offered, another call is refused, its body is in the system prompt', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Review' }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'notes.txt', content: 'x' } }] } },
        { match: { agent: 'w1', toolResult: 'Write' }, reply: { content: [{ type: 'tool_use', name: 'Grep', input: { pattern: 'hello' } }] } },
        { match: { agent: 'w1', toolResult: 'Grep' }, reply: 'Reviewed.' },
      ],
    });
    await agentFile(env, 'reviewer', REVIEWER);
    await fs.writeFile(path.join(env.work, 'a.txt'), 'hello\n');
    await env.lead.append('w1', { from: 'team-lead', text: 'Review the code' });
    env.start(['--agent-type', 'reviewer', '--permission-mode', 'bypassPermissions']);
    await waitForControl(env, 'team-lead', 'idle_notification');

    const first = env.server.requests.find((r) => r.agent === 'w1' && r.body !== undefined)!.body!;
    expect((first.tools ?? []).map((t) => t.name)).toEqual(['Read', 'Grep', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    expect(systemText(first)).toContain('You are the reviewer. Cite file:line for every finding.');
    expect(systemText(first)).toContain('working as reviewer');
    const [write, grep] = resultsInOrder(env);
    expect(write).toEqual([{ content: expect.stringMatching(/^Write is not allowed for the agent type reviewer; use one of: Read, Grep, SendMessage/), is_error: true }]);
    expect(await exists(path.join(env.work, 'notes.txt'))).toBe(false);
    expect(grep).toEqual([{ content: expect.stringContaining('a.txt') }]);
  });

  it('a worktree teammate gets its type from the main checkout (an uncommitted agent file is not in the worktree)', async () => {
    const env = await setupRuntime({ turns: [{ match: { agent: 'w2', lastUser: 'Review' }, reply: 'Reviewed.' }] });
    await agentFile(env, 'reviewer', REVIEWER); // <work>/.claude/agents/reviewer.md only
    const worktree = path.join(env.work, '.claude', 'worktrees', 't-w2');
    await fs.mkdir(worktree, { recursive: true });
    await updateMember(new Team(env.root, TEAM), 'w2', { cwd: worktree, worktreePath: worktree });
    await env.lead.append('w2', { from: 'team-lead', text: 'Review the code' });
    env.startAs('w2', ['--agent-type', 'reviewer', '--permission-mode', 'bypassPermissions']);
    await waitForControl(env, 'team-lead', 'idle_notification');
    const first = env.server.requests.find((r) => r.agent === 'w2' && r.body !== undefined)!.body!;
    expect((first.tools ?? []).map((t) => t.name)).toEqual(['Read', 'Grep', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
  });

  it("Explore's Bash refuses a write (nothing is written) and runs a read-only command", async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Explore' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo hi > out.txt' } }] } },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls | grep txt' } }] } },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: 'Explored.' },
      ],
    });
    await fs.writeFile(path.join(env.work, 'seen.txt'), '');
    await env.lead.append('w1', { from: 'team-lead', text: 'Explore the repo' });
    env.start(['--agent-type', 'Explore', '--permission-mode', 'bypassPermissions']);
    await waitForControl(env, 'team-lead', 'idle_notification');

    const first = env.server.requests.find((r) => r.agent === 'w1' && r.body !== undefined)!.body!;
    expect((first.tools ?? []).map((t) => t.name)).toEqual(['Read', 'Bash', 'Glob', 'Grep', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    const results = resultsInOrder(env);
    expect(results[0]).toEqual([{ content: expect.stringMatching(/^Refused: this agent type may only run read-only commands, and this one has the shell operator >/), is_error: true }]);
    expect(await exists(path.join(env.work, 'out.txt'))).toBe(false);
    expect(results[1]).toEqual([{ content: expect.stringContaining('seen.txt') }]);
  });
});
