// `swarm resume [<name>...]`: start stopped members again (docs/protocol.md#transcripts-and-resume).
// The command line only; what it does is cli/handlers/resume.ts, loaded when it runs (the spawn
// code and the backends would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import { BACKEND_CHOICES } from '../../backends/kinds.js';
import { DEFAULT_READY_TIMEOUT_MS } from '../../teammates/spawn-choices.js';
import type { GlobalArgs } from '../global-flags.js';
import type { ResumeArgs } from '../handlers/resume.js';

export const resumeCommand: CommandModule<GlobalArgs, ResumeArgs> = {
  command: 'resume [names..]',
  describe: 'restart stopped teammates (process and pane gone, never shut down) with their conversation, inbox and tasks',
  builder: (y) =>
    y
      .positional('names', { type: 'string', array: true, describe: 'members to resume (default: every stopped member)' })
      .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: "where the new panes open (default: the team's, else the one they ran on)" })
      .option('ready-timeout', { type: 'number', default: DEFAULT_READY_TIMEOUT_MS / 1000, describe: 'seconds to wait for each to be ready' })
      .example('$0 resume --team review-squad', 'every stopped member of the team')
      .example('$0 resume alice --team review-squad', 'just alice')
      .example('$0 resume --json | jq -r ".[] | select(.ok | not) | .error"', 'why a resume failed'),
  handler: async (args) => (await import('../handlers/resume.js')).resume(args),
};
