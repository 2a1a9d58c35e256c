// Thin wrappers over the `it2` CLI (the Python package, `pipx install it2`), one function per verb,
// argv arrays only, output parsed by pure functions. The verbs used, from it2's source:
//   it2 --help                              lists the command groups (`session`, `window`, ...)
//   it2 session list --json                 exit 0 = usable, exit 2 = iTerm2's Python API is off
//   it2 session split [-v] -s <id>          prints `Created new pane: <id>`
//   it2 session set-name -s <id> <name>     the pane's name (shown as its title)
//   it2 session run -s <id> <command>       TYPES `<command>` + Enter into the pane's shell
//   it2 session read -s <id> -n <lines>     the last lines of the screen
//   it2 session close -f -s <id>            without -f it asks for confirmation
// A different Go tool is also called `it2` and has another syntax: `detectIt2` refuses it.
import { quote } from 'shell-quote';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { assertEnvName } from '../../protocol/names.js';
import { type Exec, execaExec } from '../process.js';

export const IT2_HINT =
  'install the iTerm2 CLI with `pipx install it2`, then enable the Python API in iTerm2 ' +
  '(Settings > General > Magic > Enable Python API)';

export interface It2Options {
  exec?: Exec;
  /** Environment for every it2 call (PATH decides which `it2` runs). Default: this process's. */
  env?: Record<string, string | undefined>;
  binary?: string;
}

export class It2Cli {
  private readonly exec: Exec;
  private readonly env: Record<string, string | undefined> | undefined;
  private readonly binary: string;

  constructor(opts: It2Options = {}) {
    this.exec = opts.exec ?? execaExec;
    this.env = opts.env;
    this.binary = opts.binary ?? 'it2';
  }

  tryRun(args: readonly string[]): ReturnType<Exec> {
    return this.exec(this.binary, args, this.env === undefined ? {} : { env: this.env });
  }

  /** Run and return stdout; a non-zero exit throws SwarmError('backend') with it2's message. */
  async run(args: readonly string[]): Promise<string> {
    const r = await this.tryRun(args);
    if (r.exitCode !== 0) {
      const msg = (r.stderr || r.stdout).trim() || `exit code ${r.exitCode}`;
      throw new SwarmError('backend', `it2 ${args.slice(0, 2).join(' ')} failed: ${msg}`, {
        cause: { argv: [this.binary, ...args], exitCode: r.exitCode, stderr: r.stderr },
      });
    }
    return r.stdout;
  }
}

// ---- pure helpers ------------------------------------------------------------------------------

export function parseCreatedPane(stdout: string): string {
  const m = /Created new pane:\s*(\S+)/.exec(stdout);
  if (!m) throw new SwarmError('backend', `unexpected it2 split output: ${JSON.stringify(stdout.slice(0, 200))}`);
  return m[1]!;
}

const SessionListSchema = z.array(z.looseObject({ id: z.string() }));

/** Session ids from `it2 session list --json`. */
export function parseSessionList(stdout: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(stdout);
  } catch (e) {
    throw new SwarmError('backend', `it2 session list did not print JSON: ${JSON.stringify(stdout.slice(0, 200))}`, {
      cause: e,
    });
  }
  const parsed = SessionListSchema.safeParse(json);
  if (!parsed.success) throw new SwarmError('backend', `unexpected it2 session list JSON: ${parsed.error.message}`);
  return parsed.data.map((s) => s.id);
}

/** The Python it2's `--help` lists a `session` command group; the Go tool's does not. */
export function isPythonIt2Help(help: string): boolean {
  return /^\s+session\b/m.test(help);
}

/** Writes the pid of the process that then becomes the teammate ($0 = pid file). */
export const PID_SCRIPT = 'echo $$ >"$0" && exec "$@"';

/**
 * The shell line typed into the pane: `cd <cwd> && env VAR=val ... sh -c <pid script> <pidFile>
 * <argv...>`, every word quoted with shell-quote. The pane's shell must be POSIX-like (zsh, bash).
 */
export function buildRunCommand(o: { cwd: string; env: Record<string, string>; argv: readonly string[]; pidFile: string }): string {
  if (o.argv.length === 0) throw new SwarmError('invalid_input', 'expected a command to run in the pane, got an empty argv');
  const pairs = Object.entries(o.env).map(([k, v]) => {
    assertEnvName(k);
    return `${k}=${v}`;
  });
  return `cd ${quote([o.cwd])} && ${quote(['env', ...pairs, 'sh', '-c', PID_SCRIPT, o.pidFile, ...o.argv])}`;
}

// ---- verbs -------------------------------------------------------------------------------------

export function splitSessionArgs(o: { session?: string | undefined; vertical: boolean }): string[] {
  const target = o.session === undefined ? [] : ['-s', o.session];
  return ['session', 'split', ...(o.vertical ? ['-v'] : []), ...target];
}

/** Split `session` (or the active one); `vertical` puts the new pane beside it. Returns the new id. */
export async function splitSession(cli: It2Cli, o: { session?: string | undefined; vertical: boolean }): Promise<string> {
  return parseCreatedPane(await cli.run(splitSessionArgs(o)));
}

export function setSessionNameArgs(session: string, name: string): string[] {
  return ['session', 'set-name', '-s', session, name];
}

export async function setSessionName(cli: It2Cli, session: string, name: string): Promise<void> {
  await cli.run(setSessionNameArgs(session, name));
}

export function runInSessionArgs(session: string, command: string): string[] {
  return ['session', 'run', '-s', session, command];
}

export async function runInSession(cli: It2Cli, session: string, command: string): Promise<void> {
  await cli.run(runInSessionArgs(session, command));
}

export async function readSession(cli: It2Cli, session: string, lines: number): Promise<string> {
  return cli.run(['session', 'read', '-s', session, '-n', String(Math.max(1, Math.floor(lines)))]);
}

export async function closeSession(cli: It2Cli, session: string): Promise<void> {
  await cli.run(['session', 'close', '-f', '-s', session]);
}

export async function listSessions(cli: It2Cli): Promise<string[]> {
  return parseSessionList(await cli.run(['session', 'list', '--json']));
}

export type It2Detection = { usable: true } | { usable: false; reason: string; hint: string };

/** Is a working Python `it2` on PATH (in `env`), talking to iTerm2? Never throws. */
export async function detectIt2(env: Record<string, string | undefined>, exec: Exec = execaExec): Promise<It2Detection> {
  const cli = new It2Cli({ env, exec });
  const help = await cli.tryRun(['--help']);
  if (help.exitCode === 127) return { usable: false, reason: 'it2 is not installed (not found on PATH)', hint: IT2_HINT };
  if (!isPythonIt2Help(`${help.stdout}\n${help.stderr}`)) {
    return {
      usable: false,
      reason: 'the `it2` on PATH is a different tool (not the iTerm2 Python CLI: `it2 --help` lists no `session` commands)',
      hint: `${IT2_HINT}; make sure it comes first on PATH`,
    };
  }
  const list = await cli.tryRun(['session', 'list']);
  if (list.exitCode === 0) return { usable: true };
  if (list.exitCode === 2) {
    return { usable: false, reason: 'iTerm2 is not reachable: its Python API is off (it2 session list exited 2)', hint: IT2_HINT };
  }
  const msg = (list.stderr || list.stdout).trim().split('\n')[0] ?? '';
  return { usable: false, reason: `it2 session list failed (exit ${list.exitCode}): ${msg}`, hint: IT2_HINT };
}
