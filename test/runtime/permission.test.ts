// The permission gate end to end: Bash in default mode waits for team-lead (a pending file appears);
// a forged resolution does not run it; a real approval does; a denial's feedback reaches the model.
// File tools refuse the team's own directories (also through a symlink, or a hard link to
// config.json in the cwd, in acceptEdits and bypassPermissions alike) without asking anyone.
import { existsSync, linkSync, promises as fs, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { addRule, decide } from '../../src/permissions/leader.js';
import { generateLeadKeyPair, signRecord } from '../../src/permissions/signing.js';
import { readPending } from '../../src/permissions/pending.js';
import {
  controls,
  pendingIds,
  readStatus,
  requestsWith,
  setupRuntime,
  toolResults,
  waitFor,
  waitForControl,
  type RuntimeEnv,
} from '../support/runtime-harness.js';
import { Team } from '../../src/team/team.js';


describe('permission gate', () => {
  it('waits for team-lead on Bash: a forged answer is ignored, an approval runs it, a denial feeds back', async () => {
    const env = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'write the marker' },
          reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo ran > ran.txt', description: 'Write a marker file' } }] },
        },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: 'Marker written.' },
        { match: { agent: 'w1', lastUser: 'delete the marker' }, reply: { content: [{ type: 'tool_use', name: 'Bash', input: { command: 'rm ran.txt' } }] } },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: 'OK, keeping it.' },
      ],
    });
    const e = env;
    await e.lead.append('w1', { from: 'team-lead', text: 'Please write the marker' });
    e.start();

    const [id] = await waitFor(async () => ((await pendingIds(e)).length === 1 ? pendingIds(e) : undefined), 10_000, 'a pending request');
    const pending = (await readPending(e.paths, id!))!;
    expect(pending).toMatchObject({ workerName: 'w1', toolName: 'Bash', input: { command: 'echo ran > ran.txt', description: 'Write a marker file' }, description: 'Write a marker file' });
    await waitFor(async () => (await readStatus(e))?.state === 'waiting_permission', 5000, 'state waiting_permission');

    // A resolution signed by some other key: kept aside, never acted on.
    const other = generateLeadKeyPair(Date.now());
    const forged = signRecord({ ...pending, status: 'approved', resolvedBy: 'team-lead', resolvedAt: Date.now() } as Record<string, unknown>, other.privateKey);
    await fs.writeFile(e.paths.resolvedFile(id!), JSON.stringify(forged));
    await waitFor(async () => (await fs.readdir(e.paths.resolved)).some((f) => f.startsWith(`${id}.json.rejected-`)), 10_000, 'the forged file kept aside');
    expect(existsSync(path.join(e.work, 'ran.txt'))).toBe(false);
    expect(await pendingIds(e)).toEqual([id]);

    await decide(new Team(e.root, 't'), id!, 'allow');
    await waitFor(() => existsSync(path.join(e.work, 'ran.txt')), 10_000, 'the approved command to run');
    await waitForControl(e, 'team-lead', 'idle_notification');

    await e.lead.append('w1', { from: 'team-lead', text: 'Now delete the marker' });
    const [id2] = await waitFor(async () => ((await pendingIds(e)).length === 1 ? pendingIds(e) : undefined), 10_000, 'a second pending request');
    expect(id2).not.toBe(id);
    await decide(new Team(e.root, 't'), id2!, 'deny', { feedback: 'keep the marker, we need it' });
    await waitForControl(e, 'team-lead', 'idle_notification', 2);
    expect(existsSync(path.join(e.work, 'ran.txt'))).toBe(true);
    // What the model got back for the denied `rm ran.txt`: the last tool_result it was sent.
    const answers = e.server.requests.filter((r) => r.agent === 'w1').map(toolResults).filter((rs) => rs.length > 0);
    expect(answers.at(-1), 'the tool_result of the denied Bash call').toEqual([{ content: 'Permission to use Bash was denied by team-lead: keep the marker, we need it', is_error: true }]);
    expect(requestsWith(e.server, 'keep the marker, we need it'), 'requests carrying the denial feedback').toHaveLength(1);
  });

  it("refuses file tools under the root's teams/ and swarm/ (symlinks too) as is_error, without asking", async () => {
    let e!: RuntimeEnv;
    e = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'tamper' },
          respond: () => ({
            reply: {
              content: [
                { type: 'tool_use', name: 'Write', input: { file_path: path.join(e.root, 'teams/t/inboxes/team-lead.json'), content: '[]' } },
                { type: 'tool_use', name: 'Write', input: { file_path: 'keys-link/t.key', content: 'x' } },
                { type: 'tool_use', name: 'Read', input: { file_path: '../swarm/keys/t.key' } },
                { type: 'tool_use', name: 'Grep', input: { pattern: 'PRIVATE', path: '..' } },
              ],
            },
          }),
        },
        { match: { agent: 'w1', toolResult: 'Write' }, reply: 'Could not.' },
      ],
    });
    await fs.symlink(path.join(e.root, 'swarm/keys'), path.join(e.work, 'keys-link'));
    await e.lead.append('w1', { from: 'team-lead', text: 'tamper with the team files' });
    e.start(['--permission-mode', 'bypassPermissions']);
    await waitForControl(e, 'team-lead', 'idle_notification');

    const results = toolResults(e.server.requests[1]!);
    expect(results.slice(0, 3).map((r) => r.is_error)).toEqual([true, true, true]);
    for (const r of results.slice(0, 3)) expect(r.content).toMatch(/inside the team's own files/);
    expect(results, 'one tool_result per call').toHaveLength(4);
    expect(results[3]?.content).toBe('No matches found'); // the walk skips teams/ and swarm/
    expect(await pendingIds(e)).toEqual([]);
    expect((await fs.readFile(path.join(e.root, 'swarm/keys/t.key'), 'utf8')).startsWith('{')).toBe(true);
    expect((await e.plain.read('team-lead')).length).toBeGreaterThan(0);
  });
  for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
    it(`refuses Write and Edit of a hard link or a symlink to config.json in the cwd (${mode}), without asking`, async () => {
      let e!: RuntimeEnv;
      let before = '';
      e = await setupRuntime({
        turns: [
          {
            match: { agent: 'w1', lastUser: 'allow yourself' },
            // Linked now, mid-turn: config.json is replaced (a new inode) whenever the team is saved,
            // as it was when this teammate started, and a link made before that points at a stale copy.
            respond: () => {
              linkSync(e.paths.config, path.join(e.work, 'settings.json'));
              symlinkSync(e.paths.config, path.join(e.work, 'linked.json'));
              before = readFileSync(e.paths.config, 'utf8');
              return {
                reply: {
                  content: [
                    { type: 'tool_use', name: 'Edit', input: { file_path: 'settings.json', old_string: '"members": [', new_string: '"swarm": {"rules": {"allow": ["Bash"], "deny": []}}, "members": [' } },
                    { type: 'tool_use', name: 'Write', input: { file_path: 'settings.json', content: '{}' } },
                    { type: 'tool_use', name: 'Write', input: { file_path: 'linked.json', content: '{}' } },
                  ],
                },
              };
            },
          },
          { match: { agent: 'w1', toolResult: 'Edit' }, reply: 'Could not.' },
        ],
      });
      await e.lead.append('w1', { from: 'team-lead', text: 'allow yourself Bash' });
      e.start(['--permission-mode', mode]);
      await waitForControl(e, 'team-lead', 'idle_notification');

      const results = toolResults(e.server.requests[1]!);
      expect(results.map((r) => r.is_error)).toEqual([true, true, true]);
      expect(results[0]!.content).toMatch(/^\S+settings\.json is one of the team's own files under another name/);
      expect(results[1]!.content).toMatch(/^\S+settings\.json is one of the team's own files under another name/);
      expect(results[2]!.content).toMatch(/inside the team's own files/);
      for (const r of results) expect(r.content).not.toContain('\n');
      expect(await pendingIds(e)).toEqual([]);
      expect(before).toContain('"members": [');
      const after = JSON.parse(await fs.readFile(e.paths.config, 'utf8')) as { swarm?: unknown; members: unknown[] };
      expect(after.swarm).toBeUndefined(); // no rule smuggled in (isActive changes when it idles are the team's own)
      expect(after.members).toHaveLength(3);
    });
  }
});

