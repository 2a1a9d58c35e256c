// `swarm run -p` end to end (SPEC §9): the real CLI process runs the agent lead against the
// stand-in Messages API; teammates are real `swarm teammate` processes in a private tmux server. A
// console opened on the team meanwhile watches (the run holds the leader lease): both see the reports.
// The person's --permission-mode is a ceiling: neither the lead's Agent {mode} nor an agent file's
// permissionMode lifts it, so the verifier's Bash is asked (issue 30, items 1 and 2).
// The team's budget binds a teammate while the lead waits: the run ends with exit 1, the teammate
// stopped and verified gone, no model step taken past the budget.
import { execa } from 'execa';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startMessagesServer, type MessagesServer, type ScriptInput } from '../../../src/standin/messages-server.js';
import { lastUserText } from '../../../src/standin/request.js';
import { TmuxServer, capturePane } from '../../../src/backends/tmux/commands.js';
import { quote } from 'shell-quote';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { toolResults } from '../../support/runtime-harness.js';
import { readAudit } from '../../../src/permissions/audit.js';
import { readTeam, teamPaths } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { waitFor } from '../../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-run-');
let server: MessagesServer | undefined;
let socket = '';

beforeEach(() => {
  socket = tmuxForThisTest();
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serve(script: ScriptInput): Promise<string> {
  server = await startMessagesServer({ script });
  return server.url;
}

function env(url: string): Record<string, string> {
  return {
    ...tmuxEnv(socket, [process.execPath, SWARM_BIN, 'teammate']),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    SWARM_RETRY_BASE_MS: '10',
    SWARM_POLL_MS: '250',
    SWARM_HEARTBEAT_MS: '500',
  };
}

/** `swarm run -p`, its stderr collected line by line as it comes. */
function run(args: string[], e: Record<string, string>, cwd: string) {
  const child = execa(process.execPath, [SWARM_BIN, 'run', '-p', ...args], {
    env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ...e },
    cwd,
    reject: false,
    stdin: 'ignore',
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  /** The run's end; after `ms` it is stopped, and the error says what it printed and what the model was asked last. */
  const finished = async (ms = 45_000) => {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const asked = (server?.requests ?? []).slice(-4).map((q) => `${q.agent}: ${q.body === undefined ? '' : lastUserText(q.body).slice(0, 200)}`);
        child.kill('SIGTERM'); // it stops its teammates; the test's tmux server is reaped after it
        reject(new Error(`swarm run -p still running after ${ms} ms; stderr:\n${err}\nlast model requests:\n${asked.join('\n')}`));
      }, ms);
    });
    try {
      return await Promise.race([child, late]);
    } finally {
      clearTimeout(timer);
    }
  };
  return { child, stderr: () => err, finished };
}

const GOAL = 'Write out.txt saying checked.';

