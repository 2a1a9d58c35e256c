// Runtime test harness: a team `t` with teammate w1 (and w2) working in a temp directory, the
// leader's signing mailbox, a stand-in Messages API server with a script, and the real teammate
// process (`node bin/swarm.js teammate ...` over the built dist/) with its pane output captured, or
// the same runtime in this process (runInProcess: runTeammate with the same flags and env).
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { LeadKey } from '../../src/permissions/keys.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { parseControl, type ControlMessage } from '../../src/protocol/control.js';
import type { TeamConfig } from '../../src/protocol/config.js';
import type { InboxMessage } from '../../src/protocol/message.js';
import { StatusFileSchema, type StatusFile } from '../../src/protocol/status.js';
import { lastUserText, type RecordedRequest } from '../../src/standin/request.js';
import { startMessagesServer, type MessagesServer, type ScriptInput } from '../../src/standin/messages-server.js';
import { addMember, createTeam, teamPaths, type TeamPaths } from '../../src/team/index.js';
import { flagsFromArgv } from '../../src/runtime/args.js';
import { runTeammate } from '../../src/runtime/teammate.js';
import { SWARM_BIN } from './cli.js';
import { afterThisTest, tempRoot } from './tmp-root.js';
import { waitFor } from './wait.js';
import { Team } from '../../src/team/team.js';

export const TEAM = 't';

export interface TeammateProc {
  child: ChildProcess;
  /** Pane output so far (stdout + stderr). */
  output(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export interface RuntimeEnv {
  root: string;
  work: string;
  paths: TeamPaths;
  config: TeamConfig;
  key: LeadKey;
  /** Signs entries from team-lead. */
  lead: Mailbox;
  /** Unsigned (for forged entries and reading). */
  plain: Mailbox;
  server: MessagesServer;
  start(extraArgs?: string[], env?: Record<string, string>): TeammateProc;
  /** Start member `name`'s teammate process (start() is w1's). */
  startAs(name: string, extraArgs?: string[], env?: Record<string, string>): TeammateProc;
  /** Flags of `swarm teammate` for w1. */
  args(name?: string): string[];
  cleanup(): Promise<void>;
}

const children = new Set<ChildProcess>();

export async function setupRuntime(script: ScriptInput, opts: { members?: { name: string; mode?: string }[] } = {}): Promise<RuntimeEnv> {
  const root = await tempRoot('swarm-rt-');
  const work = path.join(root, 'work');
  await fs.mkdir(work);
  const { config: created } = await createTeam(root, { name: TEAM, cwd: work });
  for (const m of opts.members ?? [{ name: 'w1' }, { name: 'w2' }]) {
    await addMember(new Team(root, TEAM), { name: m.name, cwd: work, ...(m.mode ? { mode: m.mode } : {}) });
  }
  const { mailbox: lead, key } = await openLeadMailbox({ team: new Team(root, TEAM) });
  const server = await startMessagesServer({ script });
  const env: RuntimeEnv = {
    root,
    work,
    paths: teamPaths(root, TEAM),
    config: created,
    key,
    lead,
    plain: new Mailbox({ team: new Team(root, TEAM) }),
    server,
    args: (name = 'w1') => [
      'teammate',
      '--agent-id',
      `${name}@${TEAM}`,
      '--agent-name',
      name,
      '--team-name',
      TEAM,
      '--agent-color',
      'blue',
      '--parent-session-id',
      created.leadSessionId,
      '--lead-verify-key',
      key.verifyKey,
    ],
    start: (extraArgs = [], extraEnv = {}) => startTeammate(env, [...env.args(), ...extraArgs], extraEnv),
    startAs: (name, extraArgs = [], extraEnv = {}) => startTeammate(env, [...env.args(name), ...extraArgs], extraEnv),
    cleanup: async () => {
      await reapTeammates();
      await server.close();
    },
  };
  afterThisTest(env.cleanup);
  return env;
}

/** The environment a teammate of `env` runs with (a process's, or runTeammate's in this one). */
function teammateEnv(env: RuntimeEnv, extraEnv: Record<string, string>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? env.root,
    CLAUDE_CONFIG_DIR: env.root,
    ANTHROPIC_BASE_URL: env.server.url,
    ANTHROPIC_API_KEY: 'sk-test',
    NO_COLOR: '1',
    SWARM_RETRY_BASE_MS: '10',
    SWARM_POLL_MS: '250',
    SWARM_HEARTBEAT_MS: '500',
    ...extraEnv,
  };
}

function startTeammate(env: RuntimeEnv, args: string[], extraEnv: Record<string, string>): TeammateProc {
  const child = spawn(process.execPath, [SWARM_BIN, ...args], {
    env: teammateEnv(env, extraEnv),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    }),
  );
  return { child, output: () => out, exited };
}

