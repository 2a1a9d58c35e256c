// What the callers of the model see of a failed call, without loading the Messages API SDK: the
// error a step ends with, and the longest wait a server may ask for. retry.ts (which needs the SDK's
// error classes) and the SDK itself are imported by model-client.ts on the first model step, so a
// teammate that has not called the model yet has loaded neither (test/cli/teammate-modules.test.ts).

/** The longest `retry-after` we honour, per wait (retry.ts, the team's backoff in rate-limit.ts). */
export const MAX_SERVER_DELAY_MS = 60_000;

/** Thrown when a model call cannot succeed: `why` says what happened, `cause` is the last error. */
export class ModelCallError extends Error {
  override readonly name = 'ModelCallError';
  constructor(
    message: string,
    readonly status: number | undefined,
    readonly aborted: boolean,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}
