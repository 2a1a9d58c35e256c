// The stand-in Messages API driven by the real @anthropic-ai/sdk client: streaming and JSON
// replies, tool_use with partial JSON, per-agent cursors, injected errors and disconnects, request
// recording, script validation, and the CLI entry as a child process. No network beyond 127.0.0.1.

import Anthropic from '@anthropic-ai/sdk';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterEach, describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import {
  startMessagesServer,
  type MessagesServer,
  type ScriptInput,
  type StepInput,
} from '../../src/standin/messages-server.js';
import { parseScript } from '../../src/standin/script.js';
import { tempRoot } from '../support/tmp-root.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  const errors: unknown[] = [];
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch((e: unknown) => errors.push(e));
  if (errors.length > 0) throw errors[0];
});

async function serve(script: ScriptInput, exhaustedReply?: string): Promise<MessagesServer> {
  const server = await startMessagesServer(exhaustedReply === undefined ? { script } : { script, exhaustedReply });
  cleanups.push(() => server.close());
  return server;
}

function client(server: { url: string }, agent?: string, maxRetries = 0): Anthropic {
  return new Anthropic({
    baseURL: server.url,
    apiKey: 'sk-test-dummy',
    maxRetries,
    ...(agent === undefined ? {} : { defaultHeaders: { 'x-swarm-agent': agent } }),
  });
}

const MODEL = 'claude-test-model';
const ask = (text: string, system?: string): Anthropic.MessageCreateParamsNonStreaming => ({
  model: MODEL,
  max_tokens: 256,
  messages: [{ role: 'user', content: text }],
  ...(system === undefined ? {} : { system }),
});

