// The `swarm` command line: yargs wiring, global flags, and the one place that turns an error into
// a one-line message and an exit code (2 for usage errors, 1 for everything else). `main(argv, io)`
// runs one command line against `io` (io.ts) and resolves to its exit status; bin/swarm.js calls it
// with no arguments (the real process) and sets process.exitCode from it.
// Every command's definition is imported here (yargs needs them all to parse and for --help); what
// a command does is in cli/handlers/ (or a feature folder), imported by its handler when it runs.
import yargs, { type Argv } from 'yargs';
import { hideBin } from 'yargs/helpers';
import { agentsCommand } from './commands/agents.js';
import { boardCommand } from './commands/board.js';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { inboxCommand } from './commands/inbox.js';
import { launchCommand } from './commands/launch.js';
import { leadCommand } from './commands/lead.js';
import { mcpCommand } from './commands/mcp.js';
import { memoryCommand } from './commands/memory.js';
import { approveCommand, denyCommand, permissionsCommand } from './commands/permissions.js';
import { planCommand } from './commands/plan.js';
import { resumeCommand } from './commands/resume.js';
import { runCommand } from './commands/run.js';
import { sendCommand } from './commands/send.js';
import { spawnCommand } from './commands/spawn.js';
import { statusCommand } from './commands/status.js';
import { killCommand, shutdownCommand } from './commands/stop.js';
import { tasksCommand } from './commands/tasks.js';
import { teamCommand } from './commands/team.js';
import { teammateCommand } from './commands/teammate.js';
import { worktreesCommand } from './commands/worktrees.js';
import { exitCodeFor, fail } from './fail.js';
import { processIo, withCliRun, type CliIo, type CliRun } from './io.js';
import { applyColorFlag, chalk } from './output/render.js';
import { nearest } from '../protocol/spelling.js';
import { helpWidth, layoutExamples } from './output/help-examples.js';
import { handleClosedOutput } from './output/closed-output.js';
import { SWARM_VERSION } from './version.js';


const camel = (s: string): string => s.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Strict mode's "Unknown argument(s): wach, dry-rn, dryRn" as the user typed it, with a "did you
 * mean" for each flag near a real one: `unknown flag --wach; did you mean --watch?`. Undefined
 * for any other message. `known` are the failing command's options (aliases included).
 */
export function unknownFlagMessage(msg: string | undefined, argv: readonly string[], known: readonly string[]): string | undefined {
  const listed = /^Unknown arguments?: (.*)$/.exec(msg ?? '')?.[1]?.split(', ');
  if (listed === undefined) return undefined;
  const flags = known.filter((k) => k.length > 1);
  // yargs lists a dashed flag twice (dry-rn, dryRn) and reports --no-x as x.
  const words = listed.filter((u) => !listed.some((o) => o !== u && camel(o) === u));
  const typedAs = (u: string): string | undefined =>
    argv.some((a) => a === `--${u}` || a.startsWith(`--${u}=`)) ? `--${u}` : argv.includes(`--no-${u}`) ? `--no-${u}` : undefined;
  const stray = words.filter((u) => typedAs(u) === undefined);
  const parts = words.flatMap((u) => {
    const typed = typedAs(u);
    if (typed === undefined) return [];
    const meant = nearest(u, flags);
    return [`unknown flag ${typed}${meant === undefined ? '' : `; did you mean ${typed.startsWith('--no-') ? '--no-' : '--'}${meant}?`}`];
  });
  if (stray.length > 0) parts.push(`unknown argument${stray.length === 1 ? '' : 's'}: ${stray.join(', ')}`);
  return parts.join('; ');
}

/**
 * The long flags typed in `argv` (before a `--`) that are none of `known`, as strict mode would list
 * them: `swarm run --promt x` reads x as --promt's value, so yargs first fails on the missing goal;
 * the flag is the cause, and it is what the user must hear about.
 */
