// What `swarm tasks [list] | add | show | update | claim` do (docs/protocol.md#task-list; the
// command line is commands/tasks.ts): the team's shared task list from the leader's side: every
// change is made as team-lead (the person leads), so the ownership rules let it change and reassign
// any task. Exit 0 done, 1 a refused claim (the reason on the one error line), 2 bad input (an
// unknown task, a cycle, a bad id, owner or status). Setting an owner other than team-lead sends
// that member a task_assignment frame, written as the signed leader like every leader entry. Task
// names that are not read (odd entries) are warned about on stderr, by name.
import { encodeControl } from '../../protocol/control.js';
import { isSwarmError, SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { TaskStatusSchema, TaskUpdateStatusSchema, type TaskStatus, type TaskUpdateStatus } from '../../protocol/task.js';
import { sendMessage } from '../../mailbox/send.js';
import { CLAIM_REFUSALS, isTaskError, TaskList } from '../../tasks/index.js';
import { readTeam, requireMember } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { openMailbox, printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { fail } from '../fail.js';
import { chalk } from '../output/render.js';
import { renderTask, renderTaskTable } from '../output/tasks.js';
import { cliIo } from '../io.js';

function warn(message: string): void {
  cliIo().stderr.write(`${chalk.yellow('swarm:')} ${message}\n`);
}

/** The team's list, for an existing team, whose task_assignment frames go out as the signed leader. */
async function openList(args: GlobalArgs): Promise<{ team: Team; list: TaskList }> {
  const team = await requireTeam(args);
  await readTeam(team); // not_found for a team that does not exist, before any file is made
  const list = new TaskList(team, {
    notify: async (to, frame) => {
      await sendMessage(await openMailbox(team), { to, text: encodeControl(frame) });
    },
    tell: async (to, text) => {
      await sendMessage(await openMailbox(team), { to, text });
    },
  });
  return { team, list };
}

/** An owner must be on the roster (or team-lead), checked before anything is written; its name as the roster spells it. */
async function rosterName(team: Team, owner: string): Promise<string> {
  if (owner === LEAD_NAME) return owner;
  try {
    return requireMember(await readTeam(team), owner).name;
  } catch (e) {
    if (isSwarmError(e, 'not_found')) throw new SwarmError('invalid_input', `--owner: ${e.message}`);
    throw e;
  }
}

/**
 * `--status` checked here rather than by yargs `choices`, whose refusal is two lines without a fix:
 * one line naming the values and an example.
 */
function statusFlag<S extends string>(value: unknown, schema: { options: readonly S[]; safeParse(v: unknown): { success: boolean } }, example: string): S | undefined {
  if (value === undefined) return undefined;
  if (!schema.safeParse(value).success) {
    const all = schema.options;
    throw new SwarmError('invalid_input', `--status ${JSON.stringify(value)}: expected ${all.slice(0, -1).join(', ')} or ${all.at(-1)} (e.g. ${example})`);
  }
  return value as S;
}

/** `--blocked-by 1,2 --blocked-by 3` → ['1', '2', '3']. */
function idList(value: unknown): string[] {
  const all = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  return all.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '');
}

/** Run a handler; a TaskError exits 1 for a refused claim, 2 for bad input (other errors go to main's handler). */
function guarded<A>(run: (args: A) => Promise<void>): (args: A) => Promise<void> {
  return async (args) => {
    try {
      await run(args);
    } catch (e) {
      if (isTaskError(e)) fail(e.message, CLAIM_REFUSALS.includes(e.kind) ? 1 : 2);
      throw e;
    }
  };
}

export interface ListArgs extends GlobalArgs {
  status?: string;
}

export interface AddArgs extends GlobalArgs {
  subject: string;
  description?: string;
  'active-form'?: string;
  'blocked-by'?: string | string[];
  owner?: string;
}

export interface IdArgs extends GlobalArgs {
  id: string;
}

export interface UpdateArgs extends IdArgs {
  status?: string;
  owner?: string | boolean;
  subject?: string;
  description?: string;
  'active-form'?: string;
  'add-blocked-by'?: string | string[];
  'add-blocks'?: string | string[];
}

export interface ClaimArgs extends IdArgs {
  owner: string;
}

export const tasksList = guarded(async (args: ListArgs) => {
  const status = statusFlag<TaskStatus>(args.status, TaskStatusSchema, 'swarm tasks --status pending');
  const { list } = await openList(args);
  const { tasks, corrupt, skipped } = await list.list();
  for (const c of corrupt) warn(`${c.file} was corrupt (${c.error}); kept as ${c.keptAt}`);
  for (const s of skipped) warn(`warning: ${s.problem}; ${s.fix}`);
  const shown = status === undefined ? tasks : tasks.filter((t) => t.status === status);
  if (args.json) return printJson(shown);
  for (const l of renderTaskTable(tasks, shown)) println(l);
});

export const tasksAdd = guarded(async (args: AddArgs) => {
  const { team, list } = await openList(args);
  const owner = args.owner ? await rosterName(team, args.owner) : undefined;
  const task = await list.create(
    {
      subject: String(args.subject),
      description: args.description ?? '',
      ...(args['active-form'] !== undefined ? { activeForm: args['active-form'] } : {}),
      ...(owner !== undefined ? { owner } : {}),
      blockedBy: idList(args['blocked-by']),
    },
    LEAD_NAME,
  );
  if (args.json) return printJson(task);
  println(task.id);
});

export const tasksShow = guarded(async (args: IdArgs) => {
  const { list } = await openList(args);
  const task = await list.get(String(args.id));
  if (args.json) return printJson(task);
  for (const l of renderTask(task)) println(l);
});

export const tasksUpdate = guarded(async (args: UpdateArgs) => {
  const status = statusFlag<TaskUpdateStatus>(args.status, TaskUpdateStatusSchema, 'swarm tasks update 3 --status completed');
  const { team, list } = await openList(args);
  const owner = args.owner === undefined ? undefined : args.owner === false || args.owner === '' ? null : await rosterName(team, String(args.owner));
  const patch = {
    ...(status !== undefined ? { status } : {}),
    ...(owner !== undefined ? { owner } : {}),
    ...(args.subject !== undefined ? { subject: args.subject } : {}),
    ...(args.description !== undefined ? { description: args.description } : {}),
    ...(args['active-form'] !== undefined ? { activeForm: args['active-form'] } : {}),
    addBlockedBy: idList(args['add-blocked-by']),
    addBlocks: idList(args['add-blocks']),
  };
  const task = await list.update(String(args.id), patch, LEAD_NAME);
  if (args.json) return printJson(task ?? { id: String(args.id), deleted: true });
  println(task ? `updated task ${task.id}: ${task.status}${task.owner ? `, ${task.owner}` : ''}` : `deleted task ${args.id}`);
});

export const tasksClaim = guarded(async (args: ClaimArgs) => {
  const { team, list } = await openList(args);
  const task = await list.claim(String(args.id), await rosterName(team, args.owner), LEAD_NAME);
  if (args.json) return printJson(task);
  println(`${task.owner} claimed task ${task.id}: ${task.subject}`);
});
