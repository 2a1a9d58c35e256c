// `swarm send <to> <text|->` / `--file F`: append a message to a member's inbox, the leader's, or
// everyone's (`*`). The command line only; what it does is cli/handlers/send.ts, loaded when it runs
// (the mailbox, team files and liveness checks would cost every other command start-up time).
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { SendArgs } from '../handlers/send.js';

export const sendCommand: CommandModule<GlobalArgs, SendArgs> = {
  command: 'send <to> [text]',
  describe: 'send a message (to a member, team-lead, or * for everyone but the sender)',
  builder: (y) =>
    y
      .positional('to', { type: 'string', demandOption: true, describe: 'member name, team-lead, or *' })
      .positional('text', { type: 'string', describe: "message text, or - to read it from standard input" })
      .option('file', { type: 'string', describe: 'read the message text from this file' })
      .option('from', { type: 'string', describe: 'sender (default team-lead)' })
      .option('summary', { type: 'string', describe: 'a short summary shown before the text' })
      .example('$0 send alice "please review src/app.ts" --team review-squad', 'message one teammate')
      .example("$0 send '*' 'stand up: what are you on?'", 'broadcast to every teammate')
      .example('git diff | $0 send alice -', 'send standard input')
      .example('$0 send alice --file notes.md', "send a file's contents"),
  handler: async (args) => (await import('../handlers/send.js')).send(args),
};
