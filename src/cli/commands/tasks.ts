// `swarm tasks [list] | add | show | update | claim` (docs/protocol.md#task-list): the team's shared task list from
// the leader's side: every change is made as team-lead (the person leads), so the ownership rules
// let it change and reassign any task. Exit 0 done, 1 a refused claim (the reason on the one error
// line), 2 bad input (an unknown task, a cycle, a bad id, owner or status). Setting an owner other
// than team-lead sends that member a task_assignment frame, written as the signed leader like every
// leader entry. Task names that are not read (odd entries) are warned about on stderr, by name.
import type { CommandModule } from 'yargs';
import { encodeControl } from '../../protocol/control.js';
import { isSwarmError, SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { TaskStatusSchema, TaskUpdateStatusSchema, type TaskStatus, type TaskUpdateStatus } from '../../protocol/task.js';
import { sendMessage } from '../../mailbox/send.js';
import { CLAIM_REFUSALS, isTaskError, TaskList } from '../../tasks/index.js';
import { readTeam, requireMember } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { openMailbox, printJson, println, requireTeam, type GlobalArgs } from '../context.js';
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

interface ListArgs extends GlobalArgs {
  status?: string;
}

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: ['list', '$0'],
  describe: 'every task: id, status, owner, subject, open blockers; and the progress',
  builder: (y) =>
    y
      .option('status', { type: 'string', describe: 'only the tasks with this status: pending, in_progress or completed' })
      .example('$0 tasks --status pending', 'what is still to do'),
  handler: guarded(async (args) => {
    const status = statusFlag<TaskStatus>(args.status, TaskStatusSchema, 'swarm tasks --status pending');
    const { list } = await openList(args);
    const { tasks, corrupt, skipped } = await list.list();
    for (const c of corrupt) warn(`${c.file} was corrupt (${c.error}); kept as ${c.keptAt}`);
    for (const s of skipped) warn(`warning: ${s.problem}; ${s.fix}`);
    const shown = status === undefined ? tasks : tasks.filter((t) => t.status === status);
    if (args.json) return printJson(shown);
    for (const l of renderTaskTable(tasks, shown)) println(l);
  }),
};

interface AddArgs extends GlobalArgs {
  subject: string;
  description?: string;
  'active-form'?: string;
  'blocked-by'?: string | string[];
  owner?: string;
}

const add: CommandModule<GlobalArgs, AddArgs> = {
  command: 'add <subject>',
  describe: 'add a task (pending); prints its id',
  builder: (y) =>
    y
      .positional('subject', { type: 'string', demandOption: true, describe: 'a short imperative title' })
      .option('description', { alias: 'd', type: 'string', describe: 'what to do, in full' })
      .option('active-form', { type: 'string', describe: 'the subject in -ing form, shown while it is worked on' })
      .option('blocked-by', { type: 'string', describe: 'ids of tasks that must be completed first (1,2)' })
      .option('owner', { type: 'string', describe: 'assign it to a member (sends a task_assignment)' })
      .example('$0 tasks add "Write the parser" -d "src/parse.ts, with tests"', 'prints the new id')
      .example('$0 tasks add "Review the parser" --blocked-by 1 --owner bob', 'claimable once task 1 is completed'),
  handler: guarded(async (args) => {
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
  }),
};

interface IdArgs extends GlobalArgs {
  id: string;
}

const show: CommandModule<GlobalArgs, IdArgs> = {
  command: 'show <id>',
  describe: 'one task in full',
  builder: (y) => y.positional('id', { type: 'string', demandOption: true, describe: 'task id' }).example('$0 tasks show 3 --json | jq .blockedBy', 'its blockers'),
  handler: guarded(async (args) => {
    const { list } = await openList(args);
    const task = await list.get(String(args.id));
    if (args.json) return printJson(task);
    for (const l of renderTask(task)) println(l);
  }),
};

interface UpdateArgs extends IdArgs {
  status?: string;
  owner?: string | boolean;
  subject?: string;
  description?: string;
  'active-form'?: string;
  'add-blocked-by'?: string | string[];
  'add-blocks'?: string | string[];
}

const update: CommandModule<GlobalArgs, UpdateArgs> = {
  command: 'update <id>',
  describe: 'change a task (the leader may reassign it); --status deleted removes it',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'task id' })
      .option('status', { type: 'string', describe: 'new status: pending, in_progress, completed, or deleted (removes it)' })
      .option('owner', { type: 'string', describe: 'new owner (sends a task_assignment); --owner "" or --no-owner clears it' })
      .option('subject', { type: 'string', describe: 'new subject' })
      .option('description', { alias: 'd', type: 'string', describe: 'new description' })
      .option('active-form', { type: 'string', describe: 'new active form' })
      .option('add-blocked-by', { type: 'string', describe: 'ids that must be completed first (1,2)' })
      .option('add-blocks', { type: 'string', describe: 'ids that wait for this one (4,5)' })
      .example('$0 tasks update 3 --owner carol', 'reassign (carol gets a task_assignment)')
      .example('$0 tasks update 3 --status completed', 'mark it done')
      .example('$0 tasks update 4 --add-blocked-by 2,3', 'task 4 waits for 2 and 3')
      .example('$0 tasks update 3 --status deleted', 'remove it (its id is never reused)'),
  handler: guarded(async (args) => {
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
  }),
};

interface ClaimArgs extends IdArgs {
  owner: string;
}

const claim: CommandModule<GlobalArgs, ClaimArgs> = {
  command: 'claim <id>',
  describe: 'claim a task for a member: owner + in_progress, refused (exit 1) when taken, completed or blocked',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'task id' })
      .option('owner', { type: 'string', demandOption: true, describe: 'the member who takes it' })
      .example('$0 tasks claim 3 --owner alice', 'exit 1 with the reason if someone else has it'),
  handler: guarded(async (args) => {
    const { team, list } = await openList(args);
    const task = await list.claim(String(args.id), await rosterName(team, args.owner), LEAD_NAME);
    if (args.json) return printJson(task);
    println(`${task.owner} claimed task ${task.id}: ${task.subject}`);
  }),
};

export const tasksCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'tasks',
  describe: "the team's shared task list (Claude Code's files)",
  builder: (y) =>
    y
      .command(list)
      .command(add)
      .command(show)
      .command(update)
      .command(claim)
      .example('$0 tasks', 'the table and the progress (3/7 done)')
      .example('$0 tasks --json | jq -r \'.[] | select(.status != "completed") | "\\(.id) \\(.subject)"\'', 'open tasks as data')
      .example('$0 tasks add "Write the parser"', 'prints the new id')
      .example('$0 tasks claim 1 --owner alice', 'exit 1 with the reason when refused')
      .example('$0 tasks update 1 --status completed', 'mark it done'),
  handler: () => undefined,
};
