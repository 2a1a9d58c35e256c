// The leader console's pure parts: the slash command parser, tab completion, the question queue's
// order (oldest first, the shown one sticky, decided-elsewhere ones dropped), the status line, and
// the --dry-run plan of `swarm launch`, and word wrapping on a terminal.
import { PassThrough } from 'node:stream';
import { Team } from '../../../src/team/team.js';
import { Screen } from '../../../src/cli/console/screen.js';
import { describe, expect, it } from 'vitest';
import { PromptQueue } from '../../../src/cli/console/prompt-queue.js';
import { complete, parseLine } from '../../../src/cli/console/slash.js';
import { statusKey } from '../../../src/cli/console/view.js';
import { dryRunLines } from '../../../src/cli/launch/dry-run.js';
import { backendForType } from '../../../src/backends/registry.js';
import type { CollectedStatus } from '../../../src/teammates/status-report.js';
import type { PendingView } from '../../../src/permissions/pending-list.js';
import type { PlanApprovalRequest } from '../../../src/protocol/control.js';

describe('parseLine', () => {
  it('parses every command with its arguments', () => {
    expect(parseLine('/send w1 hello there')).toEqual({ kind: 'command', command: { kind: 'send', to: 'w1', text: 'hello there' } });
    expect(parseLine('  /broadcast  all hands ')).toEqual({ kind: 'command', command: { kind: 'broadcast', text: 'all hands' } });
    expect(parseLine('/spawn w3 write the tests\nplease')).toEqual({ kind: 'command', command: { kind: 'spawn', name: 'w3', prompt: 'write the tests\nplease' } });
    expect(parseLine('/shutdown --all')).toEqual({ kind: 'command', command: { kind: 'shutdown', target: { all: true } } });
    expect(parseLine('/shutdown w2')).toEqual({ kind: 'command', command: { kind: 'shutdown', target: { all: false, name: 'w2' } } });
    expect(parseLine('/kill w2')).toEqual({ kind: 'command', command: { kind: 'kill', name: 'w2' } });
    expect(parseLine('/plan w1 reject too risky, split it')).toEqual({
      kind: 'command',
      command: { kind: 'plan', name: 'w1', approve: false, feedback: 'too risky, split it' },
    });
    expect(parseLine('/plan w1 approve')).toEqual({ kind: 'command', command: { kind: 'plan', name: 'w1', approve: true } });
    for (const k of ['status', 'permissions', 'help', 'quit'] as const) expect(parseLine(`/${k}`)).toEqual({ kind: 'command', command: { kind: k } });
  });

  it('accepts an unambiguous prefix and rejects unknown, ambiguous or incomplete commands with the usage', () => {
    expect(parseLine('/st')).toEqual({ kind: 'command', command: { kind: 'status' } });
    expect(parseLine('/tasks')).toEqual({ kind: 'command', command: { kind: 'tasks' } });
    expect(parseLine('/ta')).toEqual({ kind: 'command', command: { kind: 'tasks' } });
    expect(parseLine('/tasks all')).toEqual({ kind: 'error', message: 'usage: /tasks' });
    expect(parseLine('/s w1 hi')).toEqual({ kind: 'error', message: 'unknown command "/s" (did you mean /send or /spawn or /shutdown or /status?); /help lists them' });
    expect(parseLine('/frobnicate')).toMatchObject({ kind: 'error', message: expect.stringContaining('unknown command "/frobnicate"') });
    expect(parseLine('/send w1')).toEqual({ kind: 'error', message: 'usage: /send <name> <text>' });
    expect(parseLine('/shutdown')).toEqual({ kind: 'error', message: 'usage: /shutdown <name|--all>' });
    expect(parseLine('/plan w1 maybe')).toEqual({ kind: 'error', message: 'usage: /plan <name> approve|reject [feedback]' });
    expect(parseLine('/status now')).toEqual({ kind: 'error', message: 'usage: /status' });
  });

  it('tells plain text and empty lines apart', () => {
    expect(parseLine('   ')).toEqual({ kind: 'empty' });
    expect(parseLine('hello')).toEqual({ kind: 'text', text: 'hello' });
  });
});

