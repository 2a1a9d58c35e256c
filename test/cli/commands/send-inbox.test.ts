// `swarm send` and `swarm inbox` (SPEC §6): --json shapes, --unread, --consume, and the human view
// where control frames are one-line events. In-process (main(argv, io)), but for standard input and
// the storage layer's warning: the real executable (execa strips the final newline).
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { execa } from 'execa';
import os from 'node:os';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../../src/mailbox/index.js';
import { encodeControl, type InboxMessage } from '../../../src/protocol/index.js';
import { updateTeam } from '../../../src/team/index.js';
import { SWARM_BIN, swarm, swarmInProcess } from '../../support/cli.js';
import { forgedLeases } from '../../support/forged-leases.js';
import { startSleeper } from '../../support/team-fixture.js';
import { useTeamRoot } from '../../support/team-root.js';
import { Team } from '../../../src/team/team.js';

const TEAM = 't';
let root: string;
let mb: Mailbox;
useTeamRoot(TEAM, ['w1', 'w2'], (dir) => (root = dir));
beforeEach(() => {
  mb = new Mailbox({ team: new Team(root, TEAM) });
});

const run = (args: string[], env?: Record<string, string>) => swarmInProcess(root, [...args, '--team', TEAM], env);
/** The same through the real executable. */
const runChild = (args: string[], env?: Record<string, string>) => swarm(root, [...args, '--team', TEAM], env);
async function onDisk(name: string): Promise<InboxMessage[]> {
  return JSON.parse(await fs.readFile(mb.paths.inbox(name), 'utf8')) as InboxMessage[];
}

