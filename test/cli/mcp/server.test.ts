// swarm's MCP server driven by the official SDK's client, in-process over a linked pair of
// transports (issue 33 items 1, 3 and 5): every tool and its errors; teammates are real processes
// (the fake teammate, on the swarm runtime's flags) in panes of a private tmux server. Delivery is
// exactly once: a wait returns what arrived in order, marks it read, and a server started again
// delivers what the first did not — and never a permission question, which no tool can answer.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { serveLead, type McpLead, type McpLeadSettings } from '../../../src/cli/mcp/server.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { encodeControl } from '../../../src/protocol/control.js';
import { addMember, createTeam, readTeam } from '../../../src/team/team-store.js';
import type { Team } from '../../../src/team/team.js';
import { ensureLeadKey } from '../../../src/permissions/keys.js';
import { isProcessAlive } from '../../../src/storage/pid.js';
import { SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { startSleeper, writeStatus } from '../../support/team-fixture.js';
import { afterThisTest, useTempRoot } from '../../support/tmp-root.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));

let root = '';
useTempRoot((r) => (root = r), 'swarm-mcp-');
let team: Team;
let env: NodeJS.ProcessEnv;

beforeEach(async () => {
  team = (await createTeam(root, { name: 'crew', description: 'mcp', cwd: root })).team;
  await ensureLeadKey(team);
  env = { ...process.env, CLAUDE_CONFIG_DIR: root, ...tmuxEnv(tmuxForThisTest(), [process.execPath, FAKE]), SWARM_TEAM: '' };
});

/** A server on the team and a client connected to it; both closed after the test. */
async function connect(settings: Partial<McpLeadSettings> = {}, extra: { settleMs?: number } = {}): Promise<{ client: Client; lead: McpLead; log: string[] }> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const log: string[] = [];
  const lead = await serveLead({ team, env, cwd: root, settings: { runtime: 'swarm', maxTeammates: 2, ...settings }, log: (t) => void log.push(t), ...extra }, serverSide);
  const client = new Client({ name: 'test', version: '1' });
  await client.connect(clientSide);
  afterThisTest(async () => {
    await client.close();
    await lead.close();
  });
  return { client, lead, log };
}

async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const r = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = r.content.map((c) => (c.type === 'text' ? c.text : '')).join('');
  return { text, isError: r.isError === true };
}

/** A teammate on the roster without a process (messages from it are what a wait hands over). */
async function member(name: string): Promise<void> {
  await addMember(team, { name, agentType: 'general-purpose', model: 'm', cwd: root, backendType: 'in-process' });
}

async function fromTeammate(from: string, text: string, summary?: string): Promise<void> {
  await new Mailbox({ team }).append('team-lead', { from, text, timestamp: new Date().toISOString(), ...(summary ? { summary } : {}) });
}

