// Fast entry for `swarm teammate`, the process in every pane: bin/swarm.js comes here when the
// first argument is `teammate`, so a teammate loads the runtime only — not yargs and every other
// command of main.ts (about 15 MB less RSS per teammate; scripts/bench/runtime.ts measures both).
// The flags are parsed strictly by runtime/args.ts `flagsFromArgv` (node:util parseArgs, as the
// in-process host does). Anything it does not take (--help, --version, --team/--json, an unknown or
// negated flag, a value on a boolean, a positional, a value starting with `-`) makes `teammateMain`
// return false and the caller run the full CLI, whose help and errors then apply unchanged.
// Errors from the runtime end the process with fail.ts's line and status, exactly as in main.ts.
import { flagsFromArgv } from '../runtime/args.js';
import { runTeammateProcess } from './teammate-process.js';
import { exitCodeFor } from './fail.js';

/** The camel-cased flags of `swarm teammate <argv>`, or undefined when the full CLI should parse them. */
export function parseTeammateArgv(argv: readonly string[]): Record<string, string | boolean> | undefined {
  try {
    return flagsFromArgv(['teammate', ...argv]);
  } catch {
    return undefined;
  }
}

/** Runs `swarm teammate <argv>` and exits; returns false (having done nothing) when the full CLI should. */
export async function teammateMain(argv: string[]): Promise<boolean> {
  const flags = parseTeammateArgv(argv);
  if (flags === undefined) return false;
  try {
    await runTeammateProcess(flags);
  } catch (e) {
    process.exit(exitCodeFor(e)); // a teammate is always its own process
  }
  return true;
}