describe('swarm run -p', () => {
  it('plans a task, spawns a teammate whose Bash is approved from another shell, hears its result, completes, shuts it down and prints the answer', async () => {
    const work = path.join(root, 'work');
    await fs.mkdir(work);
    const url = await serve({
      shutdown: 'approve',
      turns: [
        { match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [{ type: 'tool_use', name: 'TaskCreate', input: { subject: 'Write out.txt', description: 'echo checked > out.txt' } }] } },
        { match: { agent: 'team-lead', toolResult: 'TaskCreate' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { name: 'worker', prompt: 'Write out.txt saying checked, then tell team-lead.' } }] } },
        { match: { agent: 'team-lead', toolResult: 'Agent' }, reply: 'Waiting for worker.' },
        { match: { agent: 'team-lead', lastUser: 'out.txt written' }, reply: { content: [{ type: 'tool_use', name: 'TaskUpdate', input: { taskId: '1', status: 'completed' } }] } },
        { match: { agent: 'team-lead', toolResult: 'TaskUpdate' }, reply: { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'worker', message: { type: 'shutdown_request', reason: 'done' } } }] } },
        { match: { agent: 'team-lead', toolResult: 'SendMessage' }, reply: 'FINAL: out.txt says checked.' },
        { match: { agent: 'worker' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo checked > out.txt', description: 'write the check file' } }] } },
        { match: { agent: 'worker', toolResult: 'Bash' }, reply: { content: [{ type: 'tool_use', name: 'SendMessage', input: { to: 'team-lead', message: 'out.txt written', summary: 'check done' } }] } },
        { match: { agent: 'worker', toolResult: 'SendMessage' }, reply: 'Finished the check.' },
      ],
    });
    const r = run([GOAL, '--team', 'goal', '--backend', 'tmux'], env(url), work);
    // The question for the person, with the command that answers it from any shell.
    const line = await waitFor(() => /waiting for approval: worker Bash .*→ (swarm approve \S+ --team goal)/.exec(r.stderr())?.[1], 30_000, 'the approval line').catch((e: Error) => {
      throw new Error(`${e.message}; stderr:\n${r.stderr()}`);
    });
    // A console opened meanwhile only watches: the run holds the leader lease, so its lead still hears everything.
    const tmux = new TmuxServer({ socket });
    const consoleCmd = quote([process.execPath, SWARM_BIN, 'lead', '--team', 'goal']);
    const pane = (await tmux.run(['new-session', '-d', '-s', 'watch', '-x', '160', '-y', '50', '-P', '-F', '#{pane_id}', '-e', `CLAUDE_CONFIG_DIR=${root}`, '-e', 'NO_COLOR=1', consoleCmd])).trim();
    const watched = (): Promise<string> => capturePane(tmux, pane, 300);
    await waitFor(async () => /watching: pid \d+ \(a headless run\) takes delivery/.test(await watched()), 15_000, 'the watching console');
    const approve = await swarmInProcess(root, line.split(' ').slice(1));
    expect(approve.exitCode, approve.stderr).toBe(0);
    const done = await r.finished();
    expect(done.exitCode, r.stderr()).toBe(0);
    expect(String(done.stdout).trim()).toBe('FINAL: out.txt says checked.');
    expect(await fs.readFile(path.join(work, 'out.txt'), 'utf8')).toBe('checked\n');
    // The teammate's message reached the lead wrapped, with its colour and summary.
    const heard = server!.requests.filter((q) => q.agent === 'team-lead').map((q) => lastUserText(q.body!));
    expect(heard.some((t) => /<teammate-message teammate_id="worker" color="\w+" summary="check done">\nout\.txt written\n<\/teammate-message>/.test(t))).toBe(true);
    expect(await watched()).toContain('out.txt written'); // and the watching console showed it
    await tmux.run(['kill-session', '-t', 'watch']);
    // The lead was offered its own tools only.
    const tools = (server!.requests.find((q) => q.agent === 'team-lead')!.body!.tools ?? []).map((t) => t.name);
    expect(tools).toEqual(['Agent', 'SendMessage', 'TaskStop', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    // Its instructions: the four phases and the agent types it can spawn.
    const system = JSON.stringify(server!.requests.find((q) => q.agent === 'team-lead')!.body!.system);
    expect(system).toContain('4. Verification');
    expect(system).toMatch(/- verification: /);
    // Progress on stderr; nothing left running: no pane, no teammate on the roster.
    expect(r.stderr()).toMatch(/task #1 created: Write out.txt/);
    expect(r.stderr()).toMatch(/worker approved shutdown/);
    const status = await swarmInProcess(root, ['status', '--team', 'goal', '--json']);
    const members = (JSON.parse(status.stdout) as { members: { name: string }[] }).members.map((m) => m.name);
    expect(members).toEqual(['team-lead']);
    const panes = await new TmuxServer({ socket }).tryRun(['list-panes', '-a', '-F', '#{pane_id} #{session_name} #{pane_current_command} #{pane_title}']);
    expect(panes.stdout.trim()).toBe('');
    expect(existsSync(path.join(root, 'teams', 'goal', 'config.json'))).toBe(true); // the team's files stay
  }, 60_000);

  it('--budget-usd binds a teammate while the lead waits: held at the budget, it wakes the lead, the run exits 1 and the teammate is stopped and verified gone', async () => {
    const work = path.join(root, 'work');
    await fs.mkdir(work);
    const leadRequests = () => server!.requests.filter((q) => q.agent === 'team-lead');
    const workerRequests = () => server!.requests.filter((q) => q.agent === 'worker');
    const url = await serve({
      turns: [
        { match: { agent: 'team-lead', lastUser: GOAL }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { name: 'worker', prompt: 'List the files, then write out.txt.' } }] } },
        { match: { agent: 'team-lead', toolResult: 'Agent' }, reply: 'Waiting for worker.' },
        {
          match: { agent: 'worker' },
          // Answered once the lead has had its answer and waits: the step then costs $1.20 of --budget-usd 1.
          respond: async () => {
            await waitFor(() => leadRequests().length === 2, 20_000, "the lead's second step (recorded once answered)");
            return { reply: { content: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }], usage: { input_tokens: 400_000, output_tokens: 0 } } };
          },
        },
        { match: { agent: 'worker', toolResult: 'Glob' }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'out.txt', content: 'over budget' } }] } },
        { match: { agent: 'team-lead' }, reply: 'a step past the budget' },
      ],
    });
    const e = { ...env(url), SWARM_COMPACT_AT: '100000000' };
    const r = run([GOAL, '--team', 'budget', '--backend', 'tmux', '--budget-usd', '1', '--lead-model', 'claude-sonnet-4-5', '--model', 'claude-sonnet-4-5'], e, work);
    const done = await r.finished();
    expect(done.exitCode, r.stderr()).toBe(1);
    expect(r.stderr()).toMatch(/worker › waiting at the budget: \[swarm\] worker is waiting: the team's budget is reached \(\$1\.2\d spent of --budget-usd 1\)/);
    expect(r.stderr()).toMatch(/worker: approved the shutdown; process exited, pane closed, removed from the team/);
    expect(r.stderr()).toMatch(/stopped: over a limit: \$1\.2\d spent of --budget-usd 1\n/);
    expect(String(done.stdout)).toBe('');
    // No model step past the budget: the worker's one step, the lead's two (woken, it checked and stopped before a third).
    expect(workerRequests()).toHaveLength(1);
    expect(leadRequests()).toHaveLength(2);
    expect(existsSync(path.join(work, 'out.txt'))).toBe(false);
    // Nothing left running: only team-lead on the roster, no pane.
    const status = await swarmInProcess(root, ['status', '--team', 'budget', '--json']);
    expect((JSON.parse(status.stdout) as { members: { name: string }[] }).members.map((m) => m.name)).toEqual(['team-lead']);
    const panes = await new TmuxServer({ socket }).tryRun(['list-panes', '-a', '-F', '#{pane_id}']);
    expect(panes.stdout.trim()).toBe('');
  }, 60_000);
});