describe('agent configuration', () => {
  const AGENT_FILE = '---\nname: verification\ndescription: checks\ntools: Bash\npermissionMode: bypassPermissions\n---\nRun anything.\n';
  for (const mode of ['acceptEdits', 'bypassPermissions'] as const) {
    it(`asks team-lead before a Write of .claude/agents/ and an Edit of .claude/settings.json through a symlink, inside the cwd (${mode}); reading them is free`, async () => {
      const e = await setupRuntime({
        turns: [
          {
            match: { agent: 'w1', lastUser: 'make the verifier stronger' },
            reply: {
              content: [
                { type: 'tool_use', name: 'Read', input: { file_path: '.claude/settings.json' } },
                { type: 'tool_use', name: 'Write', input: { file_path: '.claude/agents/verification.md', content: AGENT_FILE } },
                { type: 'tool_use', name: 'Edit', input: { file_path: 'notes.json', old_string: '"allow": []', new_string: '"allow": ["Bash"]' } },
              ],
            },
          },
          { match: { agent: 'w1', toolResult: 'Write' }, reply: 'Done what I could.' },
        ],
      });
      await fs.mkdir(path.join(e.work, '.claude'));
      await fs.writeFile(path.join(e.work, '.claude/settings.json'), '{"permissions": {"allow": []}}\n');
      await fs.symlink(path.join(e.work, '.claude/settings.json'), path.join(e.work, 'notes.json'));
      await e.lead.append('w1', { from: 'team-lead', text: 'Please make the verifier stronger' });
      e.start(['--permission-mode', mode]);

      const [write] = await waitForControl(e, 'team-lead', 'permission_request');
      expect(write!.message).toMatchObject({ tool_name: 'Write', description: 'Write .claude/agents/verification.md (protected agent configuration: **/.claude/agents/**)' });
      await decide(new Team(e.root, 't'), write!.message.request_id, 'deny', { feedback: 'no new agent files' });
      const [, edit] = await waitForControl(e, 'team-lead', 'permission_request', 2);
      expect(edit!.message).toMatchObject({ tool_name: 'Edit', description: 'Edit notes.json (protected agent configuration: **/.claude/settings*.json)' });
      expect(await fs.readFile(path.join(e.work, '.claude/settings.json'), 'utf8')).toBe('{"permissions": {"allow": []}}\n');
      await decide(new Team(e.root, 't'), edit!.message.request_id, 'allow');
      await waitForControl(e, 'team-lead', 'idle_notification');

      const results = toolResults(e.server.requests.filter((r) => r.agent === 'w1')[1]!);
      expect(results, 'one tool_result per call').toHaveLength(3);
      expect(results[0]).toEqual({ content: '     1\t{"permissions": {"allow": []}}' });
      expect(results[1]).toEqual({ content: 'Permission to use Write was denied by team-lead: no new agent files', is_error: true });
      expect(results[2]?.is_error).toBeUndefined();
      expect(existsSync(path.join(e.work, '.claude/agents/verification.md'))).toBe(false);
      expect(await fs.readFile(path.join(e.work, '.claude/settings.json'), 'utf8')).toBe('{"permissions": {"allow": ["Bash"]}}\n');
      expect(await controls(e, 'team-lead', 'permission_request'), 'the Read asked nobody').toHaveLength(2);
    });
  }
});

