// The teammate's tools in-process, on a real temp directory: Read numbering/offset/limit, Edit
// uniqueness and replace_all, Write, Bash (timeout + process-group kill, output cap, background
// processes), Glob and Grep, input validation, and the protected-directory guard.
import { promises as fs, existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALL_TOOLS, apiTools, findTool } from '../../../src/runtime/tools/index.js';
import { PathGuard } from '../../../src/runtime/tools/paths.js';
import { groupAlive, OutputCap, ProcessGroups } from '../../../src/runtime/tools/process-groups.js';
import type { ToolContext, ToolOutput } from '../../../src/runtime/tools/types.js';
import { TaskList } from '../../../src/tasks/index.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root: string;
let cwd: string;
let ctx: ToolContext;
let processes: ProcessGroups;

useTempRoot((dir) => (root = dir), 'swarm-tools-');
beforeEach(async () => {
  cwd = await fs.realpath(path.join(root, '.'));
  cwd = path.join(cwd, 'work');
  await fs.mkdir(cwd);
  await fs.mkdir(path.join(root, 'teams/t'), { recursive: true });
  await fs.mkdir(path.join(root, 'swarm/keys'), { recursive: true });
  await fs.writeFile(path.join(root, 'swarm/keys/t.key'), 'SECRET PRIVATE KEY');
  processes = new ProcessGroups('/bin/sh', 300);
  ctx = {
    cwd,
    guard: await PathGuard.create(root, cwd),
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

describe('Bash', () => {
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

describe('tool definitions', () => {
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
    });
    for (const d of defs) expect(d.input_schema.type).toBe('object');
  });
});
