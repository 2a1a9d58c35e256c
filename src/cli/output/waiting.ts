// The progress line of a wait on several teammates (`swarm shutdown`): "waiting for alice, bob
// (12 s)…" on stderr, naming, in the order given (the roster's), only those that have been asked
// (`asked`) and have not answered yet (`done`). It is first written a second after every request
// is out (a prompt answer prints nothing); then, on a terminal, it is one line rewritten in place
// every second and erased at the end; otherwise (a log, a pipe) a new line every 10 s, so a long
// wait leaves a few lines, not a flood.
import { cliIo } from '../io.js';

/** Where the line goes: stderr, or the console's print. */
export interface LineSink {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface WaitingOptions {
  stream?: LineSink;
  now?: () => number;
  /** How often a line is written when the stream is not a terminal. Default 10 s. */
  logEveryMs?: number;
  /** How long after the last request the first line is written. Default 1 s. */
  firstAfterMs?: number;
}

const MAX_NAMES = 4;
const FIRST_AFTER_MS = 1000;

/** "alice, bob and 3 more" */
export function nameList(names: readonly string[]): string {
  if (names.length <= MAX_NAMES) return names.join(', ');
  return `${names.slice(0, MAX_NAMES - 1).join(', ')} and ${names.length - (MAX_NAMES - 1)} more`;
}

export class WaitingLine {
  /** The names in the order given (the roster's): the line keeps it, however the requests race. */
  private readonly order: readonly string[];
  /** Not asked yet and not done, in the order given. */
  private readonly unasked: string[];
  /** Asked and not done. */
  private readonly askedNames = new Set<string>();
  private readonly stream: LineSink;
  private readonly now: () => number;
  private readonly startedAt: number;
  private readonly every: number;
  private readonly firstAfter: number;
  private timer: NodeJS.Timeout | undefined;
  private first: NodeJS.Timeout | undefined;
  private shown = false;
  private stopped = false;

  constructor(names: readonly string[], o: WaitingOptions = {}) {
    this.order = [...names];
    this.unasked = [...names];
    this.stream = o.stream ?? cliIo().stderr;
    this.now = o.now ?? Date.now;
    this.startedAt = this.now();
    this.every = this.stream.isTTY === true ? 1000 : (o.logEveryMs ?? 10_000);
    this.firstAfter = o.firstAfterMs ?? FIRST_AFTER_MS;
  }

  /** Asked and not answered yet. */
  get waitingFor(): readonly string[] {
    return this.order.filter((n) => this.askedNames.has(n));
  }

  /** Not asked yet (an interruption came first). */
  get notAsked(): readonly string[] {
    return this.unasked;
  }

  /** Milliseconds since the wait began. */
  get elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  /** `name`'s request is out. */
  asked(name: string): void {
    remove(this.unasked, name);
    this.askedNames.add(name);
    this.startOnceAllAsked();
  }

  /** `name` has an outcome (also one that was never asked: it had already exited). */
  done(name: string): void {
    remove(this.unasked, name);
    this.askedNames.delete(name);
    if (this.stream.isTTY === true && this.shown) this.draw(); // the line shrinks at once
    this.startOnceAllAsked();
  }

  /** Stop updating and erase the in-place line. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.first);
    clearInterval(this.timer);
    if (this.stream.isTTY === true && this.shown) this.stream.write('\r\x1b[2K');
    this.shown = false;
  }

  private startOnceAllAsked(): void {
    if (this.first !== undefined || this.stopped || this.unasked.length > 0 || this.askedNames.size === 0) return;
    this.first = setTimeout(() => {
      this.timer = setInterval(() => this.draw(), this.every);
      this.timer.unref();
      this.draw();
    }, this.firstAfter);
    this.first.unref();
  }

  private draw(): void {
    if (this.askedNames.size === 0) {
      this.stop();
      return;
    }
    const seconds = Math.round(this.elapsedMs / 1000);
    const text = `waiting for ${nameList(this.waitingFor)}${seconds > 0 ? ` (${seconds} s)` : ''}…`;
    this.stream.write(this.stream.isTTY === true ? `\r\x1b[2K${text}` : `${text}\n`);
    this.shown = true;
  }
}

function remove(list: string[], name: string): void {
  const i = list.indexOf(name);
  if (i >= 0) list.splice(i, 1);
}
