// The task list's file layer called directly (task-list.test.ts drives it through TaskList): which
// names count as task ids and toward the next id, the high-water mark (junk, never lowered), the
// errors for a list that cannot be read, loadTask's re-read under both locks, and withTaskGroup's
// lock order and all-or-nothing writes.
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { lockPathFor, queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { ensureList, idsOnDisk, loadTask, nextId, notFound, peekTask, raiseHighwatermark, readHighwatermark, withTaskGroup } from '../../src/tasks/store.js';
import { Team } from '../../src/team/team.js';
import type { TaskListPaths } from '../../src/team/paths.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root: string;
let paths: TaskListPaths;
const now = () => 1_000;

useTempRoot((d) => (root = d), 'swarm-task-store-');
beforeEach(() => {
  paths = new Team(root, 'crew').paths.tasks;
});

const taskJson = (id: string, subject = `task ${id}`): string =>
  JSON.stringify({ id, subject, description: '', status: 'pending', blocks: [], blockedBy: [] });

describe('ids and the high-water mark', () => {
  it('counts <id>.json files as tasks, and kept-aside copies only toward the next id', async () => {
    expect(idsOnDisk(paths)).toEqual({ ids: [], highest: 0, skipped: [], lastTaken: false });
    await ensureList(paths);
    for (const n of ['2.json', '10.json', '9.json', '12.json.corrupt-1700000000000', '0.json', '07.json', 'x.json', '3.json.lock', '.highwatermark']) {
      await writeFile(path.join(paths.dir, n), '{}');
    }
    expect(idsOnDisk(paths)).toEqual({ ids: ['2', '9', '10'], highest: 12, skipped: [], lastTaken: false });
    expect(nextId(paths)).toBe('13');
  });

  it('reads the mark as 0 when missing or not a positive whole number, and the next id is past both', async () => {
    await ensureList(paths);
    expect(readHighwatermark(paths)).toBe(0);
    for (const junk of ['', 'seven', '-4', '2.5', '1e400']) {
      await writeFile(paths.highwatermark, junk);
      expect(readHighwatermark(paths), junk).toBe(0);
    }
    await writeFile(paths.highwatermark, ' 41\n');
    expect(readHighwatermark(paths)).toBe(41);
    await writeFile(paths.task('3'), taskJson('3'));
    expect(nextId(paths)).toBe('42');
    await raiseHighwatermark(paths, 7); // never lowered
    expect(await readFile(paths.highwatermark, 'utf8')).toBe(' 41\n');
    await raiseHighwatermark(paths, 41);
    expect(await readFile(paths.highwatermark, 'utf8')).toBe(' 41\n');
    await raiseHighwatermark(paths, 50);
    expect(await readFile(paths.highwatermark, 'utf8')).toBe('50');
    expect((await stat(paths.highwatermark)).mode & 0o777).toBe(0o600);
  });

  it('a list or mark that cannot be read is an io error that names it, never an empty list', async () => {
    await mkdir(path.dirname(paths.dir), { recursive: true });
    await writeFile(paths.dir, 'a file where the list should be');
    expect(() => idsOnDisk(paths)).toThrow(expect.objectContaining({ kind: 'io', message: expect.stringMatching(/^cannot list \S+crew: ENOTDIR/), cause: expect.objectContaining({ code: 'ENOTDIR' }) }));
    await expect(ensureList(paths)).rejects.toMatchObject({ code: 'EEXIST' });
  });

  it('a mark that is a directory is an io error too, and ensureList keeps an existing .lock', async () => {
    await ensureList(paths);
    expect(await readFile(paths.lock, 'utf8')).toBe(''); // as Claude Code makes it
    await writeFile(paths.lock, 'kept');
    await ensureList(paths);
    expect(await readFile(paths.lock, 'utf8')).toBe('kept');
    expect((await stat(paths.lock)).mode & 0o777).toBe(0o600);
    await mkdir(paths.highwatermark);
    expect(() => readHighwatermark(paths)).toThrow(
      expect.objectContaining({ kind: 'io', message: `${paths.highwatermark} is a directory, not a regular file; swarm does not read it: remove it (rmdir '${paths.highwatermark}')` }),
    );
  });
});

describe('loadTask', () => {
  it('reads a task, says missing for none, and peekTask never keeps anything aside', async () => {
    await ensureList(paths);
    await writeFile(paths.task('1'), taskJson('1', 'first'));
    await writeFile(paths.task('2'), '{"id": "2",');
    expect(await loadTask(paths, '1', { now })).toMatchObject({ task: { id: '1', subject: 'first' } });
    expect(await loadTask(paths, '5', { now })).toEqual({ missing: true });
    expect(peekTask(paths, '1')).toMatchObject({ subject: 'first' });
    expect(peekTask(paths, '2')).toBeUndefined();
    expect(peekTask(paths, '5')).toBeUndefined();
    expect((await readdir(paths.dir)).filter((n) => n.includes('corrupt'))).toEqual([]);
  });

  it('keeps a file that is still bad under both locks aside, as <id>.json.corrupt-<now>', async () => {
    await ensureList(paths);
    await writeFile(paths.task('2'), '{"id": "2",');
    const r = await loadTask(paths, '2', { now });
    expect(r).toEqual({ corrupt: { file: paths.task('2'), keptAt: `${paths.task('2')}.corrupt-1000`, error: expect.stringMatching(/^invalid JSON/) } });
    expect(await readFile(`${paths.task('2')}.corrupt-1000`, 'utf8')).toBe('{"id": "2",');
    expect(notFound('2', 'corrupt' in r ? r : undefined).message).toBe(
      `task 2 was corrupt (${'corrupt' in r ? r.corrupt.error : ''}); kept as ${paths.task('2')}.corrupt-1000: recreate it with swarm tasks add`,
    );
    expect(notFound('9')).toMatchObject({ kind: 'not_found', message: 'no task 9 (see swarm tasks list)' });
  });

  it('waits for the list lock before the second read (Claude Code writes a new task in place under it) unless the caller holds it', async () => {
    await ensureList(paths);
    await writeFile(paths.task('3'), '');
    let finish!: () => void;
    const creating = withFileLock(paths.lock, async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      await writeFile(paths.task('3'), taskJson('3', 'whole now'));
    });
    await waitFor(() => finish !== undefined, 5000, 'the creator holds the list lock');
    const loading = loadTask(paths, '3', { now });
    await waitFor(async () => (await readdir(queueDirFor(paths.lock)).catch(() => [])).length > 0, 5000, 'the load waits for the list lock');
    finish();
    await creating;
    expect(await loading).toMatchObject({ task: { subject: 'whole now' } });

    // listHeld: only the task's lock is taken (taking the list lock again would wait on itself).
    await writeFile(paths.task('4'), '');
    const r = await withFileLock(paths.lock, () => loadTask(paths, '4', { now, listHeld: true, lock: { budgetMs: 2000 } }));
    expect(r).toMatchObject({ corrupt: { file: paths.task('4') } });
  });

  it('a task file removed while the load waited is missing', async () => {
    await ensureList(paths);
    await writeFile(paths.task('6'), '{');
    let finish!: () => void;
    const deleting = withFileLock(paths.task('6'), async () => {
      await new Promise<void>((resolve) => (finish = resolve));
      await rm(paths.task('6'));
    });
    await waitFor(() => finish !== undefined, 5000, 'the deleter holds the task lock');
    const loading = loadTask(paths, '6', { now });
    await waitFor(async () => (await readdir(queueDirFor(paths.task('6'))).catch(() => [])).length > 0, 5000, 'the load waits for the task lock');
    finish();
    await deleting;
    expect(await loading).toEqual({ missing: true });
  });
});

