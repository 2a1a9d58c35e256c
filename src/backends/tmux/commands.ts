// Thin wrappers over the tmux CLI: one function per verb, argv arrays only (never a shell string),
// output parsed by pure functions. Every invocation goes through `TmuxServer.run`, the one place
// that adds the server flag (`-L <name>` for a private server, `-S <path>` for a server recorded by
// its socket path) and escapes arguments for tmux's own command parser (an argument ending in `;`
// would otherwise end the command).
//
// tmux facts relied on (3.3a): new ids are printed with `-P -F <format>`; `-c` (start directory),
// `-n` (window name) and `select-pane -T` are format-expanded, so a literal `#` is written `##`;
// `-e NAME=value`, option values and command arguments are taken literally; a command given as a
// single argument is run through `sh -c`, two or more are exec'd directly.
import { quote } from 'shell-quote';
import { SwarmError } from '../../protocol/errors.js';
import { assertEnvName } from '../../protocol/names.js';
import { type Exec, type ExecResult, execaExec } from '../process.js';

import type { PaneExit } from '../backend.js';

export type { Exec, ExecResult } from '../process.js';

export interface TmuxServerOptions {
  /** `SWARM_TMUX_SOCKET`: a private server (`tmux -L <socket>`); unset = the current/default one. */
  socket?: string | undefined;
  /** A server by the full path of its socket (`tmux -S <path>`, `#{socket_path}`); wins over `socket`. */
  socketPath?: string | undefined;
  exec?: Exec;
  binary?: string;
}

/**
 * A private server's name (`tmux -L <name>`, from SWARM_TMUX_SOCKET), checked once where it is
 * read: tmux makes it a file in its socket directory, so a `/` points elsewhere (and fails
 * cryptically), `-x` makes a server named "-x", and anything beyond letters, digits, `_`, `.` and
 * `-` would break the unquoted `tmux -L <name> attach` line swarm prints.
 */
export function checkTmuxServerName(name: string): string {
  if (/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$/.test(name)) return name;
  throw new SwarmError(
    'invalid_input',
    `SWARM_TMUX_SOCKET=${JSON.stringify(name)} is not a tmux server name (tmux -L): use up to 64 letters, digits, _ . and -, not starting with . or - (e.g. swarm-work), or unset it for the default server`,
  );
}

