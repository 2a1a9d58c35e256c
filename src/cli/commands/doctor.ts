// `swarm doctor [--fix] [--json]`: check the machine and every team under the root; `--fix` applies
// the safe fixes. The command line only; what it does is cli/handlers/doctor.ts, loaded when it runs
// (every check, tmux and the backends would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { DoctorArgs } from '../handlers/doctor.js';

export const doctorCommand: CommandModule<GlobalArgs, DoctorArgs> = {
  command: 'doctor',
  describe: 'check tmux/it2, permissions, stale locks, dead members, orphaned sessions and requests, corrupt files; --fix the safe ones',
  builder: (y) =>
    y
      .option('fix', { type: 'boolean', default: false, describe: 'apply the safe fixes (never deletes members or kept-aside files)' })
      .option('host', { type: 'string', array: true, describe: 'also check a machine teammates run on over ssh: [user@]host[:port] (repeatable)' })
      .example('$0 doctor', 'what is wrong, and how to fix each thing')
      .example('$0 doctor --fix', 'chmod, remove stale locks, mark dead members inactive, clear orphaned requests and dead leader leases, kill orphaned sessions and demos')
      .example('$0 doctor --team review-squad --json', 'one team, machine-readable')
      .example('$0 doctor --host ci@build1', 'can teammates run on build1: ssh, tmux, swarm, the shared root'),
  handler: async (args) => (await import('../handlers/doctor.js')).doctor(args),
};
