// `swarm send <to> <text>`: append a message to a member's inbox, the leader's, or everyone's (`*`).
import type { CommandModule } from 'yargs';
import { sendMessage } from '../../mailbox/send.js';
import { openMailbox, printJson, println, requireTeam, type GlobalArgs } from '../context.js';
import { chalk } from '../output/render.js';

interface SendArgs extends GlobalArgs {
  to: string;
  text: string;
  from?: string;
  summary?: string;
}

export const sendCommand: CommandModule<GlobalArgs, SendArgs> = {
  command: 'send <to> <text>',
  describe: 'send a message (to a member, team-lead, or * for everyone but the sender)',
  builder: (y) =>
    y
      .positional('to', { type: 'string', demandOption: true, describe: 'member name, team-lead, or *' })
      .positional('text', { type: 'string', demandOption: true, describe: 'message text' })
      .option('from', { type: 'string', describe: 'sender (default team-lead)' })
      .option('summary', { type: 'string', describe: 'a short summary shown before the text' })
      .example('$0 send alice "please review src/app.ts" --team review-squad', 'message one teammate')
      .example("$0 send '*' 'stand up: what are you on?'", 'broadcast to every teammate'),
  handler: async (args) => {
    const team = requireTeam(args);
    const mailbox = await openMailbox(team);
    const result = await sendMessage(mailbox, {
      to: args.to,
      text: String(args.text),
      ...(args.from ? { from: args.from } : {}),
      ...(args.summary ? { summary: args.summary } : {}),
    });
    if (args.json) return printJson(result);
    println(`sent to ${result.recipients.join(', ')} ${chalk.dim(result.msg_id)}`);
  },
};