function textOf(message: Anthropic.Message): string {
  return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** A conversation whose last user message answers `tool` (id toolu_1) with `result`. */
function afterTool(tool: string, result: string): Anthropic.MessageCreateParamsNonStreaming {
  return {
    model: MODEL,
    max_tokens: 256,
    messages: [
      { role: 'user', content: 'start' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: tool, input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
    ],
  };
}

describe('replies through the real SDK', () => {
  it('streams text in several deltas with usage, via messages.stream().finalMessage()', async () => {
    const server = await serve({ turns: [{ reply: 'Hello there from the scripted stand-in model.' }] });
    const stream = client(server).messages.stream(ask('hi'));
    const deltas: string[] = [];
    stream.on('text', (t) => deltas.push(t));
    const message = await stream.finalMessage();

    expect(textOf(message)).toBe('Hello there from the scripted stand-in model.');
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe(textOf(message));
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe(MODEL);
    expect(message.id).toMatch(/^msg_/);
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
    expect(message.usage.cache_read_input_tokens).toBe(0);
    expect(server.requests[0]?.body?.stream).toBe(true);
  });

  it('answers non-streaming requests with one JSON message', async () => {
    const reply = { content: [{ type: 'text' as const, text: 'plain' }], usage: { input_tokens: 7, output_tokens: 3 } };
    const server = await serve({ turns: [{ reply }] });
    const message = await client(server).messages.create(ask('hi'));
    expect(textOf(message)).toBe('plain');
    expect(message.usage).toMatchObject({ input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 0 });
    expect(server.requests[0]?.outcome).toBe('reply');
  });

  it('streams tool_use input as partial JSON chunks that arrive parsed', async () => {
    const input = { file_path: '/tmp/x.txt', content: 'some longer content so the JSON splits' };
    const content = [
      { type: 'text' as const, text: 'Writing.' },
      { type: 'tool_use' as const, name: 'Write', input },
    ];
    const turn = { reply: { content } };
    const server = await serve({ turns: [turn, turn] });
    const api = client(server);

    const raw = await api.messages.create({ ...ask('go'), stream: true });
    const partials: string[] = [];
    let stopReason: string | null = null;
    for await (const event of raw) {
      if (event.type === 'content_block_delta' && event.delta.type === 'input_json_delta') {
        partials.push(event.delta.partial_json);
      }
      if (event.type === 'message_delta') stopReason = event.delta.stop_reason;
    }
    expect(partials.filter((p) => p !== '').length).toBeGreaterThan(1);
    expect(JSON.parse(partials.join(''))).toEqual(input);
    expect(stopReason).toBe('tool_use');

    const message = await api.messages.stream(ask('go')).finalMessage();
    const toolUse = message.content.find((b) => b.type === 'tool_use');
    expect(toolUse).toMatchObject({ type: 'tool_use', name: 'Write', input });
    expect(toolUse?.type === 'tool_use' && toolUse.id).toMatch(/^toolu_/);
    expect(message.stop_reason).toBe('tool_use');
  });
});

describe('matching and per-agent cursors', () => {
  const script: ScriptInput = {
    exhaustedReply: 'nothing left',
    turns: [
      { match: { agent: 'alice' }, reply: 'alice one' },
      { match: { agent: 'bob' }, reply: 'bob one' },
      { match: { agent: 'alice', toolResult: 'Bash' }, reply: 'alice saw bash' },
      { match: { agent: 'alice' }, reply: 'alice two' },
      { match: { system: 'You are carol' }, reply: 'carol one' },
      { match: { agent: 'bob', lastUser: 'shutdown' }, reply: 'bob stops' },
    ],
  };

  it('serves each agent its own turns in order, matching headers, system, tool results and text', async () => {
    const server = await serve(script);
    const alice = client(server, 'alice');
    const bob = client(server, 'bob');

    expect(textOf(await alice.messages.create(ask('hi')))).toBe('alice one');
    expect(textOf(await bob.messages.create(ask('hi')))).toBe('bob one');
    expect(textOf(await alice.messages.create(ask('hi')))).toBe('alice two'); // skips the Bash turn
    expect(textOf(await alice.messages.create(afterTool('Bash', 'ok')))).toBe('alice saw bash');
    expect(textOf(await alice.messages.create(ask('more')))).toBe('nothing left');
    expect(textOf(await client(server).messages.create(ask('hi', 'You are carol, a tester')))).toBe('carol one');
    await expect(bob.messages.create(ask('hello again'))).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    expect(textOf(await bob.messages.create(ask('please shutdown now')))).toBe('bob stops');

    expect(server.requests.map((r) => [r.agent, r.outcome, r.turn])).toEqual([
      ['alice', 'reply', 0],
      ['bob', 'reply', 1],
      ['alice', 'reply', 3],
      ['alice', 'reply', 2],
      ['alice', 'exhausted', undefined],
      ['', 'reply', 4],
      ['bob', 'unmatched', undefined],
      ['bob', 'reply', 5],
    ]);
  });

  it('gives concurrent requests of one agent distinct turns', async () => {
    const server = await serve({ turns: [1, 2, 3, 4].map((n) => ({ match: { agent: 'dan' }, reply: `dan ${n}` })) });
    const dan = client(server, 'dan');
    const texts = await Promise.all([1, 2, 3, 4].map(async () => textOf(await dan.messages.create(ask('x')))));
    expect(texts.sort()).toEqual(['dan 1', 'dan 2', 'dan 3', 'dan 4']);
  });

  it('uses the default exhausted text when the script sets none', async () => {
    const server = await serve({ turns: [{ match: { agent: 'eve' }, reply: 'once' }] });
    const eve = client(server, 'eve');
    await eve.messages.create(ask('a'));
    const last = await eve.messages.stream(ask('b')).finalMessage();
    expect(textOf(last)).toBe('(script finished)');
    expect(last.stop_reason).toBe('end_turn');
  });

  it('refuses an unmatched request with a 400 naming what did not match, and the SDK does not retry it', async () => {
    const server = await serve(script);
    const err = await client(server, 'mallory', 2).messages.create(ask('hello')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const apiErr = err as InstanceType<typeof Anthropic.BadRequestError>;
    expect(apiErr.status).toBe(400);
    const body = apiErr.error as { error: { type: string; message: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('unmatched request: no script turn is meant for agent "mallory"');
    expect(body.error.message).toContain('last user message "hello"');
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ outcome: 'unmatched', status: 400 });
  });

  it('says which turn an agent with remaining turns was expecting', async () => {
    const server = await serve({ turns: [{ match: { agent: 'alice', toolResult: 'Write' }, reply: 'x' }] });
    const err = await client(server, 'alice').messages.create(afterTool('Read', 'file text')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.BadRequestError);
    const body = (err as InstanceType<typeof Anthropic.BadRequestError>).error as { error: { message: string } };
    expect(body.error.message).toMatch(/tool_results for \[Read\], but none matches it.*turns\[0\].*"toolResult":"Write"/);
  });

  it('with "shutdown": "approve", answers a shutdown_request with its own id and uses no turn', async () => {
    const server = await serve({ shutdown: 'approve', turns: [{ match: { agent: 'bob' }, reply: 'first' }, { match: { agent: 'bob' }, reply: 'second' }] });
    const api = client(server, 'bob');
    expect(textOf(await api.messages.create(ask('start')))).toBe('first');
    const request = '<teammate-message teammate_id="team-lead">{"type":"shutdown_request","requestId":"shutdown-1733140010000@bob","from":"team-lead"}</teammate-message>';
    const answer = await api.messages.create(ask(request));
    expect(answer.stop_reason).toBe('tool_use');
    expect(answer.content.find((b) => b.type === 'tool_use')).toMatchObject({
      name: 'SendMessage',
      input: { to: 'team-lead', message: { type: 'shutdown_response', request_id: 'shutdown-1733140010000@bob', approve: true } },
    });
    expect(textOf(await api.messages.create(ask('go on')))).toBe('second');
    // Without the setting, a shutdown_request is just another request for the turns.
    const plain = await serve({ turns: [{ reply: 'a turn' }] });
    expect(textOf(await client(plain, 'bob').messages.create(ask(request)))).toBe('a turn');
    expect(() => parseScript({ shutdown: 'reject', turns: [] })).toThrow(/expected "approve" \(or leave shutdown out\)\n  → at shutdown/);
  });

  it('runs respond functions and predicate matches with the parsed request', async () => {
    const server = await serve({
      turns: [
        { match: (r) => r.body.messages.length === 3, respond: () => ({ reply: 'three messages' }) },
        { respond: (r) => ({ reply: `echo ${r.agent}: ${r.body.model}` }) },
      ],
    });
    const api = client(server, 'fn');
    expect(textOf(await api.messages.create(ask('a')))).toBe(`echo fn: ${MODEL}`);
    expect(textOf(await api.messages.create(afterTool('Bash', 'x')))).toBe('three messages');
  });

  it('answers a failing respond function with a 500 that the SDK does not retry', async () => {
    const server = await serve({
      turns: [
        { respond: () => ({ reply: 5 }) as unknown as StepInput },
        {
          respond: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    const api = client(server, undefined, 2);
    const first = await api.messages.create(ask('a')).catch((e: unknown) => e);
    expect(first).toBeInstanceOf(Anthropic.InternalServerError);
    expect((first as Error).message).toContain('turns[0].respond returned an invalid step');
    const second = await api.messages.create(ask('b')).catch((e: unknown) => e);
    expect((second as Error).message).toContain('stand-in script failed: boom');
    expect(server.requests.map((r) => [r.outcome, r.status])).toEqual([
      ['invalid', 500],
      ['invalid', 500],
    ]);
  });
});

describe('injected failures', () => {
  it('answers 429 with retry-after, and the SDK retries through to the next reply', async () => {
    const server = await serve({
      turns: [
        { match: { agent: 'alice' }, error: { status: 429, retryAfter: 0.01 } },
        { match: { agent: 'alice' }, reply: 'after the rate limit' },
      ],
    });
    const message = await client(server, 'alice', 2).messages.stream(ask('hi')).finalMessage();
    expect(textOf(message)).toBe('after the rate limit');
    expect(server.requests.map((r) => [r.outcome, r.status])).toEqual([
      ['error', 429],
      ['reply', 200],
    ]);
  });

  it('sends the Anthropic error shape and the retry-after header', async () => {
    const server = await serve({ turns: [{ error: { status: 429, retryAfter: 3, times: 2 } }, { reply: 'ok' }] });
    const api = client(server);
    for (let i = 0; i < 2; i++) {
      const err = await api.messages.create(ask('hi')).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.RateLimitError);
      const rate = err as InstanceType<typeof Anthropic.RateLimitError>;
      expect(rate.headers.get('retry-after')).toBe('3');
      expect(rate.error).toMatchObject({ type: 'error', error: { type: 'rate_limit_error' } });
    }
    expect(textOf(await api.messages.create(ask('hi')))).toBe('ok');
  });

  it('answers 529 overloaded, then the next reply', async () => {
    const server = await serve({ turns: [{ error: { status: 529, message: 'Overloaded' } }, { reply: 'recovered' }] });
    const api = client(server);
    const err = await api.messages.create({ ...ask('hi'), stream: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    const apiErr = err as InstanceType<typeof Anthropic.APIError>;
    expect(apiErr.status).toBe(529);
    expect(apiErr.error).toEqual({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
    expect(textOf(await api.messages.create(ask('hi')))).toBe('recovered');
  });

  it('drops the connection mid-stream once, then serves the next turn', async () => {
    const server = await serve({ turns: [{ disconnect: { afterEvents: 3 } }, { reply: 'whole reply' }] });
    const api = client(server);
    const stream = await api.messages.create({ ...ask('hi'), stream: true });
    const seen: string[] = [];
    const failure = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(Error);
    expect(seen[0]).toBe('message_start');
    expect(seen).not.toContain('message_stop');
    expect(textOf(await api.messages.stream(ask('hi')).finalMessage())).toBe('whole reply');
    expect(server.requests.map((r) => r.outcome)).toEqual(['disconnect', 'reply']);
  });

  it('drops a non-streaming request before answering (a connection error), then serves the next turn', async () => {
    const server = await serve({ turns: [{ disconnect: {} }, { reply: 'second try' }] });
    const api = client(server);
    await expect(api.messages.create(ask('hi'))).rejects.toBeInstanceOf(Anthropic.APIConnectionError);
    expect(textOf(await api.messages.create(ask('hi')))).toBe('second try');
    expect(server.requests.map((r) => [r.outcome, r.status])).toEqual([
      ['disconnect', 0],
      ['reply', 200],
    ]);
  });
});

describe('recording', () => {
  it('records headers with credentials redacted, and the parsed body', async () => {
    const server = await serve({ turns: [{ reply: 'a' }, { reply: 'b' }] });
    // This SDK sends apiKey as `Authorization: Bearer`; other clients send `x-api-key`.
    await client(server, 'alice').messages.create(ask('first', 'sys'));
    await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-raw-secret', 'content-type': 'application/json' },
      body: JSON.stringify(ask('second')),
    });
    const [first, second] = await server.waitForRequests(2, 2000);
    expect(first).toMatchObject({ method: 'POST', path: '/v1/messages', agent: 'alice' });
    expect(first).toMatchObject({ hasApiKey: false, hasAuthorization: true });
    expect(first?.headers['authorization']).toBe('<redacted>');
    expect(first?.headers['anthropic-version']).toBeDefined();
    expect(first?.body).toMatchObject({ model: MODEL, system: 'sys', messages: [{ role: 'user', content: 'first' }] });
    expect(second).toMatchObject({ agent: '', hasApiKey: true, hasAuthorization: false, outcome: 'reply' });
    expect(second?.headers['x-api-key']).toBe('<redacted>');
    expect(JSON.stringify(server.requests)).not.toMatch(/sk-test-dummy|sk-raw-secret/);
  });

  it('waitForRequests waits for requests still in flight and times out clearly', async () => {
    const server = await serve({ turns: [{ reply: 'a' }] });
    const waiting = server.waitForRequests(1, 5000);
    await client(server).messages.create(ask('x'));
    expect(await waiting).toHaveLength(1);
    await expect(server.waitForRequests(2, 20)).rejects.toThrow(/waited 20 ms for 2 request\(s\).*got 1/);
  });

  it('rejects invalid bodies and unknown paths in the Anthropic error shape', async () => {
    const server = await serve({ turns: [{ reply: 'a' }] });
    const bad = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{"model": "m"}' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    const missing = await fetch(`${server.url}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(server.requests.map((r) => r.outcome)).toEqual(['invalid', 'invalid']);
  });
});

describe('script validation', () => {
  it('names the bad field of a JSON script', () => {
    const attempt = (value: unknown): string => {
      try {
        parseScript(value, 'demo.json');
        return 'parsed';
      } catch (e) {
        expect(isSwarmError(e, 'invalid_input')).toBe(true);
        return (e as Error).message;
      }
    };
    expect(attempt({ turns: [{ reply: 'ok' }] })).toBe('parsed');
    expect(attempt({ turns: [{ match: { agnet: 'x' }, reply: 'a' }] })).toMatch(/demo\.json[\s\S]*agnet/);
    expect(attempt({ turns: [{ reply: 'a', error: { status: 429 } }] })).toContain(
      'expected exactly one of reply, error, disconnect, respond; got reply and error',
    );
    expect(attempt({ turns: [{}] })).toContain('got none');
    expect(attempt({ turns: [{ error: { status: 418 } }] })).toMatch(/expected one of 429.*\n.*turns\[0\]\.error\.status/);
    expect(attempt({ turns: [{ reply: 7 }] })).toMatch(/expected a string or \{content/);
    const badId = { turns: [{ reply: { content: [{ type: 'tool_use', name: 'X', input: {}, id: 'bad' }] } }] };
    expect(attempt(badId)).toMatch(/starting with "toolu_"[\s\S]*turns\[0\]\.reply\.content\[0\]\.id/);
  });

  it('refuses to start with an invalid script', async () => {
    const script = { turns: 'nope' } as unknown as ScriptInput;
    await expect(startMessagesServer({ script })).rejects.toThrow(/not a valid stand-in script/);
  });
});

describe('CLI entry', () => {
  async function tempScript(content: string): Promise<string> {
    const dir = await tempRoot('swarm-standin-');
    const file = join(dir, 'script.json');
    await writeFile(file, content);
    return file;
  }

  function startCli(args: string[]): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/standin/messages-server.ts', ...args], {
      cwd: join(import.meta.dirname, '../..'),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    cleanups.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    });
    return { child, exited, stderr: () => stderr };
  }

  it('prints its url, serves the script, and exits 0 on SIGTERM', async () => {
    const file = await tempScript(JSON.stringify({ turns: [{ match: { agent: 'cli' }, reply: 'from the cli' }] }));
    const { child, exited } = startCli(['--script', file]);
    const firstLine = await new Promise<string>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout! });
      lines.once('line', (line) => {
        lines.close();
        resolve(line);
      });
      child.once('exit', (code) => reject(new Error(`CLI exited ${code} before printing its url`)));
    });
    const { url } = JSON.parse(firstLine) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(textOf(await client({ url }, 'cli').messages.stream(ask('hi')).finalMessage())).toBe('from the cli');
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 20_000);

  it('exits 2 with the validation error for an invalid script', async () => {
    const file = await tempScript(JSON.stringify({ turns: [{ match: { agent: 'x' } }] }));
    const { exited, stderr } = startCli(['--script', file]);
    expect(await exited).toBe(2);
    expect(stderr()).toContain('is not a valid stand-in script');
    expect(stderr()).toContain('expected exactly one of reply');
  }, 20_000);
});
