// Reading what a task-list operation did: the TaskError it was refused with, and the task directory's
// files, name by name, to show a refusal wrote nothing.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { TaskError } from '../../src/tasks/index.js';

/** The TaskError `p` rejects with (the test fails if it resolves or rejects with something else). */
export async function refusal(p: Promise<unknown>): Promise<TaskError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(TaskError);
  return e as TaskError;
}

/** Every file in `dir` that `keep` keeps (default: all), by name, with its content. */
export async function snapshot(dir: string, keep: (name: string) => boolean = () => true): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const n of (await readdir(dir)).sort()) if (keep(n)) out[n] = await readFile(path.join(dir, n), 'utf8');
  return out;
}
