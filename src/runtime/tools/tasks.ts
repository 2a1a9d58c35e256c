// The team's task list as tools (docs/protocol.md#task-list), with Claude Code's names, input fields and result text:
//   TaskCreate {subject, description, activeForm?, metadata?}  → "Task #N created successfully: <subject>"
//   TaskGet {taskId}                                           → "Task #N: <subject>\nStatus: ..\nDescription: .."
//   TaskList {}                                                → "#N [status] subject (owner) [blocked by #a, #b]" per task
//   TaskUpdate {taskId, subject?, description?, activeForm?, status?, addBlocks?, addBlockedBy?, owner?, metadata?}
//                                                              → "Updated task #N owner, status"
// Taking a task (the result would be: owned by this teammate and in_progress) goes through
// `TaskList.claim`, so the claim rules hold (another owner, completed, an open blocker); like Claude
// Code, `status: "in_progress"` on an unowned task without `owner` takes it for the caller. The
// caller is `ctx.tasks.self` (team-lead for the agent lead), and the task list's ownership rules
// hold: an owned task is changed only by its owner or team-lead (tasks/task-list). Texts have the
// caps of TASK_LIMITS, stated in the schema the model sees. Every refusal is a thrown error: the
// tool runner returns it as an is_error result the model can act on.
// Claude Code's hooks (runtime/hooks.ts, docs/hooks.md), when `ctx.tasks.hooks` is set: a TaskCreated
// hook that blocks removes the new task again and its feedback is the (is_error) result; a
// TaskCompleted hook runs before a change to completed is written, and one that blocks leaves the
// task as it was, its feedback the result.
// Kind `message`: no permission is asked (team coordination, like SendMessage).
import * as z from 'zod';
import { sameName } from '../../protocol/names.js';
import { TASK_LIMITS, type Task } from '../../protocol/task.js';
import { isInternalTask, TaskError } from '../../tasks/index.js';
import { defineTool, type TaskWork } from './types.js';

