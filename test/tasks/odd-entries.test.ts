// Names in a task list that are not task files, on real files: a FIFO, a symlink or a directory
// named like a task is skipped and named, never read (no hang, no byte of a link's target shown);
// a file whose `id` is not its name's is kept aside as corrupt, never rewritten; ids and a
// `.highwatermark` past the highest id are not counted, so adds keep working; an unusable mark is
// named, kept aside before it is replaced, and an odd one stops adds with how to clear it.
import { execFileSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { MAX_TASK_ID, type Task } from '../../src/protocol/task.js';
import { TaskList, type SkippedEntry } from '../../src/tasks/index.js';
import { Team } from '../../src/team/team.js';
import { refusal } from '../support/task-files.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
let list: TaskList;
const NOW = 1_700_000_000_000;

useTempRoot((dir) => (root = dir), 'swarm-task-odd-');
beforeEach(() => {
  list = new TaskList(new Team(root, 'crew'), { now: () => NOW });
});

const dir = (): string => path.join(root, 'tasks/crew');
const file = (id: string): string => path.join(dir(), `${id}.json`);
const mark = (): string => path.join(dir(), '.highwatermark');
const add = (subject: string, blockedBy?: string[]): Promise<Task> => list.create({ subject, description: '', ...(blockedBy ? { blockedBy } : {}) }, 'team-lead');
const taskJson = (id: string, subject = `task ${id}`): string => JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] }, null, 2);
const byFile = (s: readonly SkippedEntry[]): SkippedEntry[] => [...s].sort((a, b) => a.file.localeCompare(b.file));
const odd = (f: string, what: string, rm = 'rm'): SkippedEntry => ({ file: f, problem: `${f} is ${what}, not a regular file: skipped, never read`, fix: `remove it (${rm} '${f}')` });

describe('a FIFO, a symlink and a directory named like task files', () => {
  const SECRET = 'SECRET-BYTES {not json at all';

  async function oddList(): Promise<void> {
    await add('real');
    execFileSync('mkfifo', [file('2')]); // no writer: a blocking open would wait for good
    await writeFile(path.join(root, 'secret.txt'), SECRET);
    await symlink(path.join(root, 'secret.txt'), file('3'));
    await mkdir(file('4'));
    await symlink(path.join(dir(), 'nowhere.json'), file('6')); // dangling: skipped all the same
  }

  it('are skipped and named, never read or shown; the task beside them is listed, and new ids come after them', async () => {
    await oddList();
    const listing = await list.list();
    expect(listing.tasks.map((t) => t.id)).toEqual(['1']);
    expect(listing.corrupt).toEqual([]);
    expect(byFile(listing.skipped)).toEqual([odd(file('2'), 'a FIFO (named pipe)'), odd(file('3'), 'a symbolic link'), odd(file('4'), 'a directory', 'rmdir'), odd(file('6'), 'a symbolic link')]);
    expect(JSON.stringify(listing)).not.toContain('SECRET');
    expect((await add('next')).id).toBe('7');
    expect((await lstat(file('2'))).isFIFO()).toBe(true);
    expect(await readFile(path.join(root, 'secret.txt'), 'utf8')).toBe(SECRET);
  });

  it('refuse every change by id in one line that names the entry, and claimNext passes over them', async () => {
    await oddList();
    const fifo = odd(file('2'), 'a FIFO (named pipe)');
    const link = odd(file('3'), 'a symbolic link');
    const get = await refusal(list.get('2'));
    expect([get.kind, get.message]).toEqual(['not_found', `task 2 cannot be read: ${fifo.problem}; ${fifo.fix}`]);
    expect((await refusal(list.update('3', { status: 'completed' }, 'team-lead'))).message).toBe(`task 3 cannot be read: ${link.problem}; ${link.fix}`);
    expect((await refusal(list.claim('2', 'alice'))).kind).toBe('not_found');
    expect((await refusal(list.update('4', { status: 'deleted' }, 'team-lead'))).kind).toBe('not_found');
    expect((await refusal(list.update('1', { addBlockedBy: ['3'] }, 'team-lead'))).message).toBe(
      `no task 3 (${link.problem}) to depend on (see swarm tasks list); nothing was changed`,
    );
    expect((await list.claimNext('bob'))?.id).toBe('1');
    expect(await list.claimNext('carol')).toBeUndefined();
    expect(JSON.stringify(await list.get('1'))).not.toContain('SECRET');
  });
});