export function unknownTypedFlags(argv: readonly string[], known: readonly string[]): string[] {
  const end = argv.indexOf('--');
  const names = (end < 0 ? argv : argv.slice(0, end)).flatMap((a) => /^--([^=]+)/.exec(a)?.[1] ?? []);
  const isKnown = (n: string): boolean => known.includes(n) || known.includes(camel(n));
  return names.filter((n) => !isKnown(n) && !(n.startsWith('no-') && isKnown(n.slice(3))));
}

/**
 * `--host -oProxyCommand=x`: a flag that takes a value, followed by a word yargs read as a cluster
 * of short flags (so the flag got no value, and strict mode lists o, P, r, x, ... as unknown). The
 * one-line message naming both, or undefined. `valueFlags` are the failing command's options that
 * take a value; `known` all its options (a known short flag after a value flag is yargs' business).
 */
export function flagAsValueMessage(argv: readonly string[], valueFlags: readonly string[], known: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < argv.length; i++) {
    const typed = argv[i]!;
    const flag = /^--([^=]+)$|^-([A-Za-z])$/.exec(typed)?.slice(1).find((f) => f !== undefined);
    const word = argv[i + 1]!;
    if (flag === undefined || !valueFlags.includes(flag) || !/^-[^-\d]/.test(word) || known.includes(word.slice(1))) continue;
    return `${typed} got no value: ${JSON.stringify(word)} starts with "-", so it was read as flags; put the value right after ${typed} (a value that starts with "-" as ${typed}=<value>)`;
  }
  return undefined;
}

/**
 * `swarm completion fish` (or bash, zsh): the one-line answer. yargs' `completion` takes no shell
 * name: the script, and the completions it asks for later, follow $SHELL, so a script for a shell
 * other than the user's would not work. Undefined for any other command line.
 */
export function completionWordMessage(argv: readonly string[]): string | undefined {
  const [command, word] = argv;
  if (command !== 'completion' || word === undefined || word.startsWith('-')) return undefined;
  return `swarm completion takes no shell name (got ${JSON.stringify(word)}): it prints the script for the shell $SHELL names, bash or zsh (no other shell is supported); in bash: swarm completion >> ~/.bashrc, in zsh: swarm completion >> ~/.zshrc`;
}

/**
 * Run `swarm <argv>` against `io` and resolve to its exit status: 0, what the command chose
 * (setExitCode), or fail()'s 2/1. Leaves nothing behind in this process: the colour level is
 * restored, yargs never exits it (its help, version and completion output is written to io.stdout).
 */
export async function main(argv: string[] = hideBin(process.argv), io: CliIo = processIo()): Promise<number> {
  const run: CliRun = { io, argv, exitCode: 0 };
  const level = chalk.level;
  try {
    return await withCliRun(run, () => runCommandLine(argv, io, run));
  } finally {
    chalk.level = level;
  }
}

async function runCommandLine(argv: string[], io: CliIo, run: CliRun): Promise<number> {
  // `swarm status | head -1`: exit quietly, no EPIPE stack trace (the process's own streams only).
  if (io.stdout === process.stdout) handleClosedOutput();
  const isTTY = Boolean(io.stdout.isTTY);
  applyColorFlag(undefined, io.env, isTTY);
  try {
    const completionWord = completionWordMessage(argv);
    if (completionWord !== undefined) fail(completionWord, 2);
    await buildCli(argv, io, isTTY).parseAsync(argv, {}, (_err, _args, output) => {
      if (output !== '') io.stdout.write(`${output}\n`);
    });
    return run.exitCode;
  } catch (e) {
    return exitCodeFor(e);
  }
}

/**
 * yargs lays out a command's whole help (every option, through cliui and string-width) as the
 * command's handler starts, and keeps it for a failure that prints the help. swarm's failures are
 * one line and never print it (.fail below, exitCodeFor), so nothing is kept: that layout was most
 * of what a command cost in-process, and it was paid in every `swarm` process (BENCHMARKS.md).
 */
function skipHelpCache(cli: Argv): void {
  const yargsInternals = cli as unknown as { getInternalMethods(): { getUsageInstance(): { cacheHelpMessage(): void } } };
  yargsInternals.getInternalMethods().getUsageInstance().cacheHelpMessage = () => undefined;
}