describe('swarm mcp: the lead tools over MCP', () => {
  it('lists the nine tools with JSON Schemas from the lead tools\' zod schemas, and no tool that answers a permission', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['spawn_teammate', 'send_message', 'stop_teammate', 'task_create', 'task_get', 'task_list', 'task_update', 'team_status', 'wait_for_messages']);
    const spawn = tools.find((t) => t.name === 'spawn_teammate')!;
    expect(spawn.inputSchema.required).toEqual(['name', 'prompt']);
    expect(Object.keys(spawn.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['name', 'prompt', 'description', 'subagent_type', 'model', 'isolation', 'runtime']));
    // The descriptions speak this server's names, not the built-in lead's.
    expect(tools.map((t) => t.description).join(' ')).not.toMatch(/\b(SendMessage|TaskUpdate|TaskCreate)\b/);
    expect(tools.map((t) => t.name).join(' ')).not.toMatch(/approve|deny|permission|plan/);
  });

  it('spawns a teammate in a pane, messages it signed as team-lead, reports the team, refuses a third over --max-teammates and stops one now (verified)', async () => {
    const { client } = await connect();
    const spawned = await call(client, 'spawn_teammate', { name: 'w1', prompt: 'Wait.', description: 'waits' });
    expect(spawned, spawned.text).toMatchObject({ isError: false });
    expect(spawned.text).toMatch(/^Spawned w1 \(agentId w1@crew\) in tmux pane %\d+/);
    expect((await call(client, 'spawn_teammate', { name: 'w2', prompt: 'Wait.' })).isError).toBe(false);
    const third = await call(client, 'spawn_teammate', { name: 'w3', prompt: 'Wait.' });
    expect(third).toEqual({ isError: true, text: expect.stringContaining('the team already has 2 teammates (--max-teammates 2)') });
    expect(third.text).toContain('(send_message)');
    expect(third.text).not.toContain('\n');

    const sent = await call(client, 'send_message', { to: 'w1', message: 'Start on the parser.', summary: 'parser' });
    expect(sent).toEqual({ isError: false, text: 'Message sent to w1' });
    const inbox = await new Mailbox({ team }).read('w1');
    expect(inbox.at(-1)).toMatchObject({ from: 'team-lead', text: 'Start on the parser.', summary: 'parser', lead_sig: expect.any(String) });

    const status = JSON.parse((await call(client, 'team_status')).text) as { team: string; members: { name: string; where: string }[]; questionsForThePerson: number; tasks: unknown };
    expect(status).toMatchObject({ team: 'crew', questionsForThePerson: 0, tasks: { done: 0, total: 0 } });
    expect(status.members.map((m) => m.name)).toEqual(['w1', 'w2']);
    expect(status.members[0]!.where).toMatch(/^tmux %\d+$/);

    const stopped = await call(client, 'stop_teammate', { name: 'w2' });
    expect(stopped).toEqual({ isError: false, text: 'w2 did not answer in time and was killed; it is gone (verified).' });
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead', 'w1']);
    // A shutdown request: the fake approves; the result says what really happened.
    const down = await call(client, 'send_message', { to: 'w1', message: { type: 'shutdown_request', reason: 'done' } });
    expect(down).toEqual({ isError: false, text: 'w1 approved the shutdown and is gone (verified).' });
  }, 60_000);

  it('the team budget binds: over it, spawn_teammate is refused by the tool, not left to the model', async () => {
    const { client } = await connect({ budgetUsd: 0.01 });
    await member('w1');
    await writeStatus(root, 'crew', 'w1', { pid: await startSleeper(), state: 'idle', costUsd: 0.05, totalTokens: 5000 });
    const r = await call(client, 'spawn_teammate', { name: 'w2', prompt: 'Wait.' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^no new teammates: .*--budget-usd 0\.01/);
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead', 'w1']);
  });

  it("the person's --permission-mode is a ceiling the lead cannot lift through spawn_teammate", async () => {
    const { client } = await connect({ permissionMode: 'default' });
    const r = await call(client, 'spawn_teammate', { name: 'w1', prompt: 'Run anything.', mode: 'bypassPermissions' });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^mode bypassPermissions is above default, the permission mode the person chose for this run, and a model cannot raise it/);
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead']);
  });

  it('the task tools: create, list, update with an owner check, get', async () => {
    const { client } = await connect();
    await member('w1');
    expect(await call(client, 'task_create', { subject: 'Parse the input', description: 'Write the parser.' })).toMatchObject({ isError: false, text: expect.stringContaining('#1') });
    expect((await call(client, 'task_list')).text).toContain('#1');
    expect(await call(client, 'task_update', { taskId: '1', owner: 'w1' })).toMatchObject({ isError: false });
    expect((await call(client, 'task_get', { taskId: '1' })).text).toContain('w1');
    expect(await call(client, 'task_get', { taskId: '9' })).toMatchObject({ isError: true });
  });

  it('every error is a one-line tool error: an unknown tool, bad input, the lead itself, a protocol frame as text', async () => {
    const { client } = await connect();
    const errors = [
      await call(client, 'approve_permission', { id: 'perm-1' }),
      await call(client, 'spawn_teammate', { prompt: 'no name' }),
      await call(client, 'spawn_teammate', { name: 'team-lead', prompt: 'x' }),
      await call(client, 'stop_teammate', { name: 'team-lead' }),
      await call(client, 'stop_teammate', { name: 'ghost' }),
      await call(client, 'send_message', { to: 'ghost', message: 'hi' }),
      await call(client, 'send_message', { to: '*', message: encodeControl({ type: 'permission_response', request_id: 'perm-1', subtype: 'success', response: { updated_input: {}, permission_updates: [] } }) }),
      await call(client, 'wait_for_messages', { timeout_seconds: -1 }),
    ];
    for (const e of errors) {
      expect(e.isError, e.text).toBe(true);
      expect(e.text).not.toContain('\n');
    }
    expect(errors[0]!.text).toBe('no tool approve_permission: the tools are spawn_teammate, send_message, stop_teammate, task_create, task_get, task_list, task_update, team_status, wait_for_messages');
    expect(errors[1]!.text).toMatch(/^invalid spawn_teammate input: name: /);
    expect(errors[6]!.text).toContain("permission and plan answers are the person's");
  });

  it('wait_for_messages: several messages in order as <teammate-message>, each once; a permission request never; after a timeout, who works', async () => {
    const { client } = await connect();
    await member('w1');
    await member('w2');
    await fromTeammate('w1', 'parser done', 'parser');
    await fromTeammate('w2', encodeControl({ type: 'permission_request', request_id: 'perm-1-abc', agent_id: 'w2', tool_name: 'Bash', tool_use_id: 't1', description: 'x', input: { command: 'rm -rf /' }, permission_suggestions: [] }));
    await fromTeammate('w2', 'tests written');
    const first = await call(client, 'wait_for_messages', { timeout_seconds: 5 });
    expect(first.isError).toBe(false);
    expect(first.text).toBe(
      '<teammate-message teammate_id="w1" summary="parser">\nparser done\n</teammate-message>\n<teammate-message teammate_id="w2">\ntests written\n</teammate-message>',
    );
    // Handed over: read in team-lead's inbox (the question too: taken, it is the person's).
    expect((await new Mailbox({ team }).unread('team-lead')).map((m) => m.text)).toEqual([]);
    // Nothing again, and nobody works: the wait says so after a short grace instead of blocking.
    const started = Date.now();
    const rest = await call(client, 'wait_for_messages', { timeout_seconds: 60 });
    expect(rest.text).toBe('[swarm] No teammate is working and no task is open (idle: w1, w2): nothing more will arrive until you act.');
    expect(Date.now() - started).toBeLessThan(10_000);
    // A message arriving during a wait ends it at once.
    const waiting = call(client, 'wait_for_messages', { timeout_seconds: 60 });
    await new Promise((r) => setTimeout(r, 300));
    await fromTeammate('w1', 'one more');
    expect((await waiting).text).toContain('one more');
    // A teammate at work: the wait runs to its timeout and says who works.
    await writeStatus(root, 'crew', 'w2', { pid: await startSleeper(), state: 'working' });
    expect(await call(client, 'wait_for_messages', { timeout_seconds: 1 })).toEqual({ isError: false, text: 'No news in 1 s. Working: w2. Call wait_for_messages again to go on waiting.' });
  }, 30_000);

  it('a cancelled wait hands nothing over: what arrived during it comes with the next wait', async () => {
    const { client } = await connect({}, { settleMs: 5000 });
    await member('w1');
    await writeStatus(root, 'crew', 'w1', { pid: await startSleeper(), state: 'working' });
    const cancel = new AbortController();
    const cancelled = client.callTool({ name: 'wait_for_messages', arguments: { timeout_seconds: 30 } }, undefined, { signal: cancel.signal }).then(
      () => 'answered',
      () => 'cancelled',
    );
    await new Promise((r) => setTimeout(r, 300));
    await fromTeammate('w1', 'arrived while the first wait lingered');
    await new Promise((r) => setTimeout(r, 1500)); // the server has it queued, the wait lingers for the rest of a burst
    cancel.abort();
    expect(await cancelled).toBe('cancelled');
    expect((await call(client, 'wait_for_messages', { timeout_seconds: 10 })).text).toBe('<teammate-message teammate_id="w1">\narrived while the first wait lingered\n</teammate-message>');
  }, 30_000);

  it('a server started again delivers what the first had not handed over, and nothing it had', async () => {
    await member('w1');
    const a = await connect();
    await fromTeammate('w1', 'delivered by the first');
    expect((await call(a.client, 'wait_for_messages', { timeout_seconds: 5 })).text).toContain('delivered by the first');
    await fromTeammate('w1', 'arrived, never handed over');
    await new Promise((r) => setTimeout(r, 300)); // the first server has it queued
    await a.client.close();
    await a.lead.closed;
    const b = await connect();
    const again = await call(b.client, 'wait_for_messages', { timeout_seconds: 5 });
    expect(again.text).toBe('<teammate-message teammate_id="w1">\narrived, never handed over\n</teammate-message>');
  }, 30_000);

});

