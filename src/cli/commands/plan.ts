// `swarm plan <name> --approve|--reject [--feedback] [--mode]`: answer the teammate's latest plan
// approval request with a signed plan_approval_response (permissions/plan-answer.ts).
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { answerPlan } from '../../permissions/plan-answer.js';
import { printJson, println, requireTeam, type GlobalArgs } from '../context.js';
import { chalk } from '../output/render.js';

interface PlanArgs extends GlobalArgs {
  name: string;
  approve?: boolean;
  reject?: boolean;
  feedback?: string;
  mode?: string;
}

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
  handler: async (args) => {
    if (!args.approve && !args.reject) throw new SwarmError('invalid_input', 'say --approve or --reject');
    const result = await answerPlan(await requireTeam(args), args.name, {
      approve: args.approve === true,
      ...(args.feedback ? { feedback: args.feedback } : {}),
      ...(args.mode !== undefined ? { mode: args.mode } : {}),
    });
    if (args.json) return printJson(result);
    const what = result.approved ? chalk.green('approved') : chalk.red('rejected');
    println(`${result.to}'s plan ${what}${result.permissionMode ? ` (mode ${result.permissionMode})` : ''} ${chalk.dim(result.requestId)}`);
  },
};
