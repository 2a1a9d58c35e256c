// `swarm kill <name>` (hard stop now, verified) and `swarm shutdown <name|--all>` (cooperative
// shutdown_request, verified exit, optional --force escalation). The command lines only; what each
// does is cli/handlers/stop.ts, loaded when it runs (the stop code and the backends would cost
// every other command start-up time).
import type { CommandModule } from 'yargs';
import { SHUTDOWN_GRACE_ENV, shutdownWaitMs } from '../../protocol/shutdown-timing.js';
import type { GlobalArgs } from '../global-flags.js';
import type { KillArgs, ShutdownArgs } from '../handlers/stop.js';
import { cliIo } from '../io.js';

const handlers = () => import('../handlers/stop.js');

export const killCommand: CommandModule<GlobalArgs, KillArgs> = {
  command: 'kill <name>',
  describe: 'stop a teammate now (pane and process verified gone) and remove it from the team',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'member name' })
      .example('$0 kill alice --team review-squad', 'hard stop alice'),
  handler: async (args) => (await handlers()).kill(args),
};

export const shutdownCommand: CommandModule<GlobalArgs, ShutdownArgs> = {
  command: 'shutdown [name]',
  describe: 'ask a teammate (or --all) to shut down; waits for the answer and verifies the exit',
  builder: (y) =>
    y
      .positional('name', { type: 'string', describe: 'member name (or --all)' })
      .option('all', { type: 'boolean', default: false, describe: 'every teammate, in parallel' })
      .option('reason', { type: 'string', describe: 'shown to the teammate' })
      .option('timeout', {
        type: 'number',
        default: shutdownWaitMs(cliIo().env) / 1000,
        describe: `seconds to wait for an answer or the exit (default: the teammates' grace period, ${SHUTDOWN_GRACE_ENV}, plus 10 s)`,
      })
      .option('force', { type: 'boolean', default: false, describe: 'kill when it rejects or does not answer in time' })
      .example('$0 shutdown alice --reason "done for today"', 'cooperative stop')
      .example('$0 shutdown --all --timeout 10 --force', 'stop everyone, killing the stubborn')
      .example('$0 shutdown --all --json | jq -r ".[] | .name + \\" \\" + .outcome"', 'what happened, per teammate'),
  handler: async (args) => (await handlers()).shutdown(args),
};