describe("swarm run -p: the person's mode is a ceiling (issue 30)", () => {
  it('--permission-mode default: the lead cannot spawn in bypassPermissions, an agent file cannot either, and the verifier it spawns asks before Bash', async () => {
    const work = path.join(root, 'work');
    // As a teammate in acceptEdits could once write unasked: a verifier type that wants every command to run.
    await fs.mkdir(path.join(work, '.claude', 'agents'), { recursive: true });
    const agentFile = path.join(work, '.claude', 'agents', 'verification.md');
    await fs.writeFile(agentFile, '---\nname: verification\ndescription: checks\ntools: Bash\npermissionMode: bypassPermissions\n---\nRun whatever you need.\n');
    const url = await serve({
      shutdown: 'approve',
      turns: [
        { match: { agent: 'team-lead', lastUser: 'Verify the build.' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { name: 'v', prompt: 'Run the check.', subagent_type: 'verification', mode: 'bypassPermissions' } }] } },
        { match: { agent: 'team-lead', lastUser: 'a model cannot raise it' }, reply: { content: [{ type: 'tool_use', name: 'Agent', input: { name: 'v', prompt: 'Run the check.', subagent_type: 'verification' } }] } },
        // v may be done before its spawn returns on a loaded machine: its verdict then comes with the
        // Agent result, in one request, which this turn (first in order) answers.
        { match: { agent: 'team-lead', lastUser: 'VERDICT: FAIL' }, reply: 'FINAL: v could not run the check.' },
        { match: { agent: 'team-lead', lastUser: 'Spawned v' }, reply: 'Waiting for v.' },
        { match: { agent: 'v', lastUser: 'Run the check.' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo ran > ran.txt', description: 'run the check' } }] } },
        { match: { agent: 'v', toolResult: 'Bash' }, reply: 'VERDICT: FAIL' },
      ],
    });
    const r = run(['Verify the build.', '--team', 'esc', '--backend', 'tmux', '--permission-mode', 'default'], env(url), work);
    const id = await waitFor(() => /waiting for approval: v Bash .*→ swarm approve (\S+) --team esc/.exec(r.stderr())?.[1], 30_000, 'the question about v\'s Bash').catch((e: Error) => {
      throw new Error(`${e.message}; stderr:\n${r.stderr()}`);
    });
    const member = (await readTeam(new Team(root, 'esc'))).members.find((m) => m.name === 'v');
    expect(member?.mode).toBe('default');
    const deny = await swarmInProcess(root, ['deny', id, '--team', 'esc', '--feedback', 'not now']);
    expect(deny.exitCode, deny.stderr).toBe(0);
    const done = await r.finished();
    expect(done.exitCode, r.stderr()).toBe(0);
    expect(String(done.stdout).trim(), r.stderr()).toBe('FINAL: v could not run the check.');
    expect(existsSync(path.join(work, 'ran.txt'))).toBe(false);

    const leadResults = server!.requests.filter((q) => q.agent === 'team-lead').map((q) => toolResults(q));
    expect(leadResults[1]).toEqual([
      {
        content:
          'mode bypassPermissions is above default, the permission mode the person chose for this run, and a model cannot raise it; spawn with mode default or a more restrictive one (plan, default), ' +
          'or ask the person, who can raise it with --permission-mode bypassPermissions (swarm run / swarm lead --agent) or permissionMode in the team file',
        is_error: true,
      },
    ]);
    const lowered = `agent type verification (${agentFile}) asks for permissionMode bypassPermissions; v runs in default instead: an agent file never raises the mode above the person's (the person gives it with --permission-mode bypassPermissions, or permissionMode in a team file)`;
    expect(leadResults[2]?.[0]?.content).toContain(`\nNote: ${lowered}.`);
    expect(r.stderr()).toContain(`note: ${lowered}`);
    // The person was asked, and said no: in the audit log, not run by a mode nobody chose.
    const events = (await readAudit(teamPaths(root, 'esc'))).filter((e) => e.id === id).map((e) => [e.event, e.status, e.by]);
    expect(events.filter(([event]) => event !== 'acted')).toEqual([['request', undefined, undefined], ['decision', 'rejected', 'team-lead']]);
  }, 60_000);
});