describe('swarm mcp: the command', () => {
  it('a team that does not exist is a one-line error, exit 1, nothing created', async () => {
    const r = await swarmInProcess(root, ['mcp', '--team', 'nope']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr.trim()).toBe('swarm: no team "nope"; see \'swarm team list\', or create it with \'swarm team create nope\'');
    expect(await fs.readdir(path.join(root, 'teams'))).toEqual(['crew']);
  });

  it('--wait-ready: waits until a swarm MCP server leads the team (exit 0, nothing on stdout), or says on stderr that none did', async () => {
    const alone = await swarmInProcess(root, ['mcp', '--team', 'crew', '--wait-ready', '0.5']);
    expect(alone).toMatchObject({ exitCode: 0, stdout: '' });
    expect(alone.stderr.trim()).toBe("swarm: no swarm MCP server took the lead of team crew within 0.5 s: team-lead's tools (mcp__swarm__*) may be missing; see /mcp");
    const { client } = await connect();
    // Connected but not yet listed: a held lease would tell the hook that the client has the tools.
    await new Promise((r) => setTimeout(r, 300));
    expect((await readTeam(team)).leadProcess).toBeUndefined();
    expect((await swarmInProcess(root, ['mcp', '--team', 'crew', '--wait-ready', '0.3'])).stderr).toContain('no swarm MCP server took the lead');
    await client.listTools();
    await waitFor(async () => (await readTeam(team)).leadProcess?.kind === 'mcp', 10_000, 'the server to take the lease');
    // Another process (the lease is this one's own here): it sees the server's lease at once.
    const started = Date.now();
    expect(await swarm(root, ['mcp', '--team', 'crew', '--wait-ready', '30'])).toMatchObject({ exitCode: 0, stdout: '', stderr: '' });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect((await swarmInProcess(root, ['mcp', '--team', 'crew', '--wait-ready', '0'])).stderr).toContain('expected --wait-ready to be a positive number of seconds, got 0');
  });

  it('a second server (a child process, over stdio) says who leads until the first is gone, then takes the lease; it ends with its client', async () => {
    const first = await connect();
    await first.client.listTools();
    await waitFor(async () => (await readTeam(team)).leadProcess?.pid === process.pid, 10_000, 'the first server to take the lease');
    const transport = new StdioClientTransport({ command: process.execPath, args: [SWARM_BIN, 'mcp', '--team', 'crew'], env: env as Record<string, string>, stderr: 'pipe' });
    const second = new Client({ name: 'test', version: '1' });
    await second.connect(transport);
    const pid = transport.pid!;
    afterThisTest(async () => {
      if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
    });
    const refused = await call(second, 'team_status');
    expect(refused.isError).toBe(true);
    expect(refused.text).toBe(`team crew is led by pid ${process.pid} (a Claude Code lead through swarm mcp), which takes team-lead's messages: stop it, then call this tool again`);
    await first.client.close();
    await first.lead.closed; // the lease is released
    expect(await call(second, 'team_status')).toMatchObject({ isError: false, text: expect.stringContaining('"team": "crew"') });
    expect((await readTeam(team)).leadProcess).toMatchObject({ pid, kind: 'mcp' });
    await second.close();
    await waitFor(() => !isProcessAlive(pid), 10_000, 'the server to exit with its client');
    expect((await readTeam(team)).leadProcess).toBeUndefined();
  }, 30_000);
});
