// The model: one streaming Messages API call per agent step, through @anthropic-ai/sdk, with our own
// retries (retry.ts; the SDK's are off so each attempt is logged and shown).
//
// Connection: baseURL from ANTHROPIC_BASE_URL; credentials ANTHROPIC_API_KEY, else
// ANTHROPIC_AUTH_TOKEN (with neither, only a custom ANTHROPIC_BASE_URL is allowed: a local
// endpoint such as the stand-in gets a placeholder key). Every request carries `x-swarm-agent:
// <name>` so one stand-in server can script several teammates.
// Prompt caching: the stable prefix (tools + system) ends in a cache breakpoint on the system block,
// and the newest user block carries a second one, so each step re-reads the conversation from cache.
// Team backoff (optional, `teamBackoff`): every attempt first waits out the team's rate limit, and a
// 429 is recorded for the whole team (rate-limit.ts); without it the client retries on its own.
// Lazy: the SDK (about 330 modules with its tracing API), its HTTP client (model-fetch.ts: node-fetch,
// not Node's fetch) and retry.ts are imported on the first step, not with this module, so a teammate
// waiting for its first message has loaded none of them (issue 35; test/cli/teammate-modules.test.ts).
// Credentials are still checked when the client is made.
import type Anthropic from '@anthropic-ai/sdk';
import type { ContentBlockParam, Message, MessageParam, TextBlockParam, Tool } from '@anthropic-ai/sdk/resources/messages';
import { SwarmError } from '../protocol/errors.js';
import { credentialsIn, NO_CREDENTIALS } from './model-env.js';
import { modelFetch } from './model-fetch.js';
import type { TeamBackoff } from './rate-limit.js';
import type { RetryHooks, RetryInfo, RetryPolicy } from './retry.js';

export const AGENT_HEADER = 'x-swarm-agent';
const EPHEMERAL = { type: 'ephemeral' as const };

export interface ModelClientOptions {
  model: string;
  maxTokens: number;
  agentName: string;
  env: NodeJS.ProcessEnv;
  retry: RetryPolicy;
  /** Custom fetch (tests, proxies); default node-fetch (model-fetch.ts). */
  fetch?: typeof fetch;
  /** The team's shared rate-limit backoff (createTeamBackoff); absent, 429s are waited out alone. */
  teamBackoff?: TeamBackoff;
}

export interface StepRequest {
  system: string;
  tools: Tool[];
  messages: MessageParam[];
}

export interface StepHooks {
  signal?: AbortSignal;
  onText?: (delta: string) => void;
  onRetry?: (info: RetryInfo) => void;
  /** Called when an attempt starts over after a failure (text already shown is void). */
  onRestart?: () => void;
}

function credentials(env: NodeJS.ProcessEnv): { apiKey: string } | { authToken: string } {
  const found = credentialsIn(env);
  if (found === undefined) throw new SwarmError('invalid_input', NO_CREDENTIALS);
  return found;
}

/** The request with cache breakpoints added (the stored conversation is not modified). */
export function withCacheBreakpoints(req: StepRequest): { system: TextBlockParam[]; tools?: Tool[]; messages: MessageParam[] } {
  const system: TextBlockParam[] = [{ type: 'text', text: req.system, cache_control: EPHEMERAL }];
  const messages = req.messages.slice();
  const last = messages.at(-1);
  if (last && last.role === 'user' && Array.isArray(last.content) && last.content.length > 0) {
    const content = last.content.slice();
    const block = content[content.length - 1]!;
    if (block.type === 'text' || block.type === 'tool_result') {
      content[content.length - 1] = { ...block, cache_control: EPHEMERAL } as ContentBlockParam;
      messages[messages.length - 1] = { role: 'user', content };
    }
  }
  return { system, ...(req.tools.length > 0 ? { tools: req.tools } : {}), messages }; // no tools: none sent (a summary request)
}

export class ModelClient {
  private readonly clientOptions: ConstructorParameters<typeof Anthropic>[0];
  /** The SDK client, made on the first step. */
  private client: Promise<Anthropic> | undefined;

  constructor(private readonly opts: ModelClientOptions) {
    const baseURL = opts.env.ANTHROPIC_BASE_URL?.trim();
    this.clientOptions = {
      ...credentials(opts.env),
      ...(baseURL ? { baseURL } : {}),
      maxRetries: 0,
      defaultHeaders: { [AGENT_HEADER]: opts.agentName },
    };
  }

  private sdkClient(): Promise<Anthropic> {
    this.client ??= Promise.all([import('@anthropic-ai/sdk'), this.opts.fetch ?? modelFetch()]).then(
      ([{ default: Sdk }, fetch]) => new Sdk({ ...this.clientOptions, fetch }),
    );
    return this.client;
  }

  get model(): string {
    return this.opts.model;
  }

  /** A client for `model` with everything else the same (a subagent's own model); this one when it is the same. */
  withModel(model: string): ModelClient {
    return model === this.opts.model ? this : new ModelClient({ ...this.opts, model });
  }

  /** One model step, streamed; retried per retry.ts; throws ModelCallError when it cannot succeed. */
  async step(req: StepRequest, hooks: StepHooks = {}): Promise<Message> {
    const body = withCacheBreakpoints(req);
    const [client, { withRetries }] = await Promise.all([this.sdkClient(), import('./retry.js')]);
    return withRetries(
      async (attempt) => {
        if (attempt > 1) hooks.onRestart?.();
        const stream = client.messages.stream(
          { model: this.opts.model, max_tokens: this.opts.maxTokens, ...body },
          hooks.signal ? { signal: hooks.signal } : {},
        );
        if (hooks.onText) stream.on('text', hooks.onText);
        return stream.finalMessage();
      },
      this.opts.retry,
      this.retryHooks(hooks),
    );
  }

  /** The step's hooks, with the team's backoff (when given) before every attempt and after every failure. */
  private retryHooks(hooks: StepHooks): RetryHooks {
    const out: RetryHooks = hooks.signal ? { signal: hooks.signal } : {};
    const team = this.opts.teamBackoff;
    if (team) {
      out.beforeAttempt = () => team.beforeAttempt(hooks.signal);
      out.onRetry = async (info) => {
        hooks.onRetry?.(info);
        await team.failed(info);
      };
    } else if (hooks.onRetry) {
      out.onRetry = hooks.onRetry;
    }
    return out;
  }
}