describe('complete', () => {
  const members = ['reader', 'Writer', 'tester'];
  it('completes command names, then member names (and --all), then approve|reject', () => {
    expect(complete('/sh', members)).toEqual([['/shutdown'], '/sh']);
    expect(complete('/s', members)[0]).toEqual(['/send', '/spawn', '/shutdown', '/status']);
    expect(complete('/send w', members)).toEqual([['Writer'], 'w']);
    expect(complete('/shutdown ', members)).toEqual([['reader', 'Writer', 'tester', '--all'], '']);
    expect(complete('/shutdown --', members)).toEqual([['--all'], '--']);
    expect(complete('/plan reader a', members)).toEqual([['approve'], 'a']);
    expect(complete('/send reader hel', members)).toEqual([[], 'hel']);
    expect(complete('/broadcast w', members)).toEqual([[], 'w']);
    expect(complete('plain', members)).toEqual([[], 'plain']);
  });
});

function pending(id: string, createdAt: number): PendingView {
  return {
    id,
    workerId: 'w1@t',
    workerName: 'w1',
    teamName: 't',
    toolName: 'Bash',
    toolUseId: `toolu_${id}`,
    description: '',
    input: { command: 'ls' },
    permissionSuggestions: [],
    status: 'pending',
    createdAt,
    ageMs: 0,
    orphaned: false,
  };
}

function plan(requestId: string, from: string, at: number): PlanApprovalRequest {
  return { type: 'plan_approval_request', from, requestId, timestamp: new Date(at).toISOString(), planFilePath: '', planContent: '1. do it' };
}

describe('PromptQueue', () => {
  it('asks oldest first across permissions and plans, one at a time', () => {
    const q = new PromptQueue();
    q.syncPermissions([pending('perm-3', 3000), pending('perm-1', 1000)]);
    q.addPlan('w2', plan('plan-2', 'w2', 2000));
    expect(q.all().map((x) => x.id)).toEqual(['perm-1', 'plan-2', 'perm-3']);
    expect(q.current()?.id).toBe('perm-1');
    q.remove('perm-1');
    expect(q.current()?.id).toBe('plan-2');
    q.remove('plan-2');
    expect(q.current()?.id).toBe('perm-3');
    q.remove('perm-3');
    expect(q.current()).toBeUndefined();
    expect(q.size).toBe(0);
  });

  it('keeps the shown question until it is answered, even when an older one arrives', () => {
    const q = new PromptQueue();
    q.syncPermissions([pending('perm-5', 5000)]);
    expect(q.current()?.id).toBe('perm-5');
    q.syncPermissions([pending('perm-5', 5000), pending('perm-2', 2000)]);
    expect(q.current()?.id).toBe('perm-5');
    q.remove('perm-5');
    expect(q.current()?.id).toBe('perm-2');
  });

  it('drops requests decided elsewhere, replaces a teammate’s older plan, and forgets plans of departed teammates', () => {
    const q = new PromptQueue();
    q.syncPermissions([pending('perm-1', 1000), pending('perm-2', 2000)]);
    expect(q.current()?.id).toBe('perm-1');
    q.syncPermissions([pending('perm-2', 2000)]); // perm-1 approved with `swarm approve` in another terminal
    expect(q.current()?.id).toBe('perm-2');
    q.addPlan('W1', plan('plan-a', 'W1', 500));
    q.addPlan('w1', plan('plan-b', 'w1', 600));
    expect(q.all().map((x) => x.id)).toEqual(['plan-b', 'perm-2']);
    q.keepPlansOf(['w2']);
    expect(q.all().map((x) => x.id)).toEqual(['perm-2']);
  });
});

describe('statusKey', () => {
  it('changes with a state or the pending count, not with heartbeats', () => {
    const s = (state: string, heartbeatAt: number): CollectedStatus =>
      ({ report: { team: 't', backend: 'tmux', tasks: { done: 0, total: 0 }, members: [{ name: 'w1', state, heartbeatAt, task: null }] }, details: [], warnings: [] }) as unknown as CollectedStatus;
    expect(statusKey(s('idle', 1), 0)).toBe(statusKey(s('idle', 2), 0));
    expect(statusKey(s('idle', 1), 0)).not.toBe(statusKey(s('working', 1), 0));
    expect(statusKey(s('idle', 1), 0)).not.toBe(statusKey(s('idle', 1), 1));
    // What the line shows: the leader's own state, and states shown with the same word, change nothing.
    const withLead = (lead: string): CollectedStatus =>
      ({ report: { team: 't', backend: 'tmux', tasks: { done: 0, total: 0 }, members: [{ name: 'team-lead', state: lead, task: null }, { name: 'w1', state: 'working', task: null }] }, details: [], warnings: [] }) as unknown as CollectedStatus;
    expect(statusKey(withLead('idle'), 0)).toBe(statusKey(withLead('working'), 0));
  });

  it("shows each teammate's current task and the list's progress, and changes with them", () => {
    const s = (task: { id: string; subject: string } | null, done: number): CollectedStatus =>
      ({ report: { team: 't', backend: 'tmux', tasks: { done, total: 3 }, members: [{ name: 'w1', state: 'working', task }, { name: 'w2', state: 'idle', task: null }] }, details: [], warnings: [] }) as unknown as CollectedStatus;
    expect(statusKey(s({ id: '2', subject: 'Parse the flags' }, 1), 0)).toBe('── w1 working #2 Parse the flags · w2 idle · tasks 1/3 done');
    expect(statusKey(s(null, 1), 0)).toBe('── w1 working · w2 idle · tasks 1/3 done');
    expect(statusKey(s(null, 2), 0)).not.toBe(statusKey(s(null, 1), 0));
    const empty = { report: { team: 't', backend: 'tmux', tasks: { done: 0, total: 0 }, members: [{ name: 'w1', state: 'idle', task: null }] }, details: [], warnings: [] } as unknown as CollectedStatus;
    expect(statusKey(empty, 0)).toBe('── w1 idle'); // no task list: no progress shown
  });
});