describe('swarm send', () => {
  it('a hand-written control frame is refused with the command that does it; nothing is written', async () => {
    const cases: [string, string, RegExp][] = [
      ['w1', '{"type":"shutdown_request"}', /not sent: shutdown_request is a control frame swarm writes itself .*; swarm shutdown w1 sends it signed/],
      ['*', '{"type":"shutdown_request","reason":"done"}', /swarm shutdown --all/],
      ['w1', ' {"type":"permission_response","request_id":"x","subtype":"success"}', /swarm approve <id> or swarm deny <id>/],
      ['w1', '{"type":"task_assignment","taskId":"1"}', /swarm tasks update <id> --owner w1/],
      ['team-lead', '{"type":"idle_notification","from":"w1"}', /only a teammate sends idle_notification$/],
    ];
    for (const [to, text, why] of cases) {
      const r = await run(['send', to, text]);
      expect(r.exitCode, text).toBe(2);
      expect(r.stdout).toBe('');
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).toMatch(why);
    }
    await expect(fs.access(mb.paths.inbox('w1'))).rejects.toThrow(/ENOENT/);
    // JSON that is not a control frame, and text that mentions one, are messages like any other.
    for (const text of ['{"type":"note","text":"hi"}', 'send {"type":"shutdown_request"} to stop it']) expect((await run(['send', 'w1', text])).exitCode).toBe(0);
    expect((await onDisk('w1')).map((m) => m.text)).toEqual(['{"type":"note","text":"hi"}', 'send {"type":"shutdown_request"} to stop it']);
  });

  it('--json prints {msg_id, recipients}; the entry is on disk from team-lead', async () => {
    const r = await run(['send', 'W1', 'please review', '--summary', 'review', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { msg_id: string; recipients: string[] };
    expect(Object.keys(out).sort()).toEqual(['msg_id', 'recipients']);
    expect(out.recipients).toEqual(['w1']);
    expect(await onDisk('w1')).toEqual([
      expect.objectContaining({ from: 'team-lead', text: 'please review', summary: 'review', read: false, msg_id: out.msg_id, color: 'red' }),
    ]);
  });

  it('human output names the recipients; "*" from a member reaches everyone else', async () => {
    const r = await run(['send', '*', 'standup', '--from', 'W2']);
    expect(r.exitCode, r.stderr).toBe(0);
    const m = /^sent to (.+) ([0-9a-f-]{36})$/.exec(r.stdout);
    expect(m, r.stdout).not.toBeNull();
    expect(m![1]!.split(', ').sort()).toEqual(['team-lead', 'w1']);
    for (const name of ['team-lead', 'w1']) expect(await onDisk(name)).toEqual([expect.objectContaining({ from: 'w2', msg_id: m![2] })]);
    await expect(fs.access(mb.paths.inbox('w2'))).rejects.toThrow();
  });

  it('to a non-member → exit 1 naming the members, and no inbox file', async () => {
    const r = await run(['send', 'ghost', 'hi']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe('swarm: no member "ghost" in team "t" (members: team-lead, w1, w2)');
    await expect(fs.access(mb.paths.inbox('ghost'))).rejects.toThrow();
  });
});

describe('swarm inbox', () => {
  beforeEach(async () => {
    await mb.append('w1', { from: 'w2', text: 'first' });
    await mb.append('w1', { from: 'team-lead', text: encodeControl({ type: 'shutdown_request', requestId: 'shutdown-1@w1', from: 'team-lead', timestamp: new Date().toISOString() }) });
    await mb.consume('w1', (m) => m.text === 'first');
    await mb.append('w1', { from: 'w2', text: 'third' });
  });

  it('--json prints the array exactly as on disk (control frames left as text)', async () => {
    const r = await run(['inbox', 'w1', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const printed = JSON.parse(r.stdout) as InboxMessage[];
    expect(printed).toEqual(await onDisk('w1'));
    expect(typeof printed[1]!.text).toBe('string');
    expect(JSON.parse(printed[1]!.text)).toMatchObject({ type: 'shutdown_request' });
  });

  it('--unread shows only unread entries and changes nothing', async () => {
    const before = await fs.readFile(mb.paths.inbox('w1'), 'utf8');
    const r = await run(['inbox', 'w1', '--unread', '--json']);
    expect((JSON.parse(r.stdout) as InboxMessage[]).map((m) => m.text)).toEqual([expect.stringContaining('shutdown_request'), 'third']);
    expect(await fs.readFile(mb.paths.inbox('w1'), 'utf8')).toBe(before);
  });

  it('--consume takes delivery once: marks read on disk, a second --consume has nothing', async () => {
    const a = await run(['inbox', 'w1', '--consume', '--json']);
    expect((JSON.parse(a.stdout) as InboxMessage[]).map((m) => m.read)).toEqual([true, true]);
    expect((await onDisk('w1')).every((m) => m.read)).toBe(true);
    const b = await run(['inbox', 'w1', '--consume']);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toBe('no unread messages');
  });

  it('an inbox nobody wrote to yet is empty, not an error', async () => {
    const r = await run(['inbox', 'team-lead']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('inbox is empty');
  });
});

describe('human view', () => {
  it('renders text with sender and summary, and control frames as one-line events', async () => {
    const ts = new Date().toISOString();
    const frames = [
      { from: 'w1', text: encodeControl({ type: 'permission_request', request_id: 'perm-1-abc', agent_id: 'w1', tool_name: 'Bash', tool_use_id: 't1', description: 'run tests', input: { command: 'npm test' }, permission_suggestions: [] }) },
      { from: 'w2', text: encodeControl({ type: 'permission_request', request_id: 'perm-2-def', agent_id: 'w2', tool_name: 'Edit', tool_use_id: 't2', description: '', input: { file_path: 'src/app.ts', old_string: 'a', new_string: 'b' }, permission_suggestions: [] }) },
      { from: 'w1', text: encodeControl({ type: 'idle_notification', from: 'w1', timestamp: ts, idleReason: 'available', summary: 'tests pass' }) },
      { from: 'w2', text: encodeControl({ type: 'shutdown_rejected', requestId: 'shutdown-1@w2', from: 'w2', reason: 'still busy', timestamp: ts }) },
      { from: 'w2', text: JSON.stringify({ type: 'team_status_v2', progress: 0.5 }) },
      { from: 'w2', text: 'line one\nline two', summary: 'two lines' },
    ];
    for (const f of frames) await mb.append('team-lead', f);
    const r = await run(['inbox', 'team-lead']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    const time = String.raw`\d{2}:\d{2}:\d{2}`;
    expect(lines).toHaveLength(7);
    expect(lines[0]).toMatch(new RegExp(`^${time} ● w1 asks to run Bash: npm test \\[perm-1-abc\\]$`));
    expect(lines[1]).toMatch(new RegExp(`^${time} ● w2 asks to use Edit: src/app.ts \\[perm-2-def\\]$`));
    expect(lines[2]).toMatch(new RegExp(`^${time} ● w1 is idle: tests pass$`));
    expect(lines[3]).toMatch(new RegExp(`^${time} ● w2 rejected shutdown: still busy \\[shutdown-1@w2\\]$`));
    expect(lines[4]).toMatch(new RegExp(`^${time} w2 ● \\[team_status_v2\\] \\{"type":"team_status_v2","progress":0.5\\}$`));
    expect(lines[5]).toMatch(new RegExp(`^${time} w2 › ● two lines: line one$`));
    expect(lines[6]).toBe('    line two');
    expect(r.stdout).not.toMatch(/\u001b\[/); // NO_COLOR
  });
});

describe('swarm inbox with a malformed entry', () => {
  it('shows the valid message, exits 0, and says in one line where the bad entry went', async () => {
    const good = mb.makeEntry({ from: 'w2', text: 'still here' });
    await fs.writeFile(mb.paths.inbox('w1'), JSON.stringify([good, 'garbage']));
    // The real executable: the storage layer writes the warning to the process's own stderr.
    const r = await runChild(['inbox', 'w1', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as InboxMessage[]).map((m) => m.text)).toEqual(['still here']);
    const warning = r.stderr.trim().split('\n');
    expect(warning).toHaveLength(1);
    expect(warning[0]).toMatch(/w1\.json had 1 malformed entry \(first at \[1\].*\); moved to .*w1\.json\.corrupt-\d+, the other entries are kept/);
  });
});

describe('a symlinked inboxes/ directory', () => {
  it('send and inbox refuse it in one line and write nothing where it points', async () => {
    const elsewhere = `${root}/elsewhere`;
    await fs.mkdir(elsewhere);
    await fs.rm(mb.paths.inboxes, { recursive: true });
    await fs.symlink(elsewhere, mb.paths.inboxes);
    for (const args of [['send', 'w1', 'hi'], ['inbox', 'w1']]) {
      const r = await run(args);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr).toBe(`swarm: ${mb.paths.inboxes} is a symlink; swarm does not use files through links: replace it with a real directory (mv the files it points to into one)`);
    }
    expect(await fs.readdir(elsewhere)).toEqual([]);
  });
});

describe('swarm send with large texts', () => {
  const sendInput = (args: string[], input: string | Buffer) =>
    execa(process.execPath, [SWARM_BIN, 'send', ...args, '--team', TEAM], { env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' }, input, reject: false });

  it('- reads standard input: 600 KB (far past an argv word) arrives whole', async () => {
    const big = `${'x'.repeat(600 * 1024)}\nend`;
    const r = await sendInput(['w1', '-'], big);
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect((await onDisk('w1')).map((m) => m.text)).toEqual([big]);
  });

  it('--file sends a file; text and --file together, or neither, is a one-line error', async () => {
    const f = `${root}/notes.md`;
    await fs.writeFile(f, '# notes\nline 2\n');
    expect((await run(['send', 'w1', '--file', f])).exitCode).toBe(0);
    expect((await onDisk('w1')).map((m) => m.text)).toEqual(['# notes\nline 2\n']);
    const both = await run(['send', 'w1', 'hi', '--file', f]);
    expect([both.exitCode, both.stderr]).toEqual([2, 'swarm: give the text or --file, not both']);
    const none = await run(['send', 'w1']);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toMatch(/^swarm: no message: give the text, - to read standard input, or --file <path>$/);
  });

  it('--file reads only a regular file: /dev/zero, a FIFO or a directory is one line at once (exit 2), nothing written', async () => {
    const fifo = `${root}/fifo`;
    execFileSync('mkfifo', [fifo]); // no writer: a read that opened it blocking would wait for ever
    for (const [file, kind] of [['/dev/zero', 'a device file'], [fifo, 'a FIFO (named pipe)'], [root, 'a directory']] as const) {
      const r = await run(['send', 'w1', '--file', file]);
      expect([r.exitCode, r.stderr]).toEqual([2, `swarm: --file ${file} is ${kind}, not a regular file; to send what a command prints, pipe it: <command> | swarm send <to> -`]);
    }
    await expect(fs.access(mb.paths.inbox('w1'))).rejects.toThrow(/ENOENT/);
  });

  it('--file stops reading just past the limit in a file whose size says 0 (a /proc file): refused, never read whole', async () => {
    // pagemap is a regular file of size 0 whose reading goes on for the whole address space.
    const r = await run(['send', 'w1', '--file', '/proc/self/pagemap']);
    expect([r.exitCode, r.stderr]).toEqual([2, 'swarm: message is more than 1048576 bytes; the limit is 1048576 (1 MiB): put large content in a file and send its path']);
    await expect(fs.access(mb.paths.inbox('w1'))).rejects.toThrow(/ENOENT/);
  });

  it('over 1 MiB is refused with the limit and what to do, and nothing is written', async () => {
    const r = await sendInput(['w1', '-'], Buffer.alloc(1024 * 1024 + 1, 'y'));
    expect(r.exitCode).toBe(2);
    expect(String(r.stderr)).toMatch(/^swarm: message is more than \d+ bytes; the limit is 1048576 \(1 MiB\): put large content in a file and send its path$/);
    const f = `${root}/huge.txt`;
    await fs.writeFile(f, Buffer.alloc(1024 * 1024 + 1, 'z'));
    const viaFile = await run(['send', 'w1', '--file', f]);
    expect(viaFile.stderr).toMatch(/message is 1048577 bytes; the limit is 1048576/);
    await expect(fs.access(mb.paths.inbox('w1'))).rejects.toThrow(/ENOENT/);
  });
});

describe('swarm inbox team-lead --consume and the leader lease', () => {
  it('is refused while a live leader holds the lease, and not for a lease no live holder proves', async () => {
    const team = new Team(root, TEAM);
    const leader = await startSleeper(); // a live process other than this one, where the command runs
    await updateTeam(team, (c) => void (c.leadProcess = { pid: leader, claimedAt: Date.now() })); // Claude Code's shape
    const refused = await run(['inbox', 'team-lead', '--consume']);
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toMatch(/takes delivery of team-lead's inbox: consuming here would take its messages/);
    for (const [what, lease] of await forgedLeases(os.hostname())) {
      await updateTeam(team, (c) => void (c.leadProcess = lease));
      const r = await run(['inbox', 'team-lead', '--consume']);
      expect([r.exitCode, r.stderr], what).toEqual([0, '']);
    }
  });
});

