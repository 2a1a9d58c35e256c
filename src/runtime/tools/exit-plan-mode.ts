// ExitPlanMode {plan}: in plan mode, send the plan to team-lead as a `plan_approval_request` and wait
// for its signed `plan_approval_response` (plan-approval.ts). Approved: plan mode ends; rejected:
// the feedback comes back as the tool result, so the model can revise and try again.
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { defineTool } from './types.js';

const ExitPlanModeInput = z.object({
  plan: z.string().min(1).describe('Your plan, in Markdown: what you will change and how, step by step'),
});

export const exitPlanModeTool = defineTool({
  name: 'ExitPlanMode',
  kind: 'plan',
  description:
    'In plan mode: submit your plan to the team lead for approval and wait for the answer. ' +
    'Until it is approved you may only use read-only tools (Read, Glob, Grep, SendMessage).',
  schema: ExitPlanModeInput,
  prepare: async (input, ctx) => {
    if (ctx.plan.mode !== 'plan') throw new SwarmError('invalid_input', 'you are not in plan mode; just go ahead with the work');
    return {
      summary: `${input.plan.split('\n').length} line plan`,
      execute: (signal) => ctx.plan.submit(input.plan, signal),
    };
  },
});
