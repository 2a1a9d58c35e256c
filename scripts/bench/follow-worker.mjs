// Benchmark child: follows an inbox (watcher, or poll-only at `pollMs`) and prints, per message,
// the delay between the send time embedded in the text and the moment it was seen.
// argv: root team name mode(watch|poll) pollMs expected
import { Mailbox } from '../../dist/mailbox/mailbox.js';
import { Team } from '../../dist/team/team.js';
import { followInbox } from '../../dist/mailbox/follow.js';

const [root, team, name, mode, pollMs, expected] = process.argv.slice(2);
const mailbox = new Mailbox({ team: new Team(root, team) });
const delays = [];
const ac = new AbortController();
const iter = followInbox(mailbox, name, {
  signal: ac.signal,
  fromStart: true, // the warm-up message may land before the first read
  pollMs: Number(pollMs),
  ...(mode === 'poll' ? { noWatch: true } : {}),
});
for await (const m of iter) {
  if (m.text.startsWith('warm:')) {
    process.stdout.write('ready\n'); // the follower is running and has seen a first message
    continue;
  }
  const seen = performance.timeOrigin + performance.now();
  delays.push(seen - Number(m.text.split(':')[1]));
  if (delays.length >= Number(expected)) ac.abort();
}
process.stdout.write(`${JSON.stringify({ delays })}\n`);
