// Claude Code's hooks for a swarm-runtime teammate (docs/hooks.md), end to end: real settings files,
// real sh scripts as hooks, an in-process teammate driven by the stand-in Messages API. A
// TaskCompleted hook that blocks once and then lets the task pass; the JSON on its stdin; a hook
// over its time limit killed (its whole group) and reported while the teammate goes on; a
// malformed settings file reported, not fatal; a TaskCreated hook that blocks removes the task; a
// TeammateIdle hook that blocks gives the teammate its feedback to go on with. Loading: Claude
// Code's file order, each command once, disableAllHooks, hook types swarm does not run.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHooks } from '../../src/runtime/hooks.js';
import { isProcessAlive } from '../../src/storage/pid.js';
import { TaskList } from '../../src/tasks/index.js';
import { hookSettingsFiles } from '../../src/team/paths.js';
import { Team } from '../../src/team/team.js';
import { controls, logLines, requestsWith, setupRuntime, runInProcess, toolResults, waitFor, waitForControl, type RuntimeEnv } from '../support/runtime-harness.js';
import { useTempRoot } from '../support/tmp-root.js';

const list = (e: RuntimeEnv): TaskList => new TaskList(new Team(e.root, 't'));

/** Writes a Claude Code settings file whose `hooks.<event>` runs `command`. */
async function settings(file: string, hooks: Record<string, { command: string; timeout?: number }[]>): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const entries = Object.fromEntries(Object.entries(hooks).map(([event, cmds]) => [event, [{ matcher: '', hooks: cmds.map((c) => ({ type: 'command', ...c })) }]]));
  await fs.writeFile(file, JSON.stringify({ hooks: entries }));
}

/**
 * A hook script in `dir`: counts its runs, keeps its stdin (stdin-N.json), the task file #1 as it
 * was (task-at-N.json) and two env values (env-N); exits 2 with `message` on stderr on the runs in
 * `blockOn`, else 0.
 */
async function hookScript(dir: string, message: string, blockOn: number[]): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'hook.sh');
  await fs.writeFile(
    file,
    [
      `d='${dir}'`,
      'n=$(cat "$d/count" 2>/dev/null || echo 0); n=$((n+1)); echo "$n" > "$d/count"',
      'cat > "$d/stdin-$n.json"',
      'cp "$CLAUDE_CONFIG_DIR/tasks/t/1.json" "$d/task-at-$n.json" 2>/dev/null',
      'printf "%s|%s" "${ANTHROPIC_API_KEY-unset}" "$CLAUDE_PROJECT_DIR" > "$d/env-$n"',
      `case " ${blockOn.join(' ')} " in *" $n "*) echo '${message}' >&2; exit 2;; esac`,
      'exit 0',
    ].join('\n'),
  );
  return `sh '${file}'`;
}

const readJson = async (file: string): Promise<Record<string, unknown>> => JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;

/** The tool_results w1 got back for `tool`, in order. */
function resultsOf(e: RuntimeEnv, tool: string): { content: string; is_error?: boolean }[] {
  return e.server.requests
    .filter((r) => r.agent === 'w1' && r.body !== undefined && JSON.stringify(r.body.messages.at(-2)?.content ?? '').includes(`"name":"${tool}"`))
    .flatMap((r) => toolResults(r));
}