/** Escape one command argument for tmux's argv parser: a trailing `;` becomes `\;`. */
export function escapeTmuxArg(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/** A literal string where tmux expands formats (`-c`, `-n`, `-T`). */
export function formatLiteral(s: string): string {
  return s.replaceAll('#', '##');
}

/** tmux's command separator, as a whole argument. Only `chainArgv` emits it. */
export const CHAIN_SEPARATOR = ';';

export class TmuxServer {
  readonly socket: string | undefined;
  readonly socketPath: string | undefined;
  private readonly exec: Exec;
  private readonly binary: string;

  constructor(opts: TmuxServerOptions = {}) {
    this.socketPath = opts.socketPath || undefined;
    this.socket = this.socketPath === undefined ? opts.socket || undefined : undefined;
    this.exec = opts.exec ?? execaExec;
    this.binary = opts.binary ?? 'tmux';
  }

  /** The same exec, on the server whose socket is at `socketPath`. */
  at(socketPath: string): TmuxServer {
    return new TmuxServer({ socketPath, exec: this.exec, binary: this.binary });
  }

  /** The flag that picks this server: `-S <path>`, `-L <name>`, or none (the current/default one). */
  private serverFlag(): string[] {
    if (this.socketPath !== undefined) return ['-S', this.socketPath];
    return this.socket === undefined ? [] : ['-L', this.socket];
  }

  /** The full argv of one tmux invocation (without the binary). */
  argv(args: readonly string[]): string[] {
    return [...this.serverFlag(), ...args.map(escapeTmuxArg)];
  }

  /**
   * The argv of one invocation running `commands` in order: each command's arguments escaped as in
   * `argv`, joined by a literal `;` argument (the only unescaped one).
   */
  chainArgv(commands: readonly (readonly string[])[]): string[] {
    if (commands.length === 0 || commands.some((c) => c.length === 0)) {
      throw new SwarmError('invalid_input', 'expected one or more non-empty tmux commands to chain');
    }
    return [...this.serverFlag(), ...commands.flatMap((c, i) => [...(i === 0 ? [] : [CHAIN_SEPARATOR]), ...c.map(escapeTmuxArg)])];
  }

  /** Run several commands in one tmux invocation (see the header); stdout of all of them. */
  async runChain(commands: readonly (readonly string[])[]): Promise<string> {
    const argv = this.chainArgv(commands);
    const r = await this.exec(this.binary, argv);
    if (r.exitCode !== 0) {
      const msg = (r.stderr || r.stdout).trim() || `exit code ${r.exitCode}`;
      const verbs = commands.map((c) => c[0] ?? '').join(' ; ');
      throw new SwarmError('backend', `tmux ${verbs} failed: ${msg}`, { cause: { argv, exitCode: r.exitCode, stderr: r.stderr } });
    }
    return r.stdout;
  }

  /** Run and return the raw result, whatever the exit code. */
  async tryRun(args: readonly string[]): Promise<ExecResult> {
    return this.exec(this.binary, this.argv(args));
  }

  /** Run and return stdout; a non-zero exit throws SwarmError('backend') carrying tmux's message. */
  async run(args: readonly string[]): Promise<string> {
    const r = await this.tryRun(args);
    if (r.exitCode !== 0) {
      const msg = (r.stderr || r.stdout).trim() || `exit code ${r.exitCode}`;
      throw new SwarmError('backend', `tmux ${args[0] ?? ''} failed: ${msg}`, {
        cause: { argv: this.argv(args), exitCode: r.exitCode, stderr: r.stderr },
      });
    }
    return r.stdout;
  }
}

// ---- pure helpers ------------------------------------------------------------------------------

/** `-e NAME=value` flags; names are validated, values passed literally. */
export function envFlags(env: Record<string, string>): string[] {
  return Object.entries(env).flatMap(([k, v]) => {
    assertEnvName(k);
    return ['-e', `${k}=${v}`];
  });
}

/** The command part after `--`. tmux runs a lone argument with `sh -c`, so quote it back to itself. */
export function commandArgs(argv: readonly string[]): string[] {
  if (argv.length === 0) throw new SwarmError('invalid_input', 'expected a command to run in the pane, got an empty argv');
  return argv.length === 1 ? ['--', quote([argv[0]!])] : ['--', ...argv];
}

export function isNoSpaceError(e: unknown): boolean {
  return e instanceof SwarmError && /no space for new pane|pane too small/i.test(e.message);
}

/** No server on that socket (nothing to list / nothing running). */
export function isNoServerMessage(stderr: string): boolean {
  return /no server running|error connecting to|server exited unexpectedly|no current session/i.test(stderr);
}

export interface NewPane {
  paneId: string;
  pid: number;
  windowId: string;
}
export const NEW_PANE_FORMAT = '#{pane_id} #{pane_pid} #{window_id}';

function fail(what: string, text: string): never {
  throw new SwarmError('backend', `unexpected tmux ${what} output: ${JSON.stringify(text.slice(0, 200))}`);
}

export function parseNewPane(stdout: string): NewPane {
  const m = /^(%\d+) (\d+) (@\d+)$/.exec(stdout.trim());
  if (!m) fail('new pane', stdout);
  return { paneId: m[1]!, pid: Number(m[2]), windowId: m[3]! };
}

export interface TmuxPane {
  paneId: string;
  pid: number;
  dead: boolean;
  /** Exit status of a dead pane's process (remain-on-exit), when tmux knows it. */
  deadStatus: number | undefined;
  windowId: string;
  /**
   * Started without a command: its process is the default shell, and what runs in it was typed in
   * (how Claude Code starts its teammates). swarm's own panes always run a command.
   */
  shell: boolean;
  sessionName: string;
}
export const PANE_LIST_FORMAT = '#{pane_id} #{pane_pid} #{pane_dead} #{pane_dead_status} #{window_id} #{?pane_start_command,cmd,shell} #{session_name}';

export function parsePaneList(stdout: string): TmuxPane[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const f = line.split(' ');
      if (f.length < 7 || !/^%\d+$/.test(f[0]!) || !/^@\d+$/.test(f[4]!) || !/^(cmd|shell)$/.test(f[5]!)) fail('list-panes', line);
      return {
        paneId: f[0]!,
        pid: Number(f[1]),
        dead: f[2] === '1',
        deadStatus: f[3] === '' ? undefined : Number(f[3]),
        windowId: f[4]!,
        shell: f[5] === 'shell',
        sessionName: f.slice(6).join(' '),
      };
    });
}

