// Team memory across teams (docs/memory.md), in-process against the stand-in Messages API on a real
// root and a real git repository: a teammate of team alpha saves a memory in two steps (the topic
// file, then its line in MEMORY.md) with Write and Edit in default mode, asked nothing; alpha is
// deleted; team beta, created afterwards on the same repository, has that memory in its lead's
// system prompt (swarm's agent lead and the Claude Code lead's appended method) and in its teammate's.
// The teammates run through runTeammate, as the in-process host runs them, from the argv the recipe
// builds.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeLeadPrompt } from '../../src/cli/run/claude-lead.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { flagsFromArgv } from '../../src/runtime/args.js';
import { runLead } from '../../src/runtime/lead/lead.js';
import { LeadQueue } from '../../src/runtime/lead/queue.js';
import { buildSystemPrompt } from '../../src/runtime/system-prompt.js';
import { runTeammate } from '../../src/runtime/teammate.js';
import { systemText } from '../../src/standin/request.js';
import { startMessagesServer, type MessagesServer } from '../../src/standin/messages-server.js';
import { cutIndex } from '../../src/team/memory.js';
import { memoryDir } from '../../src/team/paths.js';
import { addMember, createTeam, readTeam } from '../../src/team/team-store.js';
import type { Team } from '../../src/team/team.js';
import { buildTeammateCommand } from '../../src/teammates/command-line.js';
import { swarmInProcess } from '../support/cli.js';
import { makeRepo } from '../support/git-repo.js';
import { afterThisTest, useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-memteams-');

const TOPIC = 'Run `npm run build` before the tests: they import dist/.\n';
const INDEX_LINE = '- [Build before tests](build.md) — the tests import dist/';

function runtimeEnv(server: MessagesServer): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: root, CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test', SWARM_RETRY_BASE_MS: '10', SWARM_POLL_MS: '100', SWARM_HEARTBEAT_MS: '500' };
}

/** Member `name` of `team` started as a swarm teammate in this process, until `stop` is aborted (`run`: its exit code). */
async function startMember(team: Team, name: string, server: MessagesServer, stop: AbortSignal): Promise<{ run: Promise<number> }> {
  const config = await readTeam(team);
  const { key } = await openLeadMailbox({ team });
  const cmd = buildTeammateCommand({ runtime: 'swarm', team: team.name, name, color: 'blue', leadSessionId: config.leadSessionId, leadVerifyKey: key.verifyKey, env: {} });
  return { run: runTeammate({ flags: flagsFromArgv(cmd.argv), env: runtimeEnv(server), write: () => undefined, signal: stop }) };
}