describe('hooks for swarm-runtime teammates', () => {
  it('a TaskCompleted hook that blocks once: the feedback is the result and the task stays in_progress; the second TaskUpdate completes it', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Finish task 1' }, reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }] } },
        { match: { agent: 'w1', toolResult: 'TaskUpdate' }, reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }] } },
        { match: { agent: 'w1', toolResult: 'TaskUpdate' }, reply: 'Task 1 is done.' },
      ],
    });
    const tasks = list(env);
    await tasks.create({ subject: 'Write the parser', description: 'Parse the CLI args.' }, 'team-lead');
    await tasks.claim('1', 'w1');
    const dir = path.join(env.root, 'hook');
    const command = await hookScript(dir, 'run the tests first', [1]);
    await settings(path.join(env.work, '.claude', 'settings.json'), { TaskCompleted: [{ command }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'Finish task 1' });
    const t = runInProcess(env);

    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    expect(idle[0]!.message).toMatchObject({ summary: 'Task 1 is done.', completedTaskId: '1', completedStatus: 'completed' });
    const [first, second] = resultsOf(env, 'TaskUpdate');
    expect(first).toEqual({ content: `TaskCompleted hook feedback:\n[${command}]: run the tests first`, is_error: true });
    expect(second!.content).toMatch(/^Updated task #1 status\n\nTask completed\./);
    // When the hook ran the second time, the block had left the task as it was.
    expect(await readJson(path.join(dir, 'task-at-2.json'))).toMatchObject({ status: 'in_progress', owner: 'w1' });
    expect(await tasks.get('1')).toMatchObject({ status: 'completed', owner: 'w1' });
    expect(await fs.readFile(path.join(dir, 'count'), 'utf8')).toBe('2\n'); // the task was completed at idle: no third run
    expect(await readJson(path.join(dir, 'stdin-1.json'))).toEqual({
      session_id: 'w1@t',
      transcript_path: env.paths.log('w1'),
      cwd: await fs.realpath(env.work),
      permission_mode: 'default',
      hook_event_name: 'TaskCompleted',
      task_id: '1',
      task_subject: 'Write the parser',
      task_description: 'Parse the CLI args.',
      teammate_name: 'w1',
      team_name: 't',
    });
    // The model's key is not in the hook's environment; CLAUDE_PROJECT_DIR is the cwd.
    expect(await fs.readFile(path.join(dir, 'env-1'), 'utf8')).toBe(`unset|${await fs.realpath(env.work)}`);
    expect(t.output()).toContain('TaskCompleted hook blocked: run the tests first');
    const hookLines = (await logLines(env)).filter((l) => l.kind === 'hook');
    expect(hookLines.map((l) => [l.event, l.outcome])).toEqual([
      ['TaskCompleted', 'block'],
      ['TaskCompleted', 'ok'],
    ]);
  });

  it("ending a turn with a task still in_progress runs TaskCompleted for it, as Claude Code does for a teammate: a block is feedback to go on with, the task stays open", async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Start task 1' }, reply: 'Stopping here for now.' },
        { match: { agent: 'w1', lastUser: 'TaskCompleted hook feedback' }, reply: 'Noted; the tests still fail.' },
      ],
    });
    const tasks = list(env);
    await tasks.create({ subject: 'Fix the bug', description: 'and its test' }, 'team-lead');
    await tasks.claim('1', 'w1');
    const dir = path.join(env.root, 'hook');
    const command = await hookScript(dir, 'the tests fail', [1]);
    await settings(path.join(env.work, '.claude', 'settings.json'), { TaskCompleted: [{ command }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'Start task 1' });
    runInProcess(env);

    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    expect(idle[0]!.message.summary).toBe('Noted; the tests still fail.');
    expect(idle[0]!.message).not.toHaveProperty('completedTaskId');
    expect(requestsWith(env.server, `TaskCompleted hook feedback:\n[${command}]: the tests fail`)).toHaveLength(1);
    expect(await readJson(path.join(dir, 'stdin-2.json'))).toMatchObject({ hook_event_name: 'TaskCompleted', task_id: '1' });
    expect(await tasks.get('1')).toMatchObject({ status: 'in_progress', owner: 'w1' });
  });

  it('a hook past its time limit is killed with its process group and reported; a malformed settings file is reported; the teammate goes on', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Plan the work' }, reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Step one', description: 'the first step' } }] } },
        { match: { agent: 'w1', toolResult: 'TaskCreate' }, reply: 'Planned.' },
      ],
    });
    const pidFile = path.join(env.root, 'sleeper.pid');
    await settings(hookSettingsFiles(env.root, env.work)[0]!.file, { TaskCreated: [{ command: `sleep 30 & echo $! > '${pidFile}'; wait`, timeout: 1 }] });
    const local = hookSettingsFiles(env.root, env.work)[2]!.file;
    await fs.mkdir(path.dirname(local), { recursive: true });
    await fs.writeFile(local, '{ "hooks": ');
    await env.lead.append('w1', { from: 'team-lead', text: 'Plan the work' });
    const t = runInProcess(env);

    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    expect(idle[0]!.message.summary).toBe('Planned.');
    expect(resultsOf(env, 'TaskCreate')).toEqual([{ content: 'Task #1 created successfully: Step one' }]);
    expect(await list(env).get('1')).toMatchObject({ subject: 'Step one' }); // kept (and claimed by w1 once idle)
    const sleeper = Number(await fs.readFile(pidFile, 'utf8'));
    // Killed with the group (it may linger as a zombie for a moment: zombies count as dead).
    await waitFor(() => !isProcessAlive(sleeper), 3000, 'the hook\'s background sleep killed with its group');
    expect(t.output()).toMatch(/TaskCreated hook "sleep 30 .*" failed \(timed out after 1s and was killed\); going on/);
    expect(t.output()).toContain(`${local}: not valid JSON`);
    // The same malformed file is reported once, not at every event (TeammateIdle fired since).
    expect(t.output().split(`${local}: not valid JSON`).length).toBe(2);
    const lines = await logLines(env);
    expect(lines.filter((l) => l.kind === 'hook')).toEqual([expect.objectContaining({ event: 'TaskCreated', outcome: 'error', error: 'timed out after 1s and was killed' })]);
    expect(lines.filter((l) => l.kind === 'hook_problem').map((l) => l.problem)).toEqual([expect.stringContaining(`${local}: not valid JSON`)]);
  });

  it('TaskCreated hooks that block remove the new task again; their feedback is the error', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Plan the work' }, reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Vague', description: '' } }] } },
        { match: { agent: 'w1', toolResult: 'TaskCreate' }, reply: 'Will describe it better.' },
      ],
    });
    await settings(path.join(env.work, '.claude', 'settings.json'), { TaskCreated: [{ command: 'echo "name an owner" >&2; exit 2' }] });
    await settings(path.join(env.work, '.claude', 'settings.local.json'), { TaskCreated: [{ command: 'echo "a task needs a description" >&2; exit 2' }, { command: 'exit 0' }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'Plan the work' });
    runInProcess(env);

    await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    // Both blocking hooks speak, in the files' order, each worded as Claude Code words it.
    expect(resultsOf(env, 'TaskCreate')).toEqual([
      {
        content:
          'TaskCreated hook feedback:\n[echo "name an owner" >&2; exit 2]: name an owner\n' +
          'TaskCreated hook feedback:\n[echo "a task needs a description" >&2; exit 2]: a task needs a description',
        is_error: true,
      },
    ]);
    expect((await list(env).list()).tasks).toEqual([]);
  });

  it('a TeammateIdle hook that blocks: the teammate goes on with the feedback as its next message, then goes idle', async () => {
    const env = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'Say ready' }, reply: 'Ready.' },
        { match: { agent: 'w1', lastUser: 'TeammateIdle hook feedback' }, reply: 'Ready, and the notes are written.' },
      ],
    });
    const dir = path.join(env.root, 'idle-hook');
    const command = await hookScript(dir, 'write your notes first', [1]);
    await settings(path.join(env.root, 'settings.json'), { TeammateIdle: [{ command }] });
    await env.lead.append('w1', { from: 'team-lead', text: 'Say ready' });
    runInProcess(env);

    const idle = await waitForControl(env, 'team-lead', 'idle_notification', 1, 20_000);
    expect(idle[0]!.message.summary).toBe('Ready, and the notes are written.');
    const [fed] = requestsWith(env.server, 'TeammateIdle hook feedback');
    expect(JSON.stringify(fed!.body!.messages.at(-1)!.content)).toContain(JSON.stringify(`TeammateIdle hook feedback:\n[${command}]: write your notes first`).slice(1, -1));
    expect(await readJson(path.join(dir, 'stdin-1.json'))).toMatchObject({ hook_event_name: 'TeammateIdle', teammate_name: 'w1', team_name: 't', session_id: 'w1@t' });
    expect(await fs.readFile(path.join(dir, 'count'), 'utf8')).toBe('2\n'); // it let the second stop pass
    expect(await controls(env, 'team-lead', 'idle_notification')).toHaveLength(1);
  });
});

