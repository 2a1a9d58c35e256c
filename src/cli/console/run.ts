// The console's entry for commands (lead, launch, demo): the console module and everything under it
// (screen, host, status tracking) is loaded only when a console really opens, so the commands that
// import these ones do not pay its start-up time.
import type { ConsoleOptions } from './options.js';

export async function runConsole(o: ConsoleOptions): Promise<void> {
  const console = await import('./console.js');
  return console.runConsole(o);
}
