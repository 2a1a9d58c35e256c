// Interop with the real Claude Code (SPEC §8): a `--runtime claude` teammate — Claude Code 2.1.112,
// the devDependency, run with node — spawned by swarm on a private tmux socket, offline against the
// stand-in Messages API, with Claude Code's state file seeded so no first-run dialog shows
// (onboarding done, the API key approved, the work dir trusted). The scripted model makes it list,
// claim (TaskUpdate owner + in_progress) and create tasks; swarm's TaskList then reads what Claude
// Code wrote in tasks/<team>/, and Claude Code read what swarm wrote.
import { beforeEach, describe, expect, it } from 'vitest';
import { lastToolResultNames, lastUserText, type IncomingRequest } from '../../src/standin/request.js';
import type { MessagesServer } from '../../src/standin/messages-server.js';
import { TaskList } from '../../src/tasks/index.js';
import { spawnTeammate } from '../../src/teammates/spawn.js';
import { CLAUDE_CODE_BUILDS } from '../support/claude-code.js';
import { useClaudeCodeTeam } from '../support/claude-code-team.js';
import { waitFor } from '../support/wait.js';

const TEAM = 'cc';
const PROMPT = 'Work through the team task list.';

/** Claude Code's main conversation (its side requests, e.g. a title from Haiku, carry no tools). */
const main = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'TaskList');
const after = (tool: string) => (r: IncomingRequest): boolean => main(r) && lastToolResultNames(r.body).includes(tool);

describe('a real Claude Code teammate on the team task list', () => {
  const cc = useClaudeCodeTeam(TEAM, CLAUDE_CODE_BUILDS[0], 'swarm-cct-'); // 2.1.112, the devDependency
  let standin: MessagesServer;

  beforeEach(async () => {
    standin = await cc.serve({
      script: {
        turns: [
          { match: (r) => main(r) && lastUserText(r.body).includes(PROMPT), reply: { content: [{ type: 'tool_use', name: 'TaskList', input: {} }] } },
          { match: after('TaskList'), reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '2', owner: 'c1', status: 'in_progress' } }] } },
          { match: after('TaskUpdate'), reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Follow-up from c1', description: 'Made by Claude Code' } }] } },
          { match: after('TaskCreate'), reply: 'Claimed #2 and added a follow-up.' },
          // Anything else (side requests, later turns): a short answer, as often as asked.
          ...Array.from({ length: 40 }, () => ({ match: () => true, reply: 'ok' })),
        ],
      },
    });
  });

  it('lists, claims and creates tasks in the files swarm reads (CLAUDE_CODE_TASK_LIST_ID=<team>)', async () => {
    const { team, backend, work } = cc;
    const tasks = new TaskList(team);
    await tasks.create({ subject: 'Another task', description: 'also open' }, 'team-lead');
    await tasks.create({ subject: 'Free work', description: 'for c1' }, 'team-lead');
    const env = cc.env(standin);
    const spawned = await spawnTeammate({ team, name: 'c1', prompt: PROMPT, runtime: 'claude', cwd: work, backend, env, readyTimeoutMs: 60_000 });

    // On a timeout, say what Claude Code showed and what it asked the model (CI cannot be watched).
    const created = await waitFor(async () => (await tasks.list()).tasks.find((t) => t.subject === 'Follow-up from c1'), 60_000, 'the task Claude Code creates').catch(
      async (e: Error) => {
        const screen = (await backend.capture({ paneId: spawned.paneId, backendType: spawned.backendType }, 40).catch(() => ({ lines: ['(no capture)'] }))).lines.join('\n');
        const asked = standin.requests.map((r) => (r.body === undefined ? '(unparsed)' : `${(r.body.tools ?? []).length} tools [${lastToolResultNames(r.body).join(',')}] ${lastUserText(r.body).slice(0, 160)}`));
        throw new Error(`${e.message}\n--- the pane:\n${screen}\n--- requests to the stand-in:\n${asked.join('\n')}`);
      },
    );
    expect(created).toMatchObject({ id: '3', description: 'Made by Claude Code', status: 'pending', blocks: [], blockedBy: [] });
    expect(await tasks.get('2')).toMatchObject({ owner: 'c1', status: 'in_progress', subject: 'Free work' });
    expect((await tasks.get('1')).owner).toBeUndefined();
    const { tasks: all, corrupt } = await tasks.list();
    expect(corrupt).toEqual([]);
    expect(all.map((t) => t.id)).toEqual(['1', '2', '3']);

    // What Claude Code's tools answered its model: our files, read by Claude Code.
    const toolResults = (): string[] =>
      standin.requests.flatMap((r) => {
        const last = r.body?.messages.at(-1);
        if (!last || typeof last.content === 'string') return [];
        return last.content.filter((b) => b.type === 'tool_result').map((b) => JSON.stringify((b as { content?: unknown }).content));
      });
    const results = await waitFor(() => (toolResults().some((c) => c.includes('Task #3 created')) ? toolResults() : undefined), 30_000, 'the TaskCreate result');
    expect(results.some((c) => c.includes('#1 [pending] Another task') && c.includes('#2 [pending] Free work'))).toBe(true);
    expect(results).toContain(JSON.stringify('Updated task #2 owner, status'));
    expect(results).toContain(JSON.stringify('Task #3 created successfully: Follow-up from c1'));

    // The list goes on with swarm: ids are never reused.
    expect((await tasks.create({ subject: 'After', description: 'x' }, 'team-lead')).id).toBe('4');
  }, 120_000);
});