describe('loadHooks', () => {
  let root: string;
  useTempRoot((dir) => (root = dir), 'swarm-hooks-');

  it("reads the user, project and local files in Claude Code's order, each command once; other hook types are reported; disableAllHooks turns them off", async () => {
    const cwd = path.join(root, 'work');
    const [user, project, local] = hookSettingsFiles(root, cwd).map((f) => f.file);
    await settings(user!, { TaskCompleted: [{ command: 'a' }, { command: 'b', timeout: 5 }], TeammateIdle: [{ command: 'idle' }] });
    await settings(project!, { TaskCompleted: [{ command: 'b' }, { command: 'c' }] });
    await fs.writeFile(local!, JSON.stringify({ hooks: { TaskCompleted: [{ hooks: [{ type: 'prompt', prompt: 'is it done?' }, { type: 'command', command: 'd' }] }] } }));
    const files = [user!, project!, local!];
    const loaded = await loadHooks(files, 'TaskCompleted');
    expect(loaded.hooks.map((h) => [h.command, h.timeoutS, h.file])).toEqual([
      ['a', 600, user],
      ['b', 5, user],
      ['c', 600, project],
      ['d', 600, local],
    ]);
    expect(loaded.problems).toEqual([`${local}: hooks.TaskCompleted.0.hooks.0: a "prompt" hook is not run by swarm's runtime (command hooks only)`]);
    expect((await loadHooks(files, 'TaskCreated')).hooks).toEqual([]);

    await fs.writeFile(local!, JSON.stringify({ disableAllHooks: true }));
    expect(await loadHooks(files, 'TaskCompleted')).toEqual({ hooks: [], problems: [] });
  });

  it('a malformed entry skips that file\'s hooks for the event, named by where it is; the other files still count', async () => {
    const cwd = path.join(root, 'work');
    const [user, project] = hookSettingsFiles(root, cwd).map((f) => f.file);
    await settings(user!, { TaskCompleted: [{ command: 'good' }] });
    await fs.mkdir(path.dirname(project!), { recursive: true });
    await fs.writeFile(project!, JSON.stringify({ hooks: { TaskCompleted: [{ hooks: [{ type: 'command', command: 'x' }, { type: 'command' }] }] } }));
    const loaded = await loadHooks([user!, project!], 'TaskCompleted');
    expect(loaded.hooks.map((h) => h.command)).toEqual(['good']);
    expect(loaded.problems).toEqual([expect.stringMatching(new RegExp(`^${project!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: hooks\\.TaskCompleted\\.0\\.hooks\\.1\\.command: .+; its TaskCompleted hooks are skipped until it is fixed$`))]);
    await fs.writeFile(project!, JSON.stringify({ hooks: { TaskCompleted: { hooks: [] } } }));
    expect((await loadHooks([user!, project!], 'TaskCompleted')).problems).toEqual([expect.stringContaining(`${project!}: hooks.TaskCompleted`)]);
  });
});
