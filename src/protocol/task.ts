// The shared task list's records (docs/protocol.md#task-list), field for field Claude Code's: one task per file
// `tasks/<team>/<id>.json`, ids decimal strings ("1", "2", ...). Unknown fields are kept (loose), so
// a rewrite never drops what another tool wrote. The task_assignment frame is in control.ts.
import * as z from 'zod';

/** A task id as a file name: a decimal string without leading zeros, at most 15 digits (so always a safe integer). */
export const TASK_ID_RE = /^[1-9][0-9]{0,14}$/;

/** The highest task id (the largest TASK_ID_RE admits); a number at or past it leaves no next id to issue. */
export const MAX_TASK_ID = 999_999_999_999_999;

export function isTaskId(id: string): boolean {
  return TASK_ID_RE.test(id);
}

/**
 * The most a task may be given, in characters (UTF-16 code units, as JavaScript counts). Claude Code
 * sets no cap; these are far above a title or a page of instructions, which is what it writes, and
 * keep a task small enough to send to every model that lists the tasks. Metadata counts as its JSON.
 */
export const TASK_LIMITS = { subject: 500, activeForm: 500, description: 65_536, metadata: 65_536 } as const;

export const TaskStatusSchema = z.enum(['pending', 'in_progress', 'completed']);
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** What an update may set `status` to: a task's statuses, or `deleted` (removes the file). */
export const TaskUpdateStatusSchema = z.enum(['pending', 'in_progress', 'completed', 'deleted']);
export type TaskUpdateStatus = z.infer<typeof TaskUpdateStatusSchema>;

export const TaskSchema = z.looseObject({
  id: z.string(),
  subject: z.string(),
  description: z.string(),
  activeForm: z.string().optional(),
  owner: z.string().optional(),
  status: TaskStatusSchema,
  blocks: z.array(z.string()).default([]),
  blockedBy: z.array(z.string()).default([]),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Task = z.infer<typeof TaskSchema>;

const fileSchemas = new Map<string, z.ZodType<Task>>();

/**
 * The record of the file `<id>.json`: a task whose own `id` is that id (a copy under another name is
 * not it). One schema per id, made once: zod compiles a refined object schema on its first parse
 * (~0.15 ms), which every listing of every task paid (the claim race ran 3.5 times slower).
 */
export function taskFileSchema(id: string): z.ZodType<Task> {
  let schema = fileSchemas.get(id);
  if (schema === undefined) {
    schema = TaskSchema.superRefine((t, ctx) => {
      if (t.id !== id) ctx.addIssue({ code: 'custom', path: ['id'], message: `holds task ${JSON.stringify(t.id)}, but the file is named for task ${id}` });
    });
    fileSchemas.set(id, schema);
  }
  return schema;
}
