// What the environment says about the model, read before any model client is made: the model an
// agent runs when nothing names one, and the credentials the client will authenticate with. Apart
// from model-client.ts so that front ends (`swarm run`, `swarm lead --agent`) check them, and show
// the default in --help, without loading the Messages API SDK.

export const DEFAULT_MODEL = 'claude-sonnet-5-5';

/** What the model client authenticates with, from `env`; undefined when there is nothing to use. */
export function credentialsIn(env: NodeJS.ProcessEnv): { apiKey: string } | { authToken: string } | undefined {
  const key = env.ANTHROPIC_API_KEY?.trim();
  if (key) return { apiKey: key };
  const token = env.ANTHROPIC_AUTH_TOKEN?.trim();
  if (token) return { authToken: token };
  if (env.ANTHROPIC_BASE_URL?.trim()) return { apiKey: 'swarm-local-endpoint' };
  return undefined;
}

/** What to set when `env` has no model credentials. */
export const NO_CREDENTIALS = 'no model credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or ANTHROPIC_BASE_URL for a local endpoint)';

/** Whether a model client can be made from `env` (the check front ends make before creating anything). */
export function hasModelCredentials(env: NodeJS.ProcessEnv): boolean {
  return credentialsIn(env) !== undefined;
}
