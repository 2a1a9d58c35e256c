// The console's terminal: one node:readline prompt line at the bottom, events printed above it.
// Printing never loses what the user is typing: the prompt (and a wrapped half-typed line) is
// erased, the event written, then readline redraws the prompt with the same line and cursor.
// A "key" handler sees single keys typed on an empty line (y/a/n answers): the key is taken back
// out of the line (Ctrl-U) and handled at once, without Enter. Without a TTY (pipes, tests)
// everything is line-based and printing is plain. On a terminal, printed text is wrapped at word
// boundaries to the terminal's width (a word longer than a line is cut), not mid-word by the terminal.
// A terminal that goes away (`tmux kill-pane`, a closed window) ends the input: readline's EIO from
// restoring the dead terminal's mode is taken as that end (onClose), never thrown as an unhandled
// 'error' that would kill the process before its console has cleaned up.
import readline from 'node:readline';
import wrapAnsi from 'wrap-ansi';
import { isClosedOutputError } from '../output/closed-output.js';
import { onSignals } from '../interrupts.js';

export interface ScreenOptions {
  input: NodeJS.ReadableStream & { isTTY?: boolean };
  output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number; rows?: number };
  completer?: (line: string) => [string[], string];
}

export interface Key {
  sequence?: string;
  name?: string;
  ctrl?: boolean;
  meta?: boolean;
}

/** For a key typed on an empty line: the action that takes it, or undefined to leave it typed. */
export type KeyHandler = (key: string) => (() => void) | undefined;

export class Screen {
  readonly rl: readline.Interface;
  readonly tty: boolean;
  private keyHandler: KeyHandler | undefined;
  private closed = false;
  private readonly signalHandlers: (() => void)[] = [];

  constructor(private readonly opts: ScreenOptions) {
    this.tty = opts.input.isTTY === true && opts.output.isTTY === true;
    this.rl = readline.createInterface({
      input: opts.input,
      output: opts.output,
      terminal: this.tty,
      historySize: 200,
      ...(opts.completer ? { completer: opts.completer } : {}),
    });
    this.rl.on('close', () => (this.closed = true));
    // The terminal is gone (EIO): readline still emits 'close' after this, which ends the console.
    this.rl.on('error', (e: unknown) => {
      if (!isClosedOutputError(e)) throw e;
    });
    this.rl.pause(); // no input is read until the handlers are in place (listen())
    if (this.tty) opts.input.on('keypress', (s: string | undefined, key: Key | undefined) => this.onKeypress(s, key));
  }

  /** Called for each single printable key typed on an empty line; returns what to do to take it. */
  onKey(handler: KeyHandler | undefined): void {
    this.keyHandler = handler;
  }

  onLine(handler: (line: string) => void): void {
    this.rl.on('line', handler);
  }

  /** Ctrl-C at the prompt (a key on a TTY), or SIGINT sent to the process (until close). */
  onInterrupt(handler: () => void): void {
    this.rl.on('SIGINT', handler);
    this.signalHandlers.push(onSignals(['SIGINT'], () => handler()));
  }

  /** The input ended (Ctrl-D, or EOF of a pipe). */
  onClose(handler: () => void): void {
    this.rl.on('close', handler);
  }

  setPrompt(prompt: string): void {
    if (this.closed) return;
    this.rl.setPrompt(prompt);
    if (this.tty) {
      this.erasePrompt();
      this.rl.prompt(true);
    }
  }

  /** Start reading input (after onLine/onKey/onInterrupt/onClose are set). */
  listen(): void {
    if (!this.closed) this.rl.resume();
  }

  /** Show the prompt (after start-up output). */
  prompt(): void {
    if (!this.closed && this.tty) this.rl.prompt(true);
  }

  /** The terminal's height in rows, when printing goes to a terminal. */
  get height(): number | undefined {
    return this.tty && !this.closed ? this.opts.output.rows : undefined;
  }

  /** Print lines above the prompt, keeping the half-typed line and the cursor; returns the rows printed. */
  print(text: string): number {
    if (this.closed || !this.tty) {
      this.opts.output.write(`${text}\n`);
      return text.split('\n').length;
    }
    this.erasePrompt();
    const columns = this.opts.output.columns;
    const shown = columns ? wrapAnsi(text, columns, { hard: true, trim: false }) : text;
    this.opts.output.write(`${shown}\n`);
    this.rl.prompt(true);
    return shown.split('\n').length;
  }

  /** The line typed so far (not yet submitted). */
  get line(): string {
    return this.rl.line;
  }

  /** Drop the half-typed line (Ctrl-C on a non-empty line, as in a shell). */
  clearLine(): void {
    if (this.closed || !this.tty) return;
    this.rl.write(null, { ctrl: true, name: 'e' });
    this.rl.write(null, { ctrl: true, name: 'u' });
  }

  close(): void {
    for (const off of this.signalHandlers.splice(0)) off();
    if (this.closed) return;
    if (this.tty) this.erasePrompt();
    this.rl.close();
  }

  private erasePrompt(): void {
    const out = this.opts.output;
    const rows = this.rl.getCursorPos().rows;
    if (rows > 0) readline.moveCursor(out, 0, -rows);
    readline.cursorTo(out, 0);
    readline.clearScreenDown(out);
  }

  private onKeypress(s: string | undefined, key: Key | undefined): void {
    const handler = this.keyHandler;
    if (handler === undefined || key?.ctrl || key?.meta || s === undefined || s.length !== 1) return;
    // readline has already inserted the key: it was typed on an empty line when the line is just it.
    if (this.rl.line !== s) return;
    const action = handler(s);
    if (action === undefined) return;
    this.rl.write(null, { ctrl: true, name: 'u' }); // take the key back out of the line
    action();
  }
}
