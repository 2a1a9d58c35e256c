// Benchmark child: a leader process that approves every pending request as soon as it sees it
// (DirWatcher on permissions/pending: inotify + 1 s poll), through the real, built decide().
// Prints `ready` once watching; runs until SIGTERM. argv: root team
import { DirWatcher } from '../../dist/storage/watch.js';
import { decide } from '../../dist/permissions/leader.js';
import { pendingIds } from '../../dist/permissions/pending.js';
import { Team } from '../../dist/team/team.js';

const [root, name] = process.argv.slice(2);
const team = new Team(root, name);
const paths = team.paths;
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort());
const watcher = await DirWatcher.open(paths.pending, { match: (b) => b.endsWith('.json') });
process.stdout.write('ready\n');
let decided = 0;
try {
  for (;;) {
    for (const id of await pendingIds(paths)) {
      try {
        await decide(team, id, 'allow');
        decided++;
      } catch (e) {
        if (e.kind !== 'already_resolved' && e.kind !== 'not_found') throw e;
      }
    }
    await watcher.changed(ac.signal);
  }
} catch (e) {
  if (!ac.signal.aborted) throw e;
} finally {
  await watcher.close();
}
process.stdout.write(`${JSON.stringify({ decided })}\n`);