describe('launch --dry-run', () => {
  it('prints shell-quoted tmux and teammate command lines with placeholders, on the private socket', () => {
    const env = { SWARM_TMUX_SOCKET: 'swarm-test-x', CLAUDE_CONFIG_DIR: '/tmp/root', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-secret' };
    const lines = dryRunLines({
      file: { name: 'sq', members: [{ name: 'ann', prompt: 'review it', model: 'claude-x' }, { name: 'bob', prompt: "bob's job" }] },
      team: 'sq',
      taken: true,
      rename: true,
      root: '/tmp/root',
      env,
      cwd: '/work dir',
      backend: backendForType('tmux', new Team('/tmp/root', 'sq'), { env }),
      console: true,
    });
    const text = lines.join('\n');
    expect(text).toContain('(taken: a free name would be picked and announced)');
    expect(lines).toContain("tmux -L swarm-test-x new-session -d -s swarm-sq -P -F '#{pane_id} #{pane_pid} #{window_id}'");
    const split = lines.find((l) => l.includes('split-window') && l.includes('--agent-name ann'))!;
    // The environment travels in a private env file, as in the real spawn: never `-e KEY=value`.
    expect(split.startsWith("tmux -L swarm-test-x split-window -d -h -t '<largest teammate pane, else <first pane of swarm-sq>>' -c '/work dir' -P -F ")).toBe(true);
    expect(split).not.toContain(' -e ');
    expect(split).toContain("-- /bin/sh -c ");
    expect(split).toContain("'<private env file>'");
    expect(split).toContain('--lead-verify-key \\<lead-verify-key\\>');
    expect(split).toContain('--model claude-x');
    expect(split).toContain(`'<private env file>' ${process.execPath} `);
    expect(lines.some((l) => l.includes('respawn-pane') && l.includes('lead --team sq'))).toBe(true);
    expect(lines.at(-1)).toBe('tmux -L swarm-test-x attach -t swarm-sq');
    expect(text).not.toContain('sk-secret');
    const envNote = lines[lines.indexOf(split) - 1]!;
    expect(envNote).toMatch(/^# <private env file> \(0600, removed once loaded\): .*export CLAUDE_CONFIG_DIR=\/tmp\/root; /);
    expect(envNote).toContain('export ANTHROPIC_API_KEY=\\<redacted\\>;');
    expect(lines.filter((l) => l.includes('new-session'))).toHaveLength(1); // once, not per member
  });
});

describe('Screen on a terminal', () => {
  it('wraps printed text at word boundaries to the terminal width', () => {
    const input = Object.assign(new PassThrough(), { isTTY: true, setRawMode: () => input });
    let written = '';
    const output = Object.assign(new PassThrough(), { isTTY: true, columns: 20 });
    output.on('data', (d: Buffer) => (written += d.toString()));
    const screen = new Screen({ input, output });
    screen.print('reviewer › looks good, but please rename the helper');
    screen.close();
    const plain = written.replace(/\u001b\[[0-9;]*[A-Za-z]/g, '');
    const lines = plain.split('\n').filter((l) => l.trim() !== '' && l.trim() !== '>'); // readline's default prompt
    expect(lines.map((l) => l.trimEnd())).toEqual(['reviewer › looks', 'good, but please', 'rename the helper']);
    expect(Math.max(...lines.map((l) => l.length))).toBeLessThanOrEqual(20);
  });
});
