// The readiness handshake of a teammate just started in a pane (docs/protocol.md#ready step 5), shared by spawn
// and resume: its prompt is marked read or removed (`msgId`; none for a resumed swarm teammate) and,
// for the swarm runtime, its status/<name>.json names a live pid; a claude teammate continuing its
// session (`session`: no prompt is sent) has written to that session's transcript. Re-checked on every change in the
// inbox and status directories and on a short tick (to notice a pane that died), with a deadline. A
// claude teammate's screen is also read every second: while it shows one of Claude Code's
// first-run dialogs (claude-dialogs.ts) the caller hears it through `onNotice` and the wait lasts up
// to `dialogTimeoutMs`; once the dialog is gone the ready deadline starts again.
// `abandonPane` and `startFailure` are the other half: a start that failed kills its pane and says
// why with the pane's last lines and its stderr log.
import { promises as fs } from 'node:fs';
import { constants as osConstants } from 'node:os';
import type { Backend, PaneExit, PaneOutput, PaneRef } from '../backends/backend.js';
import { isProcessAlive, tailLines } from '../backends/process.js';
import type { Mailbox } from '../mailbox/mailbox.js';
import { SwarmError, isSwarmError } from '../protocol/errors.js';
import { StatusFileSchema } from '../protocol/status.js';
import { awaitFiles } from '../storage/await-files.js';
import { parseText } from '../storage/json-file.js';
import type { Team } from '../team/team.js';
import type { Env, TeammateRuntime } from './command-line.js';
import { DialogWatch } from './dialog-watch.js';
import { DEFAULT_READY_TIMEOUT_MS } from './spawn-choices.js';

export const DEFAULT_DIALOG_TIMEOUT_MS = 10 * 60_000;
const OUTPUT_LINES = 15;

export interface ReadinessOptions {
  team: Team;
  backend: Backend;
  env: Env;
  mailbox: Mailbox;
  name: string;
  /** The prompt that must be taken ('' for none: a resumed swarm teammate is ready on its heartbeat). */
  msgId: string;
  /**
   * A claude teammate resumed with `claude --resume`: its session's transcript and its size before
   * the pane was made. Claude Code appends to it as it starts (2.1.112 and 2.1.332, with nothing
   * unread too), so it is ready once the file is longer.
   */
  session?: { transcript: string; size: number } | undefined;
  pane: PaneRef;
  runtime: TeammateRuntime;
  cwd: string;
  /** Default DEFAULT_READY_TIMEOUT_MS. */
  readyTimeoutMs?: number | undefined;
  dialogTimeoutMs?: number | undefined;
  onNotice?: ((text: string) => void) | undefined;
  signal?: AbortSignal | undefined;
}

const ALIVE_CHECK_MS = 400;

/** Step 5 of a spawn (and of a resume): resolves once ready, throws SwarmError('backend' | 'interrupted') if not. */
export async function awaitReadiness(o: ReadinessOptions): Promise<void> {
  const { mailbox, name, msgId, pane, runtime, cwd } = o;
  const paths = o.team.paths;
  const timeoutMs = o.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  const dialogs =
    runtime === 'claude'
      ? new DialogWatch({
          backend: o.backend,
          pane,
          name,
          cwd,
          env: o.env,
          waitMs: o.dialogTimeoutMs ?? DEFAULT_DIALOG_TIMEOUT_MS,
          ...(o.onNotice ? { onNotice: o.onNotice } : {}),
        })
      : undefined;
  let deadline = Date.now() + timeoutMs;
  // Asking the backend whether the pane lives costs a tmux process; every file change in the team
  // re-runs this check for every pending spawn, so ask at most every ALIVE_CHECK_MS.
  let nextAliveCheck = 0;
  const check = async (): Promise<'ready' | 'died' | undefined> => {
    const entry = (await mailbox.read(name)).find((m) => m.msg_id === msgId);
    const promptTaken = entry === undefined || entry.read;
    const statusOk = runtime === 'claude' || (await liveStatus(paths.status(name), o.backend.remoteProcesses !== true));
    const sessionOpened = o.session === undefined || (await fileSize(o.session.transcript)) > o.session.size;
    if (promptTaken && statusOk && sessionOpened) return 'ready';
    const now = Date.now();
    if (now >= nextAliveCheck) {
      nextAliveCheck = now + ALIVE_CHECK_MS;
      if (!(await o.backend.isAlive(pane))) return 'died';
    }
    if (dialogs !== undefined) deadline = await dialogs.check(deadline, timeoutMs);
    return undefined;
  };
  let outcome: 'ready' | 'died' | undefined;
  // A dialog moves the deadline while a wait runs: wait again until the latest one has passed.
  while (outcome === undefined && Date.now() < deadline) {
    outcome = await awaitFiles([paths.inboxes, paths.statusDir], check, {
      timeoutMs: deadline - Date.now(),
      tickMs: 200,
      ...(o.signal ? { signal: o.signal } : {}),
    }).catch((e: unknown) => {
      throw o.signal?.aborted ? new SwarmError('interrupted', `interrupted before ${name} was ready`, { cause: e }) : e;
    });
  }
  if (outcome === 'ready') return;
  const showing = dialogs?.showing;
  const why =
    outcome === 'died'
      ? `${name} exited before it was ready`
      : showing !== undefined
        ? `${name} was still waiting on Claude Code's ${showing.what}: nobody answered it in time (answer it in its pane, or seed Claude Code's state file as the notice said)`
        : `${name} was not ready within ${Math.round(timeoutMs / 1000)} s (${o.session !== undefined ? `it did not take up its Claude Code session ${o.session.transcript}` : `it did not pick up its prompt${runtime === 'swarm' ? ' and write its status file' : ''}`})`;
  throw new SwarmError('backend', why);
}

