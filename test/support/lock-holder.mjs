// Child process: takes the lock on an inbox file, prints "locked", and holds it forever (the test
// SIGKILLs it to simulate a writer that died while holding the lock).
import { withFileLock } from '../../dist/storage/lock.js';

const [file] = process.argv.slice(2);
await withFileLock(file, async () => {
  process.stdout.write('locked\n');
  // proper-lockfile's refresh timer is unref'd: keep the process alive explicitly.
  await new Promise(() => setInterval(() => undefined, 1 << 30));
});
