// `swarm tasks [list] | add | show | update | claim` (docs/protocol.md#task-list): the team's shared
// task list from the leader's side. The command line only; what each does is cli/handlers/tasks.ts,
// loaded when it runs (the task files and the mailbox would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { AddArgs, ClaimArgs, IdArgs, ListArgs, UpdateArgs } from '../handlers/tasks.js';

const handlers = () => import('../handlers/tasks.js');

const list: CommandModule<GlobalArgs, ListArgs> = {
  command: ['list', '$0'],
  describe: 'every task: id, status, owner, subject, open blockers; and the progress',
  builder: (y) =>
    y
      .option('status', { type: 'string', describe: 'only the tasks with this status: pending, in_progress or completed' })
      .example('$0 tasks --status pending', 'what is still to do'),
  handler: async (args) => (await handlers()).tasksList(args),
};

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
  handler: async (args) => (await handlers()).tasksAdd(args),
};

const show: CommandModule<GlobalArgs, IdArgs> = {
  command: 'show <id>',
  describe: 'one task in full',
  builder: (y) => y.positional('id', { type: 'string', demandOption: true, describe: 'task id' }).example('$0 tasks show 3 --json | jq .blockedBy', 'its blockers'),
  handler: async (args) => (await handlers()).tasksShow(args),
};

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
  handler: async (args) => (await handlers()).tasksUpdate(args),
};

const claim: CommandModule<GlobalArgs, ClaimArgs> = {
  command: 'claim <id>',
  describe: 'claim a task for a member: owner + in_progress, refused (exit 1) when taken, completed or blocked',
  builder: (y) =>
    y
      .positional('id', { type: 'string', demandOption: true, describe: 'task id' })
      .option('owner', { type: 'string', demandOption: true, describe: 'the member who takes it' })
      .example('$0 tasks claim 3 --owner alice', 'exit 1 with the reason if someone else has it'),
  handler: async (args) => (await handlers()).tasksClaim(args),
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
