// Child process: writes an inbox the way Claude Code does (in place, not atomically) while holding
// its lock. Under the lock it truncates the file to the first half of `full`, prints "half", waits
// until a reader has queued for the lock (a ticket in `<file>.lock.queue/`, so that reader has seen
// the half-written file), then writes all of `full` and releases. argv: file fullFile
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { setTimeout as delay } from 'node:timers/promises';
import { queueDirFor, withFileLock } from '../../dist/storage/lock.js';

const [file, fullFile] = process.argv.slice(2);
const full = readFileSync(fullFile, 'utf8');
const queued = () => {
  try {
    return readdirSync(queueDirFor(file)).some((n) => !n.startsWith('.'));
  } catch {
    return false;
  }
};
await withFileLock(file, async () => {
  writeFileSync(file, full.slice(0, Math.floor(full.length / 2)));
  process.stdout.write('half\n');
  const deadline = Date.now() + 20_000;
  while (!queued()) {
    if (Date.now() > deadline) throw new Error('no reader queued for the lock within 20 s');
    await delay(5);
  }
  writeFileSync(file, full);
});
process.stdout.write('done\n');