describe('withTaskGroup', () => {
  it('holds the list lock and each task lock (ascending, each once) while fn runs, then writes and removes', async () => {
    await ensureList(paths);
    await writeFile(paths.task('2'), taskJson('2'));
    await writeFile(paths.task('10'), taskJson('10'));
    await writeFile(paths.task('3'), '{bad');
    const held: string[] = [];
    const result = await withTaskGroup(paths, ['10', '2', '3', '2', '7'], { now }, async (tasks, corrupt) => {
      for (const p of [paths.lock, paths.task('2'), paths.task('3'), paths.task('7'), paths.task('10')]) {
        if ((await stat(lockPathFor(p)).catch(() => undefined)) !== undefined) held.push(path.basename(p));
      }
      expect([...tasks.keys()]).toEqual(['2', '10']);
      expect([...corrupt.keys()]).toEqual(['3']);
      expect(corrupt.get('3')).toMatchObject({ corrupt: { keptAt: `${paths.task('3')}.corrupt-1000` } });
      return { write: [{ ...tasks.get('2')!, subject: 'changed' }], remove: ['10'], result: 'done' };
    });
    expect(result).toBe('done');
    expect(held).toEqual(['.lock', '2.json', '3.json', '7.json', '10.json']);
    expect(JSON.parse(await readFile(paths.task('2'), 'utf8'))).toMatchObject({ subject: 'changed' });
    expect((await stat(paths.task('2'))).mode & 0o777).toBe(0o600);
    await expect(stat(paths.task('10'))).rejects.toMatchObject({ code: 'ENOENT' });
    expect((await readdir(paths.dir)).filter((n) => n.endsWith('.lock') && n !== '.lock')).toEqual([]);
  });

  it('writes and removes nothing when fn throws', async () => {
    await ensureList(paths);
    await writeFile(paths.task('1'), taskJson('1'));
    await expect(
      withTaskGroup(paths, ['1'], { now }, () => {
        throw new Error('a cycle: refused');
      }),
    ).rejects.toThrow('a cycle: refused');
    expect(await readFile(paths.task('1'), 'utf8')).toBe(taskJson('1'));
  });

  it('keeps aside a corrupt task first or last in lock order under its own lock, writes nothing when fn writes nothing, and removes a missing task quietly', async () => {
    await ensureList(paths);
    await writeFile(paths.task('1'), '{first');
    await writeFile(paths.task('2'), taskJson('2'));
    await writeFile(paths.task('9'), '{last');
    const before = await readFile(paths.task('2'), 'utf8');
    const r = await withTaskGroup(paths, ['9', '2', '1'], { now }, (tasks, corrupt) => ({ result: [[...tasks.keys()], [...corrupt.keys()]], remove: ['40'] }));
    expect(r).toEqual([['2'], ['1', '9']]);
    expect(await readFile(paths.task('2'), 'utf8')).toBe(before);
    expect((await readdir(paths.dir)).filter((n) => n.includes('corrupt')).sort()).toEqual(['1.json.corrupt-1000', '9.json.corrupt-1000']);
  });
});

describe('a task file that cannot be read', () => {
  it('is an io error naming it, never a missing task', async () => {
    await mkdir(path.dirname(paths.dir), { recursive: true });
    await writeFile(paths.dir, 'a file where the list should be');
    await expect(loadTask(paths, '5', { now })).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot read \S+5\.json: ENOTDIR/), cause: { code: 'ENOTDIR' } });
  });

  it('a directory in its place is skipped and named, not read', async () => {
    await ensureList(paths);
    await mkdir(paths.task('5'));
    expect(await loadTask(paths, '5', { now })).toEqual({
      skipped: { file: paths.task('5'), problem: `${paths.task('5')} is a directory, not a regular file: skipped, never read`, fix: `remove it (rmdir '${paths.task('5')}')` },
    });
  });
});