/** A fresh yargs for one command line (yargs keeps parse state on the instance). */
function buildCli(argv: string[], io: CliIo, isTTY: boolean): Argv {
  const width = helpWidth(io.stdout);
  const cli = yargs(argv);
  layoutExamples(cli, width); // before the first .example()
  skipHelpCache(cli);
  cli
    .scriptName('swarm')
    .usage('$0 <command> [options]\n\nRun a team of Claude agents in tmux panes, coordinated through plain files.')
    .option('team', { alias: 't', type: 'string', global: true, describe: 'team name (default: $SWARM_TEAM)' })
    .option('json', { type: 'boolean', global: true, default: false, describe: 'machine-readable output' })
    .option('color', { type: 'boolean', global: true, describe: 'colour even into a pipe (--no-color: never); default: on a terminal, unless NO_COLOR is set' })
    // Before validation, so even a usage error is printed in the chosen colours.
    .middleware((args) => void applyColorFlag(typeof args.color === 'boolean' ? args.color : undefined, io.env, isTTY), true)
    .command(launchCommand)
    .command(leadCommand)
    .command(runCommand)
    .command(mcpCommand)
    .command(demoCommand)
    .command(teamCommand)
    .command(sendCommand)
    .command(inboxCommand)
    .command(spawnCommand)
    .command(resumeCommand)
    .command(agentsCommand)
    .command(memoryCommand)
    .command(killCommand)
    .command(shutdownCommand)
    .command(permissionsCommand)
    .command(approveCommand)
    .command(denyCommand)
    .command(planCommand)
    .command(tasksCommand)
    .command(teammateCommand)
    .command(statusCommand)
    .command(boardCommand)
    .command(worktreesCommand)
    .command(doctorCommand)
    .example('$0 team create review-squad', 'create a team (prints the SWARM_TEAM to export)')
    .example('$0 send alice "please review src/app.ts" --team review-squad', 'message a teammate')
    .example('SWARM_TEAM=review-squad $0 inbox team-lead --unread', "what the leader hasn't read")
    .example('$0 <command> --help', 'flags and examples of one command')
    .demandCommand(1, 'say what to do: swarm --help lists the commands')
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version(SWARM_VERSION)
    // yargs' own completion command prints its script even for `--help` (it is checked before
    // help), so it gets a name nobody types, and `completion` is an ordinary command that calls it.
    .completion('__completion', false)
    .command({
      command: 'completion',
      describe: 'print a bash/zsh completion script: swarm completion >> ~/.bashrc',
      builder: (y) => y.example('$0 completion >> ~/.bashrc', 'bash: commands and flags complete in new shells').example('$0 completion >> ~/.zshrc', 'zsh: the same'),
      // The script's install line names the command: `completion`, not the internal name.
      handler: () => (cli as unknown as { showCompletionScript($0: string, cmd: string): void }).showCompletionScript('swarm', 'completion'),
    })
    .wrap(width)
    .fail((msg, err) => {
      if (err) throw err;
      // recommendCommands() says only "Did you mean X?": name what was typed too.
      const typed = argv.find((a) => !a.startsWith('-'));
      const what = msg?.startsWith('Did you mean') && typed ? `unknown command "${typed}". ${msg}` : msg;
      // By now yargs holds the options of the command that failed (getOptions is untyped).
      const options = (cli as unknown as { getOptions(): { key: Record<string, unknown>; string: string[]; number: string[]; array: string[] } }).getOptions();
      const known = Object.keys(options.key);
      const valueFlags = [...options.string, ...options.number, ...options.array];
      const unknown = msg?.startsWith('Unknown argument') === true;
      const stray = unknown ? [] : unknownTypedFlags(argv, known);
      const flagMsg = stray.length > 0 ? `Unknown argument${stray.length === 1 ? '' : 's'}: ${stray.join(', ')}` : msg;
      fail(`${(unknown ? flagAsValueMessage(argv, valueFlags, known) : undefined) ?? unknownFlagMessage(flagMsg, argv, known) ?? what} (see swarm --help)`, 2);
    });
  return cli;
}