/** The size of `file` in bytes, -1 when it is not there. */
export async function fileSize(file: string): Promise<number> {
  return (await fs.stat(file).catch(() => undefined))?.size ?? -1;
}

/**
 * A parsed status file whose pid is alive. A pid on another machine (`checkPid` false) means
 * nothing here: the pane's own liveness (asked of the backend meanwhile) stands for it.
 */
async function liveStatus(file: string, checkPid: boolean): Promise<boolean> {
  const raw = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (raw === undefined) return false;
  const parsed = parseText(raw, StatusFileSchema);
  return parsed.ok && (!checkPid || isProcessAlive(parsed.value.pid));
}

/** "exit status 3", "killed by SIGTERM": how a pane's process ended. */
export function describeExit(exit: PaneExit): string {
  if ('code' in exit) return `exit status ${exit.code}`;
  const name = Object.entries(osConstants.signals).find(([, n]) => n === exit.signal)?.[0];
  return name === undefined ? `killed by signal ${exit.signal}` : `killed by ${name}`;
}

/** Capture a failed start's pane (its last lines, how it ended), then kill it; problems are added to `problems`. */
export async function abandonPane(backend: Backend, pane: PaneRef | undefined, problems: string[], stderrLog?: string): Promise<AbandonedPane> {
  if (pane === undefined) return { lines: [] };
  const output = await backend.capture(pane, OUTPUT_LINES).catch((): PaneOutput => ({ lines: [] }));
  // Its process has ended, but the log's tee may still be copying its last lines, and the kill
  // ends the tee with the pane (one process group): read the log first.
  const stderr = stderrLog !== undefined && output.exit !== undefined ? await settledLog(stderrLog) : undefined;
  await backend.kill(pane).catch((e: unknown) => problems.push(`the pane could not be killed: ${String(e)}`));
  return { ...output, ...(stderr !== undefined ? { stderr } : {}) };
}

/** What a killed pane showed, and its stderr log when it was read before the kill. */
export interface AbandonedPane extends PaneOutput {
  stderr?: string;
}

/** How long a failed start's stderr log may take to be written (LOG_SETTLE_MS), and how often it is looked at meanwhile. */
const LOG_SETTLE_MS = 3000;
const LOG_LOOK_MS = 50;

/**
 * The stderr log of a process that has just ended. Its `tee` (backends/stderr-log.ts) outlives it
 * and may not have copied its last lines yet on a loaded machine: read until the log is not empty
 * and the same twice LOG_LOOK_MS apart, or LOG_SETTLE_MS pass.
 */
async function settledLog(file: string, settleMs = LOG_SETTLE_MS): Promise<string> {
  const deadline = Date.now() + settleMs;
  let text = await fs.readFile(file, 'utf8').catch(() => '');
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, LOG_LOOK_MS));
    const again = await fs.readFile(file, 'utf8').catch(() => '');
    if (again === text && text !== '') break;
    text = again;
  }
  return text;
}

/** The error of a failed start: `<what>: <why>`, then the pane's last output or else the stderr log's tail. */
export async function startFailure(what: string, stderrLog: string, output: AbandonedPane, problems: readonly string[], cause: unknown, logSettleMs?: number): Promise<SwarmError> {
  const stderr = tailLines(output.stderr ?? (await settledLog(stderrLog, logSettleMs)), OUTPUT_LINES);
  const base = cause instanceof Error ? cause.message.split('\n')[0]! : String(cause);
  const exit = output.exit === undefined ? '' : ` (${describeExit(output.exit)})`;
  const indent = (lines: readonly string[]): string[] => lines.map((l) => `  ${l}`);
  // The pane shows stderr too, but a process that dies at once may be gone before tmux has drawn
  // its last lines: those the capture lacks are added from the log (tailLines drops blank lines).
  const unseen = stderr.filter((l) => !output.lines.some((p) => p.includes(l.trim())));
  const lines = [
    `${what}: ${base}${exit}${problems.length > 0 ? `; ${problems.join('; ')}` : ''}`,
    ...(output.lines.length > 0
      ? [
          'last output of its pane:',
          ...indent(output.lines),
          ...(unseen.length > 0 ? [`then on its stderr (${stderrLog}):`, ...indent(unseen)] : stderr.length > 0 ? [`its stderr is kept in ${stderrLog}`] : []),
        ]
      : stderr.length > 0
        ? [`its stderr (${stderrLog}):`, ...indent(stderr)]
        : []),
  ];
  const kind = isSwarmError(cause) ? cause.kind : 'backend';
  return new SwarmError(kind, lines.join('\n'), { cause });
}