const TaskId = z
  .string()
  .regex(/^#?\d+$/, 'expected a task id like "3"')
  .transform((s) => s.replace(/^#/, ''))
  .describe('The ID of the task');

const Metadata = z.record(z.string(), z.unknown()).describe('Arbitrary metadata to attach to the task (a null value removes a key)');

const Subject = z.string().min(1).max(TASK_LIMITS.subject);
const Description = z.string().max(TASK_LIMITS.description);
const ActiveForm = z.string().max(TASK_LIMITS.activeForm);

const CreateInput = z.object({
  subject: Subject.describe('A brief title for the task'),
  description: Description.describe('What needs to be done'),
  activeForm: ActiveForm.optional().describe('Present continuous form shown while in_progress (e.g. "Running tests")'),
  metadata: Metadata.optional(),
});

const GetInput = z.object({ taskId: TaskId });

const ListInput = z.object({});

const UpdateInput = z.object({
  taskId: TaskId,
  subject: Subject.optional().describe('New subject for the task'),
  description: Description.optional().describe('New description for the task'),
  activeForm: ActiveForm.optional().describe('Present continuous form shown while in_progress'),
  status: z.enum(['pending', 'in_progress', 'completed', 'deleted']).optional().describe('New status for the task ("deleted" removes it)'),
  addBlocks: z.array(TaskId).optional().describe('Task IDs that this task blocks'),
  addBlockedBy: z.array(TaskId).optional().describe('Task IDs that block this task'),
  owner: z.string().optional().describe('New owner for the task (a member name)'),
  metadata: Metadata.optional(),
});
type UpdateInput = z.infer<typeof UpdateInput>;

/**
 * A TaskError as the text the model reads: the task list's one-line reason, its CLI hints turned
 * into the tool that does the same (`swarm tasks list` → TaskList); anything else unchanged.
 */
function refusal(e: unknown): unknown {
  if (!(e instanceof TaskError)) return e;
  const text = e.message.replace(/swarm tasks list|swarm tasks add/g, (cli) => (cli.endsWith('add') ? 'TaskCreate' : 'TaskList'));
  return new Error(text, { cause: e });
}

async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    throw refusal(e);
  }
}

/** One TaskList line, Claude Code's format; `open` = ids of tasks not completed. */
export function taskLine(t: Task, open: ReadonlySet<string>): string {
  const owner = t.owner ? ` (${t.owner})` : '';
  const blockers = t.blockedBy.filter((id) => open.has(id));
  return `#${t.id} [${t.status}] ${t.subject}${owner}${blockers.length > 0 ? ` [blocked by ${blockers.map((b) => `#${b}`).join(', ')}]` : ''}`;
}

/** TaskGet's text, Claude Code's format plus the owner. */
export function taskDetails(t: Task): string {
  const lines = [`Task #${t.id}: ${t.subject}`, `Status: ${t.status}`];
  if (t.owner) lines.push(`Owner: ${t.owner}`);
  lines.push(`Description: ${t.description}`);
  if (t.blockedBy.length > 0) lines.push(`Blocked by: ${t.blockedBy.map((b) => `#${b}`).join(', ')}`);
  if (t.blocks.length > 0) lines.push(`Blocks: ${t.blocks.map((b) => `#${b}`).join(', ')}`);
  return lines.join('\n');
}

/** A TaskCreated hook blocked: remove the new task again (Claude Code does) and fail with the feedback. */
async function withdraw(tasks: TaskWork, id: string, feedback: string): Promise<never> {
  try {
    await tasks.list.update(id, { status: 'deleted' }, tasks.self);
  } catch (e) {
    throw new Error(`${feedback}\n(task #${id} could not be removed again: ${e instanceof Error ? e.message : String(e)})`, { cause: e });
  }
  throw new Error(feedback);
}

export const taskCreateTool = defineTool({
  name: 'TaskCreate',
  kind: 'message',
  description:
    "Create a task in the team's shared task list (everyone on the team sees it). Give a short subject and a description " +
    'of what needs to be done. New tasks are pending and unowned; any idle teammate may claim one.',
  schema: CreateInput,
  prepare: async (input, ctx) => ({
    summary: input.subject,
    execute: async () => {
      const t = await guarded(() =>
        ctx.tasks.list.create(
          {
            subject: input.subject,
            description: input.description,
            ...(input.activeForm !== undefined ? { activeForm: input.activeForm } : {}),
            ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
          },
          ctx.tasks.self,
        ),
      );
      const feedback = await ctx.tasks.hooks?.taskCreated(t);
      if (feedback !== undefined) await withdraw(ctx.tasks, t.id, feedback);
      return { content: `Task #${t.id} created successfully: ${t.subject}` };
    },
  }),
});

export const taskGetTool = defineTool({
  name: 'TaskGet',
  kind: 'message',
  description: "Get a task from the team's task list by its ID: subject, status, owner, description, and what blocks it / what it blocks.",
  schema: GetInput,
  prepare: async (input, ctx) => ({
    summary: `#${input.taskId}`,
    execute: async () => ({ content: taskDetails(await guarded(() => ctx.tasks.list.get(input.taskId))) }),
  }),
});

export const taskListTool = defineTool({
  name: 'TaskList',
  kind: 'message',
  description:
    "List every task in the team's task list: one line per task with id, status, subject, owner and open blockers. " +
    'Available work is a pending task with no owner and no open blocker.',
  schema: ListInput,
  prepare: async (_input, ctx) => ({
    summary: 'all tasks',
    execute: async () => {
      const { tasks, corrupt, skipped } = await ctx.tasks.list.list();
      const shown = tasks.filter((t) => !isInternalTask(t));
      const open = new Set(shown.filter((t) => t.status !== 'completed').map((t) => t.id));
      const lines = shown.map((t) => taskLine(t, open));
      for (const c of corrupt) lines.push(`(a corrupt task file was kept aside at ${c.keptAt}: ${c.error})`);
      for (const s of skipped) lines.push(`(not a task: ${s.problem})`);
      return { content: lines.length > 0 ? lines.join('\n') : 'No tasks found' };
    },
  }),
});

/** The fields of `input` that differ from `cur`, in Claude Code's order and names. */
function changedFields(input: UpdateInput, cur: Task): string[] {
  const out: string[] = [];
  if (input.subject !== undefined && input.subject !== cur.subject) out.push('subject');
  if (input.description !== undefined && input.description !== cur.description) out.push('description');
  if (input.activeForm !== undefined && input.activeForm !== cur.activeForm) out.push('activeForm');
  if (input.owner !== undefined && (input.owner || undefined) !== cur.owner) out.push('owner');
  if (input.metadata !== undefined) out.push('metadata');
  if (input.status !== undefined && input.status !== cur.status) out.push('status');
  if (input.addBlocks?.some((id) => !cur.blocks.includes(id))) out.push('blocks');
  if (input.addBlockedBy?.some((id) => !cur.blockedBy.includes(id))) out.push('blockedBy');
  return out;
}

const COMPLETED_NOTE =
  '\n\nTask completed. Report to team-lead if your instructions say so, then end your turn: you are given the next available task automatically (or call TaskList to choose one).';

export const taskUpdateTool = defineTool({
  name: 'TaskUpdate',
  kind: 'message',
  description:
    'Update a task in the team\'s task list. Take a task with {"taskId": "3", "owner": "<your name>", "status": "in_progress"} ' +
    '(refused if someone else owns it, it is completed, or an open task blocks it); mark it done with {"taskId": "3", "status": "completed"} ' +
    'when the work is fully finished; "deleted" removes a task. Setting owner to a teammate assigns it to them (they are told). ' +
    'A task that has an owner can be changed only by its owner or team-lead, and only team-lead gives it to somebody else.',
  schema: UpdateInput,
  prepare: async (input, ctx) => ({
    summary: `#${input.taskId}${input.status ? ` ${input.status}` : ''}${input.owner !== undefined ? ` owner ${input.owner || '(none)'}` : ''}`,
    execute: async () => {
      const { list, self } = ctx.tasks;
      const id = input.taskId;
      const cur = await guarded(() => list.get(id));
      // Claude Code's rule: in_progress on an unowned task, with no owner given, takes it. A new
      // owner must be on the roster (checked before anything is written: they are told).
      const named = input.owner ? await ctx.tasks.member(input.owner) : input.owner;
      const owner = named ?? (input.status === 'in_progress' && !cur.owner ? self : undefined);
      const fields = changedFields({ ...input, ...(owner !== undefined ? { owner } : {}) }, cur);
      const status = input.status ?? cur.status;
      // Starting a task that is (or becomes) one's own goes through the claim rules, whether or not
      // the owner is named again: a task assigned to it and blocked by an open one is refused.
      const owns = owner ?? cur.owner;
      const takes = owns !== undefined && sameName(owns, self) && status === 'in_progress' && !(cur.owner !== undefined && sameName(cur.owner, self) && cur.status === 'in_progress');
      if (input.status === 'completed' && cur.status !== 'completed') {
        // A TaskCompleted hook that blocks: nothing of this update is written, its feedback is the result.
        const feedback = await ctx.tasks.hooks?.taskCompleted(cur);
        if (feedback !== undefined) throw new Error(feedback);
      }
      if (takes) await guarded(() => list.claim(id, self));
      const rest = {
        ...(input.subject !== undefined ? { subject: input.subject } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.activeForm !== undefined ? { activeForm: input.activeForm } : {}),
        ...(input.metadata !== undefined ? { metadata: input.metadata } : {}),
        ...(input.addBlocks !== undefined ? { addBlocks: input.addBlocks } : {}),
        ...(input.addBlockedBy !== undefined ? { addBlockedBy: input.addBlockedBy } : {}),
        ...(!takes && owner !== undefined ? { owner: owner === '' ? null : owner } : {}),
        ...(!takes && input.status !== undefined ? { status: input.status } : {}),
      };
      if (Object.keys(rest).length > 0) await guarded(() => list.update(id, rest, self));
      if (input.status === 'completed' && cur.status !== 'completed') ctx.tasks.completed(id);
      if (input.status === 'deleted') return { content: `Updated task #${id} deleted` };
      if (fields.length === 0) return { content: `Task #${id} is unchanged` };
      return { content: `Updated task #${id} ${fields.join(', ')}${input.status === 'completed' && cur.status !== 'completed' ? COMPLETED_NOTE : ''}` };
    },
  }),
});

export const TASK_TOOLS = [taskCreateTool, taskGetTool, taskListTool, taskUpdateTool];
