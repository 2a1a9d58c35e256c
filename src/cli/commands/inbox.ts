// `swarm inbox <name>`: show an inbox; --unread, --consume (take delivery), --follow (stream). The
// command line only; what it does is cli/handlers/inbox.ts, loaded when it runs (the mailbox and
// team files would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { InboxArgs } from '../handlers/inbox.js';

export const inboxCommand: CommandModule<GlobalArgs, InboxArgs> = {
  command: 'inbox <name>',
  describe: "show a member's inbox (team-lead for the leader's)",
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'member name or team-lead' })
      .option('unread', { type: 'boolean', default: false, describe: 'only messages not yet read' })
      .option('consume', { type: 'boolean', default: false, describe: 'mark shown messages read (takes delivery)' })
      .option('force', { type: 'boolean', default: false, describe: "with --consume on team-lead: consume even while a leader holds the lease" })
      .option('follow', { alias: 'f', type: 'boolean', default: false, describe: 'keep streaming new messages' })
      .example('$0 inbox team-lead --unread', "what the leader hasn't read")
      .example('$0 inbox alice --follow', "watch alice's inbox live")
      .example('$0 inbox team-lead --json | jq -r ".[].text"', 'raw entries'),
  handler: async (args) => (await import('../handlers/inbox.js')).inbox(args),
};
