// Shell commands in their own process groups, and stopping them for sure.
//
// Each command runs as `<shell> -c <command>` with `detached: true`, so it leads a new process group
// and everything it starts inherits it. A timeout, an abort or the teammate's exit signals the whole
// group (SIGTERM, then SIGKILL after `killGraceMs`) and waits until no process of it is left.
// When the shell exits but a background process it started still holds the output pipe, the tool
// returns anyway (output so far; the pipe is drained, never closed under it) and the group stays
// tracked: `killAll()` stops it when the teammate exits.
// With `input`, the text is written to the command's stdin (a hook's JSON); its stderr is also kept
// apart (a hook's feedback).
// node:child_process rather than execa here: we need the shell's `exit` separately from its pipes
// closing, and signals to the group (execa's timeout and kill act on the pid alone).
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable } from 'node:stream';
import { closeSync, existsSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { errnoCode } from '../../protocol/errors.js';
import { stopForSure } from '../../storage/pid.js';

export interface RunOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  /** Characters of output kept (head and tail halves; the middle is dropped and counted). */
  maxOutput: number;
  signal?: AbortSignal;
  /** After the shell exits, how long to wait for its pipes to close. */
  drainMs?: number;
  /** Written to the command's stdin, which is then closed (default: no stdin). */
  input?: string;
}

export interface RunResult {
  output: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  aborted: boolean;
  /** Characters dropped from the middle of the output. */
  truncated: number;
  /** Processes of the group were still running when the shell exited. */
  leftRunning: boolean;
  /** Its stderr alone (also in `output`), capped the same way. */
  stderr: string;
}

/** Keeps the first and last `max/2` characters of a stream of text. */
export class OutputCap {
  private head = '';
  private tail = '';
  dropped = 0;
  constructor(private readonly max: number) {}

  push(text: string): void {
    const half = Math.floor(this.max / 2);
    if (this.head.length < half) {
      const take = text.slice(0, half - this.head.length);
      this.head += take;
      text = text.slice(take.length);
    }
    if (text === '') return;
    const combined = this.tail + text;
    const keep = this.max - half;
    if (combined.length > keep) {
      this.dropped += combined.length - keep;
      this.tail = combined.slice(combined.length - keep);
    } else {
      this.tail = combined;
    }
  }

  text(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n\n... [${this.dropped} characters truncated] ...\n\n${this.tail}`;
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return errnoCode(e) === 'EPERM';
  }
}

function signalGroup(pgid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(-pgid, sig);
  } catch {
    // already gone
  }
}

export const DEFAULT_SHELL = existsSync('/bin/bash') ? '/bin/bash' : '/bin/sh';

/** `text` in a new private file, opened for reading and unlinked at once: a stdin that is a plain file. */
function inputFile(text: string): number {
  const dir = mkdtempSync(path.join(tmpdir(), 'swarm-input-'));
  try {
    const file = path.join(dir, 'stdin');
    writeFileSync(file, text, { mode: 0o600 });
    return openSync(file, 'r');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export class ProcessGroups {
  private readonly live = new Set<number>();

  constructor(
    private readonly shell = DEFAULT_SHELL,
    private readonly killGraceMs = 2000,
  ) {}

  get running(): number[] {
    for (const g of this.live) if (!groupAlive(g)) this.live.delete(g);
    return [...this.live];
  }

  /** SIGTERM the group, SIGKILL after the grace period; resolves true once it is gone (false if it lingers). */
  async killGroup(pgid: number): Promise<boolean> {
    const gone = await stopForSure((sig) => signalGroup(pgid, sig), () => !groupAlive(pgid), { termMs: this.killGraceMs });
    if (gone) this.live.delete(pgid);
    return gone;
  }

  /** Stop every group still tracked; resolves with the ids that would not die. */
  async killAll(): Promise<number[]> {
    const results = await Promise.all(this.running.map(async (g) => ((await this.killGroup(g)) ? undefined : g)));
    return results.filter((g): g is number => g !== undefined);
  }

  run(command: string, opts: RunOptions): Promise<RunResult> {
    const cap = new OutputCap(opts.maxOutput);
    const errCap = new OutputCap(opts.maxOutput);
    // Standard input is never a socket (node's pipes are socketpairs): bash takes a socket on its
    // stdin for an ssh session and reads ~/.bashrc, which may print, fail, or read the input meant
    // for a hook. No input: /dev/null; input (a hook's JSON): a private file, already unlinked.
    const input = opts.input === undefined ? undefined : inputFile(opts.input);
    let child: ChildProcessByStdio<null, Readable, Readable>;
    try {
      child = spawn(this.shell, ['-c', command], { cwd: opts.cwd, env: opts.env, detached: true, stdio: [input ?? 'ignore', 'pipe', 'pipe'] }) as ChildProcessByStdio<null, Readable, Readable>;
    } finally {
      if (input !== undefined) closeSync(input);
    }
    const pgid = child.pid;
    if (pgid !== undefined) this.live.add(pgid);
    const decoders = [new StringDecoder('utf8'), new StringDecoder('utf8')];
    child.stdout.on('data', (b: Buffer) => cap.push(decoders[0]!.write(b)));
    child.stderr.on('data', (b: Buffer) => {
      const text = decoders[1]!.write(b);
      cap.push(text);
      errCap.push(text);
    });

    return new Promise<RunResult>((resolve) => {
      let timedOut = false;
      let aborted = false;
      let settled = false;
      let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
      let pipesOpen = 2;
      let drainTimer: NodeJS.Timeout | undefined;
      const stop = (): void => {
        if (pgid !== undefined) void this.killGroup(pgid);
      };
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
      }, opts.timeoutMs);
      const onAbort = (): void => {
        aborted = true;
        stop();
      };
      opts.signal?.addEventListener('abort', onAbort, { once: true });
      if (opts.signal?.aborted) onAbort();

      const finish = (): void => {
        if (settled || !exit) return;
        settled = true;
        clearTimeout(timer);
        if (drainTimer) clearTimeout(drainTimer);
        opts.signal?.removeEventListener('abort', onAbort);
        const errTail = decoders[1]!.end();
        cap.push(decoders[0]!.end() + errTail);
        errCap.push(errTail);
        const leftRunning = pipesOpen > 0 && pgid !== undefined && groupAlive(pgid);
        if (pipesOpen > 0) {
          // Keep draining (a closed pipe would SIGPIPE a background server), but stop collecting.
          for (const stream of [child.stdout, child.stderr]) {
            stream.removeAllListeners('data');
            stream.resume();
          }
        }
        if (pgid !== undefined && !groupAlive(pgid)) this.live.delete(pgid);
        resolve({ output: cap.text(), exitCode: exit.code, signal: exit.signal, timedOut, aborted, truncated: cap.dropped, leftRunning, stderr: errCap.text() });
      };
      const pipeClosed = (): void => {
        pipesOpen -= 1;
        if (pipesOpen === 0) finish();
      };
      child.stdout.once('close', pipeClosed);
      child.stderr.once('close', pipeClosed);
      child.once('error', (e) => {
        const why = `failed to start ${this.shell}: ${e.message}`;
        cap.push(why);
        errCap.push(why);
        exit ??= { code: null, signal: null };
        pipesOpen = 0;
        finish();
      });
      child.once('exit', (code, signal) => {
        exit = { code, signal };
        if (pipesOpen === 0) return finish();
        drainTimer = setTimeout(finish, opts.drainMs ?? 200);
      });
    });
  }
}
