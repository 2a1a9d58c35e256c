// What `swarm inbox <name>` does (the command line is commands/inbox.ts): show an inbox; --unread,
// --consume (take delivery), --follow (stream). Consuming team-lead's inbox while another process
// holds the leader lease (team/lead-lease.ts) would take messages from that leader: refused unless
// --force (which warns).
import { followInbox } from '../../mailbox/follow.js';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { describeHolder, leaseSelf, liveHolder } from '../../team/lead-lease.js';
import { readTeam, requireMember } from '../../team/team-store.js';
import { openMailbox, printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk, renderMessage } from '../output/render.js';
import { INTERRUPT_SIGNALS, onSignals } from '../interrupts.js';
import { cliIo } from '../io.js';

export interface InboxArgs extends GlobalArgs {
  name: string;
  unread: boolean;
  follow: boolean;
  consume: boolean;
  force: boolean;
}

export async function inbox(args: InboxArgs): Promise<void> {
  const team = await requireTeam(args);
  const config = await readTeam(team);
  const name = requireMember(config, args.name).name;
  const holder = args.consume && sameName(name, LEAD_NAME) ? liveHolder(config.leadProcess, leaseSelf('console')) : undefined;
  if (holder !== undefined) {
    const what = `${describeHolder(holder)} takes delivery of team-lead's inbox`;
    if (!args.force) throw new SwarmError('exists', `${what}: consuming here would take its messages; read without --consume, or add --force`);
    cliIo().stderr.write(`${chalk.yellow('warning:')} ${what}; messages consumed here do not reach it\n`);
  }
  const mailbox = await openMailbox(team);
  if (args.follow) {
    const ac = new AbortController();
    const off = onSignals(INTERRUPT_SIGNALS, () => ac.abort());
    try {
      for await (const m of followInbox(mailbox, name, { signal: ac.signal, consume: args.consume, unreadOnly: args.unread })) {
        println(args.json ? JSON.stringify(m) : renderMessage(m));
      }
    } finally {
      off();
    }
    return;
  }
  const messages = args.consume ? await mailbox.consume(name) : args.unread ? await mailbox.unread(name) : await mailbox.read(name);
  if (args.json) return printJson(messages);
  if (messages.length === 0) return println(chalk.dim(args.unread || args.consume ? 'no unread messages' : 'inbox is empty'));
  for (const m of messages) println(renderMessage(m));
}
