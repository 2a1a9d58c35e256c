// Child process: takes the lock on an inbox file, prints "locked", and holds it forever (the test
// SIGKILLs it to simulate a writer that died while holding the lock). argv: file [staleMs]
import { withFileLock } from '../../dist/storage/lock.js';
import { staleWindow } from './stale-window.mjs';

const [file, staleArg] = process.argv.slice(2); // staleArg: optional stale window, ms
const lock = staleWindow(staleArg);
await withFileLock(file, async () => {
  process.stdout.write('locked\n');
  // proper-lockfile's refresh timer is unref'd: keep the process alive explicitly.
  await new Promise(() => setInterval(() => undefined, 1 << 30));
}, lock);