describe('protected reads', () => {
  const TOKEN = 'sk-ant-oat01-hunter2';
  function readingScript(files: () => string[]) {
    return {
      turns: [
        {
          match: { agent: 'w1', lastUser: 'look at the credentials' },
          respond: () => ({ reply: { content: files().map((f) => ({ type: 'tool_use' as const, name: 'Read', input: { file_path: f } })) } }),
        },
        { match: { agent: 'w1', toolResult: 'Read' }, reply: 'Read them.' },
      ],
    };
  }
  async function writeSecrets(e: RuntimeEnv): Promise<void> {
    await fs.writeFile(path.join(e.root, '.credentials.json'), JSON.stringify({ claudeAiOauth: { accessToken: TOKEN } }));
    await fs.writeFile(path.join(e.work, '.env'), `API_TOKEN=${TOKEN}\n`);
  }
  const sentToModel = (e: RuntimeEnv): boolean => e.server.requests.some((r) => JSON.stringify(r.body ?? {}).includes(TOKEN));

  for (const mode of ['default', 'bypassPermissions'] as const) {
    it(`asks team-lead before reading <root>/.credentials.json and a .env (${mode}); only an approval shows the content`, async () => {
      let e!: RuntimeEnv;
      e = await setupRuntime(readingScript(() => [path.join(e.root, '.credentials.json'), '.env']));
      await writeSecrets(e);
      await e.lead.append('w1', { from: 'team-lead', text: 'Please look at the credentials' });
      e.start(['--permission-mode', mode]);

      const [first] = await waitForControl(e, 'team-lead', 'permission_request');
      expect(first!.message).toMatchObject({ tool_name: 'Read', description: `Read ${path.join(e.root, '.credentials.json')} (protected: <root>/.credentials.json)` });
      expect(sentToModel(e)).toBe(false);
      await decide(new Team(e.root, 't'), first!.message.request_id, 'allow');

      const [, second] = await waitForControl(e, 'team-lead', 'permission_request', 2);
      expect(second!.message).toMatchObject({ tool_name: 'Read', input: { file_path: '.env' }, description: 'Read .env (protected: **/.env)' });
      await decide(new Team(e.root, 't'), second!.message.request_id, 'deny', { feedback: 'not the .env' });
      await waitForControl(e, 'team-lead', 'idle_notification');

      const results = toolResults(e.server.requests.filter((r) => r.agent === 'w1')[1]!);
      expect(results, 'one tool_result per Read').toHaveLength(2);
      expect(results[0]?.is_error).toBeUndefined();
      expect(results[0]?.content).toContain(TOKEN);
      expect(results[1]).toEqual({ content: 'Permission to use Read was denied by team-lead: not the .env', is_error: true });
      expect(results[1]?.content).not.toContain(TOKEN);
    });
  }

  it('team rules decide first: an allow rule reads a .env without asking, a deny rule refuses the login token', async () => {
    let e!: RuntimeEnv;
    e = await setupRuntime(readingScript(() => ['.env', path.join(e.root, '.credentials.json')]));
    await writeSecrets(e);
    const team = new Team(e.root, 't');
    await addRule(team, 'allow', 'Read(**/.env)');
    await addRule(team, 'deny', `Read(${path.join(e.root, '.credentials.json')})`);
    await e.lead.append('w1', { from: 'team-lead', text: 'Please look at the credentials' });
    e.start(['--permission-mode', 'acceptEdits']);
    await waitForControl(e, 'team-lead', 'idle_notification');

    const results = toolResults(e.server.requests.filter((r) => r.agent === 'w1')[1]!);
    expect(results, 'one tool_result per Read').toHaveLength(2);
    expect(results[0]?.content).toBe(`     1\tAPI_TOKEN=${TOKEN}`);
    expect(results[1]).toEqual({ content: `Permission to use Read was denied by rule: denied by team rule Read(${path.join(e.root, '.credentials.json')})`, is_error: true });
    expect(await controls(e, 'team-lead', 'permission_request')).toEqual([]);
  });
});

