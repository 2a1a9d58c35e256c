// The pane's live view: what a person watching a teammate sees. Streamed model text as it arrives;
// one line per tool call (`⏺ Bash(npm test)`) and one for its result (`  ⎿ 12 lines, 340 chars`);
// permission and plan waits; messages in (`←`) and out (`→`); retries, idle and exit lines. Names
// and markers in the member's colour, at the colour level the CLI decided (cli/output/color.ts).
import { Chalk, type ChalkInstance, type ColorSupportLevel } from 'chalk';
import { painter } from '../team/paint.js';
import { oneLine } from '../protocol/text.js';

export type Writer = (text: string) => void;

/** "12 lines, 340 chars" — the size of a tool result. */
export function sizeOf(text: string): string {
  const lines = text === '' ? 0 : text.split('\n').length;
  return `${lines} line${lines === 1 ? '' : 's'}, ${text.length} chars`;
}

export class PaneView {
  private readonly chalk: ChalkInstance;
  private readonly paint: (s: string) => string;
  private atLineStart = true;
  private colors = new Map<string, string | undefined>();

  constructor(
    private readonly write: Writer,
    color: string | undefined,
    level: ColorSupportLevel = 0,
  ) {
    const chalk = new Chalk({ level });
    this.chalk = chalk;
    this.paint = painter(chalk, color);
  }

  /** Member colours for message lines. */
  setRoster(members: readonly { name: string; color?: string | undefined }[]): void {
    this.colors = new Map(members.map((m) => [m.name, m.color]));
  }

  /** End a partly written line (streamed text without its newline). */
  protected finishLine(): void {
    if (!this.atLineStart) this.write('\n');
    this.atLineStart = true;
  }

  private line(text: string): void {
    if (!this.atLineStart) this.write('\n');
    this.write(`${text}\n`);
    this.atLineStart = true;
  }

  banner(name: string, team: string, details: string): void {
    this.line(`${this.paint(`● ${name}`)} ${this.chalk.dim(`@${team}  ${details}`)}`);
  }

  /** A streamed text delta from the model. */
  text(delta: string): void {
    if (delta === '') return;
    this.write(delta);
    this.atLineStart = delta.endsWith('\n');
  }

  /** The model step being retried: the partial text above is void. */
  restart(): void {
    if (!this.atLineStart) this.line(this.chalk.dim(' …(cut off, retrying)'));
  }

  toolCall(name: string, summary: string): void {
    this.line(`${this.paint('⏺')} ${this.chalk.bold(name)}${summary ? `(${oneLine(summary, 100)})` : ''}`);
  }

  toolResult(text: string, isError: boolean): void {
    const first = oneLine(text, 100);
    const body = isError ? this.chalk.red(`error: ${first}`) : this.chalk.dim(`${sizeOf(text)}`);
    this.line(`  ⎿ ${body}`);
  }

  waiting(what: string): void {
    this.line(this.chalk.yellow(`  ⏳ ${what}`));
  }

  decided(allowed: boolean, text: string): void {
    this.line(`  ${allowed ? this.chalk.green('✔') : this.chalk.red('✘')} ${text}`);
  }

  messageIn(from: string, text: string, note?: string): void {
    const who = painter(this.chalk, this.colors.get(from))(from);
    this.line(`${this.chalk.dim('←')} ${who}${note ? this.chalk.yellow(` [${note}]`) : ''}: ${oneLine(text, 160)}`);
  }

  messageOut(to: string, text: string): void {
    const who = to === '*' ? 'everyone' : painter(this.chalk, this.colors.get(to))(to);
    this.line(`${this.paint('→')} ${who}: ${oneLine(text, 160)}`);
  }

  notice(text: string): void {
    this.line(this.chalk.dim(`· ${text}`));
  }

  warn(text: string): void {
    this.line(this.chalk.yellow(`⚠ ${text}`));
  }

  error(text: string): void {
    this.line(this.chalk.red(`✘ ${text}`));
  }

  idle(): void {
    this.line(this.chalk.dim('— idle: waiting for messages —'));
  }
}
