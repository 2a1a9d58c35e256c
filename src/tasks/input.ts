// What a task-list change is given, checked once at the boundary (the tools, the CLI and launch all
// call TaskList): ids, owners, texts and metadata, each refused with a one-line TaskError('invalid')
// that says what to do. The size caps are protocol/task's TASK_LIMITS.
import { LEAD_NAME, MEMBER_NAME_RE } from '../protocol/names.js';
import { isTaskId, TASK_LIMITS } from '../protocol/task.js';
import { TaskError } from './errors.js';

export function invalid(message: string): TaskError {
  return new TaskError('invalid', message);
}

export function checkId(id: unknown, what = 'task id'): string {
  if (typeof id !== 'string' || !isTaskId(id)) throw invalid(`invalid ${what} ${JSON.stringify(id)}: expected a number like 3 (see swarm tasks list)`);
  return id;
}

export function checkIds(ids: readonly unknown[] | undefined, what: string): string[] {
  return [...new Set((ids ?? []).map((id) => checkId(id, what)))];
}

export function checkOwner(owner: unknown): string {
  if (typeof owner !== 'string' || (owner !== LEAD_NAME && !MEMBER_NAME_RE.test(owner))) {
    throw invalid(`invalid owner ${JSON.stringify(owner)}: expected a member name (see swarm team show)`);
  }
  return owner;
}

type TextField = 'subject' | 'description' | 'activeForm';

/** What to do with a text over its cap. */
const TOO_LONG: Record<TextField, string> = {
  subject: 'keep it a short title and put the rest in the description',
  description: 'put the details in a file and name the file in the description',
  activeForm: 'a few words such as "Running tests"',
};

export function checkText(value: unknown, field: TextField, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string') throw invalid(`${field}: expected a string, got ${value === undefined ? 'nothing' : typeof value}`);
  if (required && value.trim() === '') throw invalid(`${field} is empty: give the task a short subject`);
  const max = TASK_LIMITS[field];
  if (value.length > max) throw invalid(`${field} is ${value.length} characters; the most is ${max}: ${TOO_LONG[field]}`);
  return value;
}

export function checkMetadata(value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalid('metadata: expected an object');
  let size: number;
  try {
    size = JSON.stringify(value).length;
  } catch (e) {
    throw invalid(`metadata: cannot be written as JSON (${(e as Error).message})`);
  }
  if (size > TASK_LIMITS.metadata) {
    throw invalid(`metadata is ${size} characters as JSON; the most is ${TASK_LIMITS.metadata}: keep large data in a file and put its path in metadata`);
  }
  return value as Record<string, unknown>;
}
