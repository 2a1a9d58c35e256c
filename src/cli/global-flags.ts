// The global flags every command shares (--team, --json; main.ts declares them) as a handler sees
// them, and how a command that does not use one leaves it out of its --help and refuses it. Apart
// from context.ts because every command's definition needs this to parse its arguments, while
// context.ts brings the team files, which only a running command needs.
import type { Argv } from 'yargs';
import { SwarmError } from '../protocol/errors.js';

export interface GlobalArgs {
  team?: string;
  json?: boolean;
}

type GlobalFlag = keyof GlobalArgs;

/**
 * For a command that does not use some of the global flags: leave them out of its --help, and
 * refuse them (exit 2) rather than ignore them. `flags` maps each flag to what to use instead ('' for nothing).
 */
export function refuseGlobals<T>(y: Argv<T>, command: string, flags: Partial<Record<GlobalFlag, string>>): Argv<T> {
  const names = Object.keys(flags) as GlobalFlag[];
  return names.reduce((acc, f) => acc.hide(f), y).check((argv) => {
    const given = names.find((f) => (f === 'json' ? argv.json === true : argv.team !== undefined));
    if (given === undefined) return true;
    const instead = flags[given];
    throw new SwarmError('invalid_input', `--${given} is not an option of swarm ${command}${instead ? `: ${instead}` : ''}`);
  });
}