describe('a task file whose id is not its name', () => {
  it('is kept aside as corrupt when listed, never rewritten; its id and its content id are not issued for it', async () => {
    await add('a');
    await add('b');
    const foreign = taskJson('7', 'belongs elsewhere');
    await writeFile(file('2'), foreign);
    const { tasks, corrupt } = await list.list();
    expect(tasks.map((t) => t.id)).toEqual(['1']);
    expect(corrupt).toEqual([{ file: file('2'), keptAt: `${file('2')}.corrupt-${NOW}`, error: 'unexpected shape at id: holds task "7", but the file is named for task 2' }]);
    expect(await readFile(`${file('2')}.corrupt-${NOW}`, 'utf8')).toBe(foreign);
    expect((await readdir(dir())).filter((n) => n.endsWith('.json')).sort()).toEqual(['1.json']);
    expect((await add('c')).id).toBe('3');
  });

  it('is refused, and kept aside, by a change that reads it under its lock (no listing first)', async () => {
    await add('a');
    const foreign = taskJson('9');
    await writeFile(file('1'), foreign);
    const e = await refusal(list.update('1', { status: 'completed' }, 'team-lead'));
    const [kept] = (await readdir(dir())).filter((n) => n.startsWith('1.json.corrupt-')); // storage's clock, not the list's
    expect([e.kind, e.message]).toEqual([
      'not_found',
      `task 1 was corrupt (unexpected shape at id: holds task "9", but the file is named for task 1); kept as ${path.join(dir(), kept!)}: recreate it with swarm tasks add`,
    ]);
    expect(await readFile(path.join(dir(), kept!), 'utf8')).toBe(foreign);
    expect((await readdir(dir())).filter((n) => n.endsWith('.json'))).toEqual([]);
  });
});

describe('ids past the highest', () => {
  const TOP = String(MAX_TASK_ID);

  it('a name at or past the highest id and a mark at 2^53-1 are not counted: adds keep working, each is named', async () => {
    await add('a');
    await writeFile(file(TOP), taskJson(TOP, 'at the top'));
    await writeFile(path.join(dir(), '1234567890123456.json'), taskJson('1234567890123456'));
    await writeFile(path.join(dir(), `${TOP}.json.corrupt-5`), 'kept aside');
    await writeFile(mark(), String(Number.MAX_SAFE_INTEGER));
    expect((await add('b')).id).toBe('2');
    expect((await add('c')).id).toBe('3');
    const { tasks, skipped } = await list.list();
    expect(tasks.map((t) => t.id)).toEqual(['1', '2', '3', TOP]);
    const fix = 'rename it to a free id and set its "id" to match, or remove it';
    expect(byFile(skipped)).toEqual([
      { file: mark(), problem: `${mark()} holds 9007199254740991, past the highest task id (${TOP}): not counted when numbering new tasks (the next delete keeps it aside and writes a new one)`, fix: `put the highest id ever issued in it, at least the highest in use (echo 3 > '${mark()}'), or remove it` },
      { file: path.join(dir(), '1234567890123456.json'), problem: `${path.join(dir(), '1234567890123456.json')} is past the highest task id (${TOP}): not listed, and not counted when numbering new tasks`, fix },
      { file: file(TOP), problem: `${file(TOP)} has the highest task id there can be (${TOP}): it is listed, but new ids are numbered after the other tasks`, fix },
    ]);
  });

  it('the last id is issued once; after it, add says no id is left and what to do', async () => {
    await mkdir(dir(), { recursive: true });
    await writeFile(mark(), String(MAX_TASK_ID - 1));
    expect((await add('last')).id).toBe(String(MAX_TASK_ID));
    const e = await refusal(add('one too many'));
    expect([e.kind, e.message]).toEqual([
      'invalid',
      `no task id is left: ids go up to ${MAX_TASK_ID} and the ones below are issued; give the highest tasks lower free ids (rename <id>.json and set its "id"), or remove them`,
    ]);
  });
});

describe('an unusable .highwatermark', () => {
  it('that is not a number is named, and kept aside (never overwritten) by the next delete', async () => {
    await add('a');
    await add('b');
    await writeFile(mark(), 'seven');
    const { skipped } = await list.list();
    expect(skipped).toEqual([
      {
        file: mark(),
        problem: `${mark()} is not a whole number: not counted when numbering new tasks (the next delete keeps it aside and writes a new one)`,
        fix: `put the highest id ever issued in it, at least the highest in use (echo 2 > '${mark()}'), or remove it`,
      },
    ]);
    await list.update('2', { status: 'deleted' }, 'team-lead');
    expect(await readFile(`${mark()}.corrupt-${NOW}`, 'utf8')).toBe('seven');
    expect(await readFile(mark(), 'utf8')).toBe('2');
    expect((await list.list()).skipped).toEqual([]);
  });

  it('that is a FIFO stops adds and deletes with how to clear it (its value is unknown), and is named in the listing', async () => {
    await add('a');
    execFileSync('mkfifo', [mark()]);
    const message = `${mark()} is a FIFO (named pipe), not a regular file; swarm does not read it: remove it (rm '${mark()}')`;
    await expect(add('b')).rejects.toMatchObject({ kind: 'io', message });
    await expect(list.update('1', { status: 'deleted' }, 'team-lead')).rejects.toMatchObject({ kind: 'io', message });
    const { tasks, skipped } = await list.list();
    expect(tasks.map((t) => t.id)).toEqual(['1']);
    expect(skipped).toEqual([{ ...odd(mark(), 'a FIFO (named pipe)'), problem: `${odd(mark(), 'a FIFO (named pipe)').problem}; no task can be added or deleted until it is gone` }]);
  });
});
