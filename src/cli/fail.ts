// How every swarm entry point ends on an error: one red `swarm:` line (an error that carries detail,
// such as a failed spawn's pane output, adds it indented below), exit 2 for bad input, 1 otherwise.
import { isSwarmError } from '../protocol/errors.js';
import { chalk } from './output/render.js';

export function fail(message: string, code: number): never {
  const [first, ...detail] = message.split('\n');
  process.stderr.write(`${chalk.red('swarm:')} ${first}\n${detail.map((l) => `  ${l}\n`).join('')}`);
  process.exit(code);
}

/** Exit for an error thrown by a command: SwarmError input/name problems exit 2, anything else 1. */
export function failWith(e: unknown): never {
  if (isSwarmError(e)) fail(e.message, e.kind === 'invalid_input' || e.kind === 'invalid_name' ? 2 : 1);
  fail(e instanceof Error ? e.message : String(e), 1);
}