export interface PaneSize {
  paneId: string;
  width: number;
  height: number;
}
export const PANE_SIZE_FORMAT = '#{pane_id} #{pane_width} #{pane_height}';

export function parsePaneSizes(stdout: string): PaneSize[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const m = /^(%\d+) (\d+) (\d+)$/.exec(line.trim());
      if (!m) fail('pane size', line);
      return { paneId: m[1]!, width: Number(m[2]), height: Number(m[3]) };
    });
}

/** One pane with its size and its window's: everything pane placement needs, in one call. */
export interface PaneGeometry {
  paneId: string;
  pid: number;
  dead: boolean;
  windowId: string;
  width: number;
  height: number;
  window: { width: number; height: number };
}
export const PANE_GEOMETRY_FORMAT = '#{pane_id} #{pane_pid} #{pane_dead} #{window_id} #{pane_width} #{pane_height} #{window_width} #{window_height}';

export function parsePaneGeometry(stdout: string): PaneGeometry[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const m = /^(%\d+) (\d+) ([01]) (@\d+) (\d+) (\d+) (\d+) (\d+)$/.exec(line.trim());
      if (!m) fail('pane geometry', line);
      return {
        paneId: m[1]!,
        pid: Number(m[2]),
        dead: m[3] === '1',
        windowId: m[4]!,
        width: Number(m[5]),
        height: Number(m[6]),
        window: { width: Number(m[7]), height: Number(m[8]) },
      };
    });
}

export interface WindowSize {
  width: number;
  height: number;
}
export function parseWindowSize(stdout: string): WindowSize {
  const m = /^(\d+) (\d+)$/.exec(stdout.trim());
  if (!m) fail('window size', stdout);
  return { width: Number(m[1]), height: Number(m[2]) };
}

export interface PaneContext {
  sessionId: string;
  windowId: string;
  paneId: string;
  sessionName: string;
}
export const PANE_CONTEXT_FORMAT = '#{session_id} #{window_id} #{pane_id} #{session_name}';

export function parsePaneContext(stdout: string): PaneContext {
  const m = /^(\$\d+) (@\d+) (%\d+) (.*)$/.exec(stdout.replace(/\n$/, ''));
  if (!m) fail('pane context', stdout);
  return { sessionId: m[1]!, windowId: m[2]!, paneId: m[3]!, sessionName: m[4]! };
}

// ---- verbs -------------------------------------------------------------------------------------

export interface PaneCommand {
  cwd?: string | undefined;
  env?: Record<string, string>;
  argv: readonly string[];
}

function commandFlags(cmd: PaneCommand): string[] {
  const cwd = cmd.cwd === undefined ? [] : ['-c', formatLiteral(cmd.cwd)];
  return [...cwd, ...envFlags(cmd.env ?? {})];
}

/** Session targets use `=name` so `swarm-a` never matches `swarm-ab` by prefix. */
export function sessionTarget(name: string): string {
  return `=${name}`;
}

export async function hasSession(server: TmuxServer, name: string): Promise<boolean> {
  const r = await server.tryRun(['has-session', '-t', sessionTarget(name)]);
  return r.exitCode === 0;
}

export function newSessionArgs(o: { name: string; cwd?: string | undefined; argv?: readonly string[] }): string[] {
  const cwd = o.cwd === undefined ? [] : ['-c', formatLiteral(o.cwd)];
  const cmd = o.argv === undefined ? [] : commandArgs(o.argv);
  return ['new-session', '-d', '-s', o.name, ...cwd, '-P', '-F', NEW_PANE_FORMAT, ...cmd];
}

