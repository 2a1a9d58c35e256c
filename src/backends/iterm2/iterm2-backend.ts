// The iTerm2 pane backend, driving iTerm2 through the Python `it2` CLI.
//
// iTerm2 has no "split with this command": `it2 session split` opens a pane running the user's
// shell, and `it2 session run` types a line into it (iTerm2 buffers the input until the shell
// reads it). The line is built by `buildRunCommand`: `cd <cwd> && env VAR=val ... sh -c
// 'echo $$ >"$0" && exec "$@"' <pidFile> <argv...>`, every word shell-quoted, so the teammate's
// real pid lands in a pid file; `createPane` resolves once that pid is known. Because the shell
// stays after the teammate exits, its output stays readable (like tmux's remain-on-exit) and
// `isAlive` checks the pid as well as the session listing.
//
// Layout: the first teammate splits the leader's session vertically (side by side), later ones
// split the previous teammate horizontally, so teammates stack on the right. The pane's name is set
// with `it2 session set-name` (best effort: a failure does not fail the spawn); iTerm2 has no
// per-pane label colour through it2, so `spec.color` is not shown. Creation is serialised.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SwarmError } from '../../protocol/errors.js';
import type { Backend, PaneOutput, PaneRef, PaneSpec, PaneState, PlanLine } from '../backend.js';
import { paneArgv, plannedPaneArgv } from '../pane-argv.js';
import { type Exec, isProcessAlive, pollUntil, tailLines, terminateProcess } from '../process.js';
import {
  It2Cli,
  buildRunCommand,
  closeSession,
  listSessions,
  readSession,
  runInSession,
  runInSessionArgs,
  setSessionName,
  setSessionNameArgs,
  splitSession,
  splitSessionArgs,
} from './it2-commands.js';

const PID_FILE_PLACEHOLDER = '<pid file>';
/** Lines `capture` asks it2 for: the screen and what it keeps above it. */
const READ_LINES = 1000;

export interface Iterm2BackendOptions {
  exec?: Exec;
  /** Environment for it2 calls (PATH decides which `it2` runs). Default: this process's. */
  env?: Record<string, string | undefined>;
  /** The leader's iTerm2 session ($ITERM_SESSION_ID); unset = the active session. */
  leaderSessionId?: string | undefined;
  /** Parent of the short-lived per-pane pid-file directories; default the OS temp dir. */
  runDir?: string;
  /** How long a new pane may take to report its pid. Default 15000 ms. */
  startTimeoutMs?: number;
  /** Deadline for verifying a kill, per stage. Default 3000 ms. */
  killTimeoutMs?: number;
}

export class Iterm2Backend implements Backend {
  readonly type = 'iterm2' as const;
  private readonly cli: It2Cli;
  private readonly opts: Iterm2BackendOptions;
  private lastPane: string | undefined;
  private queue: Promise<unknown> = Promise.resolve(); // never rejects

  constructor(opts: Iterm2BackendOptions = {}) {
    this.opts = opts;
    this.cli = new It2Cli({ exec: opts.exec, env: opts.env });
  }

  describe(): string {
    return 'iTerm2: teammates open in split panes beside the leader (via it2)';
  }

  howToReach(pane: PaneRef): string {
    return `click its iTerm2 pane (session ${pane.paneId}${pane.name === undefined ? '' : `, named ${pane.name}`}) beside the leader`;
  }

  createPane(spec: PaneSpec): Promise<PaneRef> {
    // A small promise queue: one creation at a time; a failure does not block the next.
    const run = this.queue.then(() => this.create(spec));
    this.queue = run.catch(() => undefined);
    return run;
  }

  async isAlive(pane: PaneRef): Promise<boolean> {
    const listed = (await listSessions(this.cli)).includes(pane.paneId);
    return listed && (pane.pid === undefined || isProcessAlive(pane.pid));
  }

  /**
   * One `it2 session list` for all of them. The shell stays after the teammate exits, so a listed
   * session whose recorded pid is gone is `dead` (as a tmux pane under remain-on-exit).
   */
  async probe(panes: readonly PaneRef[]): Promise<PaneState[]> {
    let listed: string[];
    try {
      listed = await listSessions(this.cli);
    } catch {
      return panes.map(() => 'unknown');
    }
    return panes.map((p) => (!listed.includes(p.paneId) ? 'gone' : p.pid === undefined || isProcessAlive(p.pid) ? 'alive' : 'dead'));
  }

