// How every swarm entry point ends on an error: one red `swarm:` line (an error that carries detail,
// such as a failed spawn's pane output, adds it indented below), exit 2 for bad input, 1 otherwise.
// `fail` writes the line to the running command's stderr and throws `CliExit`, which main() turns
// into its exit status (so an in-process run ends the command, never the process).
import { isSwarmError } from '../protocol/errors.js';
import { cliIo } from './io.js';
import { chalk } from './output/render.js';

/** Thrown by `fail` once its line is written: the command ends with `code`. */
export class CliExit extends Error {
  constructor(readonly code: number) {
    super(`swarm exits with ${code}`);
    this.name = 'CliExit';
  }
}

function writeFailure(message: string): void {
  const [first, ...detail] = message.split('\n');
  cliIo().stderr.write(`${chalk.red('swarm:')} ${first}\n${detail.map((l) => `  ${l}\n`).join('')}`);
}

export function fail(message: string, code: number): never {
  writeFailure(message);
  throw new CliExit(code);
}

/** The exit status for an error thrown by a command, its line written: SwarmError input/name problems 2, anything else 1. */
export function exitCodeFor(e: unknown): number {
  if (e instanceof CliExit) return e.code;
  writeFailure(e instanceof Error ? e.message : String(e));
  return isSwarmError(e) && (e.kind === 'invalid_input' || e.kind === 'invalid_name') ? 2 : 1;
}