/** New detached session; without `argv` its first pane runs the user's default shell. */
export async function newSession(
  server: TmuxServer,
  o: { name: string; cwd?: string; argv?: readonly string[] },
): Promise<NewPane> {
  return parseNewPane(await server.run(newSessionArgs(o)));
}

export function killSessionArgs(name: string): string[] {
  return ['kill-session', '-t', sessionTarget(name)];
}

export async function killSession(server: TmuxServer, name: string): Promise<void> {
  await server.run(killSessionArgs(name));
}

/** New detached window in `session` (a session target such as `$1` or `=name`). */
export async function newWindow(
  server: TmuxServer,
  o: PaneCommand & { session: string; name?: string },
): Promise<NewPane> {
  const name = o.name === undefined ? [] : ['-n', formatLiteral(o.name)];
  return parseNewPane(
    await server.run([
      'new-window', '-d', '-t', `${o.session}:`, ...name, ...commandFlags(o), '-P', '-F', NEW_PANE_FORMAT,
      ...commandArgs(o.argv),
    ]),
  );
}

export type SplitCommand = PaneCommand & { target: string; direction: 'h' | 'v' };

export function splitWindowArgs(o: SplitCommand): string[] {
  return ['split-window', '-d', `-${o.direction}`, '-t', o.target, ...commandFlags(o), '-P', '-F', NEW_PANE_FORMAT, ...commandArgs(o.argv)];
}

/** Split `target` (a pane); `h` puts the new pane to the right, `v` below. Detached (`-d`). */
export async function splitWindow(server: TmuxServer, o: SplitCommand): Promise<NewPane> {
  return parseNewPane(await server.run(splitWindowArgs(o)));
}

export function respawnPaneArgs(o: PaneCommand & { target: string }): string[] {
  return ['respawn-pane', '-k', '-t', o.target, ...commandFlags(o), ...commandArgs(o.argv)];
}

/** Replace the pane's process (`-k` kills a running one). */
export async function respawnPane(server: TmuxServer, o: PaneCommand & { target: string }): Promise<void> {
  await server.run(respawnPaneArgs(o));
}

// Argument builders for commands that are also chained (`server.runChain([...])`).
export function setWindowOptionArgs(window: string, name: string, value: string): string[] {
  return ['set-option', '-w', '-t', window, '--', name, value];
}
export function setPaneOptionArgs(pane: string, name: string, value: string): string[] {
  return ['set-option', '-p', '-t', pane, '--', name, value];
}
export function setPaneTitleArgs(pane: string, title: string): string[] {
  return ['select-pane', '-t', pane, '-T', formatLiteral(title)];
}
export function selectLayoutArgs(window: string, layout: TmuxLayout): string[] {
  return ['select-layout', '-t', window, layout];
}

export async function setWindowOption(server: TmuxServer, window: string, name: string, value: string): Promise<void> {
  await server.run(setWindowOptionArgs(window, name, value));
}

export async function setPaneOption(server: TmuxServer, pane: string, name: string, value: string): Promise<void> {
  await server.run(setPaneOptionArgs(pane, name, value));
}

export async function setPaneTitle(server: TmuxServer, pane: string, title: string): Promise<void> {
  await server.run(setPaneTitleArgs(pane, title));
}

export type TmuxLayout = 'main-vertical' | 'tiled' | 'even-horizontal' | 'even-vertical' | 'main-horizontal';

export async function selectLayout(server: TmuxServer, window: string, layout: TmuxLayout): Promise<void> {
  await server.run(selectLayoutArgs(window, layout));
}

/** Every pane of the server; an absent server has none. */
export async function listAllPanes(server: TmuxServer): Promise<TmuxPane[]> {
  const r = await server.tryRun(['list-panes', '-a', '-F', PANE_LIST_FORMAT]);
  if (r.exitCode !== 0) {
    // No server, or a server left with no session while it shuts down ("no current target").
    if (isNoServerMessage(r.stderr) || /no current target/i.test(r.stderr)) return [];
    throw new SwarmError('backend', `tmux list-panes failed: ${r.stderr.trim()}`);
  }
  return parsePaneList(r.stdout);
}

