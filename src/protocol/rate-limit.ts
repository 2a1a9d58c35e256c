// teams/<team>/ratelimit.json: the team's shared rate-limit backoff (runtime/rate-limit.ts). One
// record, times in epoch ms: every swarm-runtime member waits until `until` before its next model
// attempt; `by` is the member whose call got the `status` (429) and `at` when it wrote the record.
import * as z from 'zod';

export const RateLimitSchema = z.object({
  until: z.number().int().nonnegative(),
  by: z.string().min(1),
  status: z.number().int(),
  at: z.number().int().nonnegative(),
});
export type RateLimit = z.infer<typeof RateLimitSchema>;
