// `swarm plan <name> --approve|--reject [--feedback] [--mode]`: answer the teammate's latest plan
// approval request. The command line only; what it does is cli/handlers/plan.ts, loaded when it
// runs (the mailbox and signing would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { PlanArgs } from '../handlers/plan.js';

export const planCommand: CommandModule<GlobalArgs, PlanArgs> = {
  command: 'plan <name>',
  describe: "approve or reject a teammate's plan (its latest plan approval request)",
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'the teammate who sent the plan' })
      .option('approve', { type: 'boolean', describe: 'approve the plan: the teammate leaves plan mode' })
      .option('reject', { type: 'boolean', describe: 'reject the plan: the teammate revises it' })
      .option('feedback', { type: 'string', describe: 'what to tell the teammate' })
      .option('mode', { type: 'string', describe: 'permission mode after approval: default | acceptEdits | bypassPermissions' })
      .conflicts('approve', 'reject')
      .example('$0 plan alice --approve', "approve alice's plan")
      .example('$0 plan alice --approve --mode acceptEdits', 'approve, and let her edit files without asking')
      .example('$0 plan alice --reject --feedback "keep the public API unchanged"', 'send it back with feedback'),
  handler: async (args) => (await import('../handlers/plan.js')).plan(args),
};