/** Every pane of the server with its size and its window's size, in session/window/pane order. */
export async function listPaneGeometry(server: TmuxServer): Promise<PaneGeometry[]> {
  const r = await server.tryRun(['list-panes', '-a', '-F', PANE_GEOMETRY_FORMAT]);
  if (r.exitCode !== 0) {
    if (isNoServerMessage(r.stderr) || /no current target/i.test(r.stderr)) return [];
    throw new SwarmError('backend', `tmux list-panes failed: ${r.stderr.trim()}`);
  }
  return parsePaneGeometry(r.stdout);
}

/** Panes of one window (`-t @N`) or, with `session: true`, of a whole session, in order. */
export async function listPaneSizes(server: TmuxServer, target: string, o: { session?: boolean } = {}): Promise<PaneSize[]> {
  const scope = o.session === true ? ['-s'] : [];
  return parsePaneSizes(await server.run(['list-panes', ...scope, '-t', target, '-F', PANE_SIZE_FORMAT]));
}

export async function windowSize(server: TmuxServer, window: string): Promise<WindowSize> {
  return parseWindowSize(await server.run(['display-message', '-p', '-t', window, '#{window_width} #{window_height}']));
}

export function killPaneArgs(pane: string): string[] {
  return ['kill-pane', '-t', pane];
}

export async function killPane(server: TmuxServer, pane: string): Promise<void> {
  await server.run(killPaneArgs(pane));
}

/** `capture-pane` printing from `start` (`-N`: N lines of history; `-`: all of it), wrapped lines joined. */
export function capturePaneArgs(pane: string, start: string): string[] {
  return ['capture-pane', '-p', '-J', '-t', pane, '-S', start];
}

/** The last `lines` lines of history plus the visible screen, wrapped lines joined. */
export async function capturePane(server: TmuxServer, pane: string, lines: number): Promise<string> {
  return server.run(capturePaneArgs(pane, `-${Math.max(0, Math.floor(lines))}`));
}

/** How a pane ended: `1 3 ` (dead, exit status 3), `1  15` (killed by signal 15), `0  ` (running). */
export const PANE_EXIT_FORMAT = '#{pane_dead} #{pane_dead_status} #{pane_dead_signal}';

export function parsePaneExit(line: string): PaneExit | undefined {
  const m = /^([01]) (\d*) (\d*)$/.exec(line.replace(/\n$/, ''));
  if (!m) fail('pane exit', line);
  if (m[1] !== '1') return undefined;
  if (m[3] !== '') return { signal: Number(m[3]) };
  return m[2] !== '' ? { code: Number(m[2]) } : undefined;
}

/** The line tmux writes into a dead pane under remain-on-exit (`Pane is dead (status 3, <date>)`). */
export function isDeadPaneNotice(line: string): boolean {
  return /^Pane is dead \((status|signal) \d+/.test(line.trim());
}

/** The whole pane (all of its history and the screen) and how its process ended, in one tmux call. */
export async function capturePaneWithExit(server: TmuxServer, pane: string): Promise<{ text: string; exit: PaneExit | undefined }> {
  const out = await server.runChain([capturePaneArgs(pane, '-'), ['display-message', '-p', '-t', pane, PANE_EXIT_FORMAT]]);
  const body = out.replace(/\n$/, '');
  const cut = body.lastIndexOf('\n');
  return { text: cut < 0 ? '' : body.slice(0, cut), exit: parsePaneExit(body.slice(cut + 1)) };
}

/** Session/window/pane ids of a target (e.g. `$TMUX_PANE`). */
export async function displayPaneContext(server: TmuxServer, target: string): Promise<PaneContext> {
  return parsePaneContext(await server.run(['display-message', '-p', '-t', target, PANE_CONTEXT_FORMAT]));
}

/** The full path of the server's socket (`#{socket_path}`): names this server from any shell. */
export async function socketPathOf(server: TmuxServer): Promise<string> {
  const path = (await server.run(['display-message', '-p', '#{socket_path}'])).replace(/\n$/, '');
  if (!path.startsWith('/')) fail('socket path', path);
  return path;
}

/** Tests only: stop the (private) server. */
export async function killServer(server: TmuxServer): Promise<void> {
  await server.run(['kill-server']);
}