describe('team memory outlives its team', () => {
  it("alpha's teammate saves a memory in two steps unasked; beta, made after alpha was deleted, has it in its leads' and teammate's prompts", async () => {
    const repo = await makeRepo(path.join(root, 'repo'));
    const dir = memoryDir(root, repo);
    const server = await startMessagesServer({
      script: {
        turns: [
          { match: { agent: 'w1', lastUser: 'Save what you learned' }, reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: path.join(dir, 'build.md'), content: TOPIC } }] } },
          { match: { agent: 'w1', toolResult: 'Write' }, reply: { content: [{ type: 'tool_use', name: 'Edit', input: { file_path: path.join(dir, 'MEMORY.md'), old_string: '', new_string: `${INDEX_LINE}\n` } }] } },
          { match: { agent: 'w1', toolResult: 'Edit' }, reply: 'Saved the build memory.' },
          { match: { agent: 'team-lead' }, reply: 'Nothing to do.' },
          { match: { agent: 'w2' }, reply: 'Noted.' },
        ],
      },
    });
    afterThisTest(() => server.close());

    // Team alpha: w1 saves the memory (default mode: an asked Write would wait for a person forever).
    const { team: alpha } = await createTeam(root, { name: 'alpha', cwd: repo });
    await addMember(alpha, { name: 'w1', cwd: repo });
    const { mailbox } = await openLeadMailbox({ team: alpha });
    await mailbox.append('w1', { from: 'team-lead', text: 'Save what you learned about the build.' });
    const stopAlpha = new AbortController();
    const alphaMember = await startMember(alpha, 'w1', server, stopAlpha.signal);
    await waitFor(async () => (await fs.readFile(path.join(dir, 'MEMORY.md'), 'utf8').catch(() => '')).includes(INDEX_LINE), 15_000, 'the index line in MEMORY.md');
    expect(await fs.readFile(path.join(dir, 'build.md'), 'utf8')).toBe(TOPIC);
    expect(await fs.readdir(alpha.paths.pending)).toEqual([]); // nobody was asked
    stopAlpha.abort('stop');
    expect(await alphaMember.run).toBe(0);
    // The in-process member ran with this process's pid, which is alive: --force.
    expect((await swarmInProcess(root, ['team', 'delete', 'alpha', '--force'])).exitCode).toBe(0);
    await expect(fs.stat(alpha.paths.dir)).rejects.toThrow();

    // Team beta, on the same repository: both leads and the teammate see the memory.
    const { team: beta } = await createTeam(root, { name: 'beta', cwd: repo });
    const queue = new LeadQueue();
    const outcome = await runLead({
      team: beta,
      goal: 'Check the build.',
      queue,
      model: 'claude-sonnet-4-5',
      cwd: repo,
      limits: { maxTeammates: 2 },
      spawn: () => Promise.reject(new Error('not in this test')),
      stop: () => Promise.reject(new Error('not in this test')),
      stopAll: () => Promise.reject(new Error('not in this test')),
      kill: () => Promise.reject(new Error('not in this test')),
      onLimit: () => Promise.resolve('stop'),
      onFinished: () => true,
      env: runtimeEnv(server),
      write: () => undefined,
    });
    expect(outcome).toMatchObject({ kind: 'finished' });
    const leadSystem = systemText(server.requests.find((r) => r.agent === 'team-lead')!.body!);
    expect(leadSystem).toContain(`kept across teams in ${dir}`);
    expect(leadSystem).toContain(`<team-memory>\n${INDEX_LINE}\n</team-memory>`);
    expect(leadSystem).toContain(`Teammates save memories in two steps: first the topic file ${dir}/<topic>.md`);
    const claudeLead = await claudeLeadPrompt(beta, { limits: { maxTeammates: 2 }, backend: undefined, model: undefined, permissionMode: undefined, runtime: 'claude', cwd: repo });
    expect(claudeLead).toContain(`<team-memory>\n${INDEX_LINE}\n</team-memory>`);

    await addMember(beta, { name: 'w2', cwd: repo });
    const { mailbox: betaMail } = await openLeadMailbox({ team: beta });
    await betaMail.append('w2', { from: 'team-lead', text: 'Look at the build.' });
    const stopBeta = new AbortController();
    const betaMember = await startMember(beta, 'w2', server, stopBeta.signal);
    const first = await waitFor(() => server.requests.find((r) => r.agent === 'w2'), 15_000, "w2's first model request");
    stopBeta.abort('stop');
    expect(await betaMember.run).toBe(0);
    const system = systemText(first.body!);
    expect(system).toContain(`# Team memory\nDurable notes about this project, kept across teams in ${dir}.`);
    expect(system).toContain(`<team-memory>\n${INDEX_LINE}\n</team-memory>`);
    expect(system).toContain(`To save a memory, write two files with Write or Edit: first the topic file ${dir}/<topic>.md (a plain name, no subdirectory), then its one line in ${dir}/MEMORY.md`);
    expect(system).toContain('never the progress or results of the current task');
  });
});

describe('the memory in a system prompt', () => {
  const config = { name: 't', createdAt: 1, leadAgentId: 'team-lead@t', leadSessionId: 's', members: [] };
  const prompt = (memory: Parameters<typeof buildSystemPrompt>[0]['memory']) =>
    buildSystemPrompt({ name: 'w1', team: 't', cwd: '/w', root: '/r', scratchpad: '/r/scratchpad/t', mode: 'default', config, ...(memory ? { memory } : {}) });

  it('a cut index says so and where the rest is; a missing one says nothing is saved; an unusable one says why', () => {
    const lines = Array.from({ length: 250 }, (_, i) => `- [T${i}](t${i}.md) — hook`);
    const cut = prompt({ dir: '/r/projects/-w/memory/team', index: cutIndex(lines.join('\n')) });
    expect(cut).toContain(lines[199]);
    expect(cut).not.toContain(lines[200]);
    expect(cut).toContain('(Cut: MEMORY.md has 250 lines');
    expect(cut).toContain('Read /r/projects/-w/memory/team/MEMORY.md for the rest.)');
    expect(prompt({ dir: '/m', index: cutIndex(lines.slice(0, 200).join('\n')) })).not.toContain('(Cut:');
    expect(prompt({ dir: '/m', index: { state: 'missing' } })).toContain('Nothing is saved yet for this project: its team memory, /m, has no MEMORY.md.');
    expect(prompt({ dir: '/m', index: { state: 'unusable', problem: '/m/MEMORY.md is a symbolic link' } })).toContain('Its index could not be read (/m/MEMORY.md is a symbolic link).');
    expect(prompt(undefined)).not.toContain('# Team memory');
  });
});
