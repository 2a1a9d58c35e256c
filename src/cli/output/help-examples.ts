// The "Examples:" section of every --help: each example's command on a line of its own, never cut,
// its description indented below it. yargs lays examples out in two columns, the command column
// at most half the width, so a long command was cut into pieces that cannot be pasted. yargs has no
// hook for that section, so `layoutExamples` takes over two methods of its usage instance: each
// example is stored as a short marker line (which yargs keeps, resets and freezes per command as
// usual), and the rendered help has each marker replaced by the example laid out here.
import type { Argv } from 'yargs';

/** The help's width: the terminal's, or (a pipe, a file: `npm run docs`) a fixed 100 columns. */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number }): number {
  return stdout.isTTY === true && stdout.columns !== undefined && stdout.columns > 0 ? stdout.columns : 100;
}

/** `text` cut at spaces into lines of at most `width` characters (a longer word stays whole). */
function wrapWords(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  return line === '' ? lines : [...lines, line];
}

/** One example as help prints it: `  <command>` whole, then the description at 6 columns, wrapped. */
export function exampleLines(command: string, description: string, width: number): string[] {
  return [`  ${command}`, ...wrapWords(description, Math.max(20, width - 6)).map((l) => `      ${l}`)];
}

interface UsageInstance {
  example(cmd: string, description?: string): void;
  help(): string;
}

const MARK = '\u0001example ';

/** Make `cli`'s --help print its examples as `exampleLines` does, at `width` columns. */
export function layoutExamples(cli: Argv, width: number): void {
  // Neither is in yargs' types: the usage instance, and $0 (the script name the help prints).
  const yargs = cli as unknown as { $0: string; getInternalMethods(): { getUsageInstance(): UsageInstance } };
  const usage = yargs.getInternalMethods().getUsageInstance();
  const examples: Array<[string, string]> = [];
  const add = usage.example.bind(usage);
  const help = usage.help.bind(usage);
  usage.example = (cmd, description) => {
    examples.push([cmd, description ?? '']);
    add(`${MARK}${examples.length - 1}`, '');
  };
  usage.help = () =>
    help().replace(new RegExp(`^ *${MARK}(\\d+) *$`, 'gm'), (_, i: string) => {
      const [cmd, description] = examples[Number(i)]!;
      return exampleLines(cmd.replace(/\$0/g, yargs.$0), description, width).join('\n');
    });
}