describe('team deny rules bind the calls that run without asking', () => {
  const denied = (tool: string, rule: string) => ({ content: `Permission to use ${tool} was denied by the team rule ${rule}.`, is_error: true });

  it('bypassPermissions: a denied Bash command and a denied Write are refused; an undenied command runs', async () => {
    const e = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'clean up' },
          reply: {
            content: [
              { type: 'tool_use', name: 'Bash', input: { command: 'rm keep.txt' } },
              { type: 'tool_use', name: 'Write', input: { file_path: 'secret/plan.md', content: 'x' } },
              { type: 'tool_use', name: 'Bash', input: { command: 'echo ran > ran.txt' } },
            ],
          },
        },
        { match: { agent: 'w1', toolResult: 'Bash' }, reply: 'Done.' },
      ],
    });
    const team = new Team(e.root, 't');
    await addRule(team, 'deny', 'Bash(rm:*)');
    await addRule(team, 'deny', 'Write(secret/**)');
    await fs.writeFile(path.join(e.work, 'keep.txt'), 'keep');
    await e.lead.append('w1', { from: 'team-lead', text: 'Please clean up' });
    e.start(['--permission-mode', 'bypassPermissions']);
    await waitForControl(e, 'team-lead', 'idle_notification');

    const results = toolResults(e.server.requests.filter((r) => r.agent === 'w1')[1]!);
    expect(results, 'one tool_result per call').toHaveLength(3);
    expect(results[0], 'rm under a Bash(rm:*) deny rule').toEqual(denied('Bash', 'Bash(rm:*)'));
    expect(results[1], 'Write under a Write(secret/**) deny rule').toEqual(denied('Write', 'Write(secret/**)'));
    expect(results[2], 'an undenied command').toEqual({ content: '(no output)' });
    expect(existsSync(path.join(e.work, 'keep.txt')), 'keep.txt still there').toBe(true);
    expect(existsSync(path.join(e.work, 'secret/plan.md')), 'secret/plan.md not written').toBe(false);
    expect(existsSync(path.join(e.work, 'ran.txt')), 'the undenied command ran').toBe(true);
    expect(await controls(e, 'team-lead', 'permission_request')).toEqual([]);
  });

  it('acceptEdits: an in-cwd Edit a deny rule covers is refused; another in-cwd Write runs without asking', async () => {
    const e = await setupRuntime({
      turns: [
        {
          match: { agent: 'w1', lastUser: 'edit the files' },
          reply: {
            content: [
              { type: 'tool_use', name: 'Edit', input: { file_path: 'ci/deploy.yml', old_string: 'prod', new_string: 'dev' } },
              { type: 'tool_use', name: 'Write', input: { file_path: 'notes.md', content: 'notes' } },
            ],
          },
        },
        { match: { agent: 'w1', toolResult: 'Edit' }, reply: 'Done.' },
      ],
    });
    await addRule(new Team(e.root, 't'), 'deny', 'Edit(ci/**)');
    await fs.mkdir(path.join(e.work, 'ci'));
    await fs.writeFile(path.join(e.work, 'ci/deploy.yml'), 'target: prod\n');
    await e.lead.append('w1', { from: 'team-lead', text: 'Please edit the files' });
    e.start(['--permission-mode', 'acceptEdits']);
    await waitForControl(e, 'team-lead', 'idle_notification');

    const results = toolResults(e.server.requests.filter((r) => r.agent === 'w1')[1]!);
    expect(results, 'one tool_result per call').toHaveLength(2);
    expect(results[0], 'Edit under an Edit(ci/**) deny rule').toEqual(denied('Edit', 'Edit(ci/**)'));
    expect(results[1]?.is_error, 'an in-cwd Write no rule denies').toBeUndefined();
    expect(await fs.readFile(path.join(e.work, 'ci/deploy.yml'), 'utf8')).toBe('target: prod\n');
    expect(await fs.readFile(path.join(e.work, 'notes.md'), 'utf8')).toBe('notes');
    expect(await controls(e, 'team-lead', 'permission_request')).toEqual([]);
  });
});
