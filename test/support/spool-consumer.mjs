// Child process for concurrency tests: consumes one inbox the way a swarm teammate does while
// idle (runtime/inbox-delivery): on every hint of its InboxMonitor (the inbox file and its spool), a
// lock-free look (Mailbox.peek, which counts spooled messages as new), then a consume. Prints
// "ready" once watching, then, when `count` messages have been taken or on SIGTERM, one JSON line:
// the texts it took, in order.
// argv: root team name count
import { Mailbox } from '../../dist/mailbox/mailbox.js';
import { InboxMonitor } from '../../dist/runtime/inbox-monitor.js';
import { Team } from '../../dist/team/team.js';

const [root, teamName, name, countArg] = process.argv.slice(2);
const count = Number(countArg);
const team = new Team(root, teamName);
const mailbox = new Mailbox({ team });
const monitor = await InboxMonitor.open(team.paths, name);
const taken = [];
const stop = new AbortController();
process.on('SIGTERM', () => stop.abort());
process.stdout.write('ready\n');
try {
  while (taken.length < count) {
    const look = await mailbox.peek(name);
    if (look.unsettled || look.entries.some((m) => !m.read)) taken.push(...(await mailbox.consume(name)).map((m) => m.text));
    if (taken.length >= count) break;
    await monitor.changed(stop.signal);
  }
} catch {
  // SIGTERM: report what was taken
}
await monitor.close();
process.stdout.write(`${JSON.stringify({ taken })}\n`);
