// What `swarm plan <name> --approve|--reject [--feedback] [--mode]` does (the command line is
// commands/plan.ts): answer the teammate's latest plan approval request with a signed
// plan_approval_response (permissions/plan-answer.ts).
import { SwarmError } from '../../protocol/errors.js';
import { answerPlan } from '../../permissions/plan-answer.js';
import { printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';

export interface PlanArgs extends GlobalArgs {
  name: string;
  approve?: boolean;
  reject?: boolean;
  feedback?: string;
  mode?: string;
}

export async function plan(args: PlanArgs): Promise<void> {
  if (!args.approve && !args.reject) throw new SwarmError('invalid_input', 'say --approve or --reject');
  const result = await answerPlan(await requireTeam(args), args.name, {
    approve: args.approve === true,
    ...(args.feedback ? { feedback: args.feedback } : {}),
    ...(args.mode !== undefined ? { mode: args.mode } : {}),
  });
  if (args.json) return printJson(result);
  const what = result.approved ? chalk.green('approved') : chalk.red('rejected');
  println(`${result.to}'s plan ${what}${result.permissionMode ? ` (mode ${result.permissionMode})` : ''} ${chalk.dim(result.requestId)}`);
}