  /** What create() runs, from the same builders (the first teammate splits the leader beside it). */
  plan(spec: PaneSpec): PlanLine[] {
    const pane = '<new session>';
    const planned = plannedPaneArgv(spec);
    const line = buildRunCommand({ cwd: spec.cwd, env: {}, argv: planned.argv, pidFile: PID_FILE_PLACEHOLDER });
    return [
      { run: ['it2', ...splitSessionArgs({ session: `<${this.opts.leaderSessionId ?? 'leader session'}, later the previous teammate without -v>`, vertical: true })] },
      { run: ['it2', ...setSessionNameArgs(pane, spec.name)] },
      ...(planned.note === undefined ? [] : [{ note: planned.note }]),
      { run: ['it2', ...runInSessionArgs(pane, line)] },
    ];
  }

  async kill(pane: PaneRef): Promise<void> {
    const timeout = this.opts.killTimeoutMs ?? 3000;
    const listed = async (): Promise<boolean> => (await listSessions(this.cli)).includes(pane.paneId);
    if (await listed()) await this.closeQuietly(pane.paneId);
    const processGone =
      pane.pid === undefined ? true : await terminateProcess(pane.pid, { waitMs: timeout / 3, termMs: timeout, killMs: timeout });
    // iTerm2 may keep a pane whose job was still running when asked to close; its shell is idle now.
    if (await listed()) await this.closeQuietly(pane.paneId);
    const paneGone = await pollUntil(async () => !(await listed()), timeout, 50);
    if (!paneGone || !processGone) {
      const what = [paneGone ? '' : `session ${pane.paneId} still listed`, processGone ? '' : `process ${pane.pid} still alive`]
        .filter(Boolean)
        .join(', ');
      throw new SwarmError('backend', `could not verify kill of iTerm2 session ${pane.paneId}: ${what}`);
    }
    if (this.lastPane === pane.paneId) this.lastPane = undefined;
  }

  /** Read well past `lines` (blank rows are dropped); it2 does not report the exit status. */
  async capture(pane: PaneRef, lines: number): Promise<PaneOutput> {
    return { lines: tailLines(await readSession(this.cli, pane.paneId, READ_LINES), lines) };
  }

  // ---- internals -------------------------------------------------------------------------------

  private async create(spec: PaneSpec): Promise<PaneRef> {
    const first = this.lastPane === undefined;
    const paneId = await splitSession(this.cli, {
      session: first ? this.opts.leaderSessionId : this.lastPane,
      vertical: first,
    });
    try {
      await setSessionName(this.cli, paneId, spec.name);
    } catch {
      // Best effort: the name is cosmetic, the teammate matters.
    }
    // A private (0700) directory per pane for the pid file, removed once the pid is read.
    const pidDir = await mkdtemp(path.join(this.opts.runDir ?? tmpdir(), 'swarm-it2-'));
    const pidFile = path.join(pidDir, 'teammate.pid');
    try {
      // The environment travels in a private file (pane-argv.ts): secrets are never typed into the
      // shell; stderr is teed into spec.stderrLog.
      const argv = await paneArgv(spec);
      await runInSession(this.cli, paneId, buildRunCommand({ cwd: spec.cwd, env: {}, argv, pidFile }));
      const pid = await this.waitForPid(pidFile, paneId);
      this.lastPane = paneId;
      return { paneId, backendType: 'iterm2', pid };
    } catch (e) {
      await this.closeQuietly(paneId);
      throw e;
    } finally {
      await rm(pidDir, { recursive: true, force: true });
    }
  }

  private async waitForPid(pidFile: string, paneId: string): Promise<number> {
    let pid: number | undefined;
    const ok = await pollUntil(
      async () => {
        const text = await readFile(pidFile, 'utf8').catch(() => '');
        pid = /^\d+\n$/.test(text) ? Number(text) : undefined;
        return pid !== undefined;
      },
      this.opts.startTimeoutMs ?? 15000,
      50,
    );
    if (!ok || pid === undefined) {
      const screen = await readSession(this.cli, paneId, 10).catch(() => '');
      const shown = tailLines(screen, 10);
      throw new SwarmError('backend', `the command did not start in iTerm2 session ${paneId}${shown.length > 0 ? `:\n${shown.join('\n')}` : ''}`);
    }
    return pid;
  }

  private async closeQuietly(paneId: string): Promise<void> {
    try {
      await closeSession(this.cli, paneId);
    } catch {
      // Already gone, or iTerm2 refused; the caller verifies.
    }
  }
}