export interface InProcessTeammate {
  /** Pane output so far. */
  output(): string;
  /** Resolves with runTeammate's exit code. */
  done: Promise<number>;
  /** Stop it (as SIGTERM would) and wait for its end. */
  stop(): Promise<number>;
}

/** Member `name`'s teammate runtime in this process (no dist/ needed); stopped after the test at the latest. */
export function runInProcess(env: RuntimeEnv, name = 'w1', extraEnv: Record<string, string> = {}): InProcessTeammate {
  const abort = new AbortController();
  let out = '';
  const done = runTeammate({ flags: flagsFromArgv(env.args(name)), env: teammateEnv(env, extraEnv), write: (text) => (out += text), signal: abort.signal });
  done.catch(() => undefined); // a failed start is the cleanup's error (stop, below), not an unhandled rejection
  const stop = async (): Promise<number> => {
    abort.abort('SIGTERM');
    return done;
  };
  afterThisTest(async () => void (await stop()));
  return { output: () => out, done, stop };
}

/** SIGKILL every teammate still running and wait for its exit. */
export async function reapTeammates(): Promise<void> {
  const all = [...children];
  children.clear();
  await Promise.all(
    all.map(
      (c) =>
        new Promise<void>((resolve) => {
          if (c.exitCode !== null || c.signalCode !== null) return resolve();
          c.once('exit', () => resolve());
          c.kill('SIGKILL');
        }),
    ),
  );
}

/** Control messages of `type` in `name`'s inbox (any reader state). */
export async function controls<T extends ControlMessage['type']>(env: RuntimeEnv, name: string, type: T): Promise<{ entry: InboxMessage; message: Extract<ControlMessage, { type: T }> }[]> {
  const out: { entry: InboxMessage; message: Extract<ControlMessage, { type: T }> }[] = [];
  for (const entry of await env.plain.read(name)) {
    const p = parseControl(entry.text);
    if (p.kind === 'control' && p.message.type === type) out.push({ entry, message: p.message as Extract<ControlMessage, { type: T }> });
  }
  return out;
}

export function waitForControl<T extends ControlMessage['type']>(env: RuntimeEnv, name: string, type: T, count = 1, ms = 10_000) {
  return waitFor(async () => {
    const found = await controls(env, name, type);
    return found.length >= count ? found : undefined;
  }, ms, `${count} ${type} frame(s) in ${name}'s inbox`);
}

export async function readStatus(env: RuntimeEnv, name = 'w1'): Promise<StatusFile | undefined> {
  try {
    return StatusFileSchema.parse(JSON.parse(await fs.readFile(env.paths.status(name), 'utf8')));
  } catch {
    return undefined;
  }
}

export async function logLines(env: RuntimeEnv, name = 'w1'): Promise<{ kind: string; [k: string]: unknown }[]> {
  try {
    const raw = await fs.readFile(env.paths.log(name), 'utf8');
    return raw.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as { kind: string });
  } catch {
    return [];
  }
}

export async function pendingIds(env: RuntimeEnv): Promise<string[]> {
  try {
    return (await fs.readdir(env.paths.pending)).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5));
  } catch {
    return [];
  }
}

/**
 * The tool_result blocks (and their text) of the last user message of a recorded request. No
 * request (an index or a filter that found none) is an error saying so, not a TypeError.
 */
export function toolResults(r: RecordedRequest | undefined): { content: string; is_error?: boolean }[] {
  if (r === undefined) throw new Error('toolResults: no such recorded request: the stand-in was not called (again) for it; check the script and the recorded requests');
  const last = r.body?.messages.at(-1);
  if (!last || typeof last.content === 'string') return [];
  return last.content.flatMap((b) => {
    if (b.type !== 'tool_result') return [];
    const c = (b as { content?: unknown }).content;
    const is_error = (b as { is_error?: boolean }).is_error;
    const content = typeof c === 'string' ? c : JSON.stringify(c);
    return [is_error === undefined ? { content } : { content, is_error }];
  });
}

/** Requests of `agent` whose last user message contains `text`. */
export function requestsWith(server: MessagesServer, text: string, agent = 'w1'): RecordedRequest[] {
  return server.requests.filter((r) => r.agent === agent && r.body !== undefined && lastUserText(r.body).includes(text));
}

export { waitFor };
