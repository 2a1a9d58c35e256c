// status/<name>.json (docs/protocol.md#status-files): the heartbeat and progress each teammate writes.
import * as z from 'zod';

// waiting_budget: at the team's budget (protocol/budget.ts), no model step until it is raised.
export const TeammateStateSchema = z.enum(['starting', 'working', 'idle', 'waiting_permission', 'waiting_budget', 'exiting', 'hibernating']);
export type TeammateState = z.infer<typeof TeammateStateSchema>;

export const StatusFileSchema = z.looseObject({
  name: z.string(),
  agentId: z.string().optional(),
  pid: z.number().int(),
  state: TeammateStateSchema,
  heartbeatAt: z.number(),
  startedAt: z.number().optional(),
  toolUses: z.number().int().default(0),
  inputTokens: z.number().int().default(0),
  outputTokens: z.number().int().default(0),
  /** Every step's whole prompt plus its output, summed: what a token budget counts (docs/protocol.md#spend-and-budget). */
  totalTokens: z.number().int().default(0),
  costUsd: z.number().optional(),
  activities: z.array(z.looseObject({ at: z.number(), text: z.string() })).max(5).default([]),
});
export type StatusFile = z.infer<typeof StatusFileSchema>;
