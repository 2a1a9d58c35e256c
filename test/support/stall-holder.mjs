// Child process for the stalled-holder tests: appends `<text>` to one inbox file through the real,
// built mutateJsonFile, but on its first cycle busy-blocks for `blockMs` inside the critical section
// (synchronously, like a huge inbox or a slow fsync: no timer of the lock library can run). Prints
// "locked" when it is inside, then one JSON line {attempts} once the append returned.
// argv: file text blockMs [staleMs]
import { z } from 'zod';
import { mutateJsonFile } from '../../dist/storage/json-file.js';
import { staleWindow } from './stale-window.mjs';

const [file, text, blockArg, staleArg] = process.argv.slice(2);
const lock = staleWindow(staleArg);
let attempts = 0;
await mutateJsonFile(file, { schema: z.array(z.unknown()), init: () => [], lock }, (inbox) => {
  attempts++;
  if (attempts === 1) {
    process.stdout.write('locked\n');
    const until = Date.now() + Number(blockArg);
    while (Date.now() < until); // the stall
  }
  inbox.push({ from: 'staller', text, timestamp: new Date().toISOString(), read: false });
  return { write: inbox, result: undefined };
});
process.stdout.write(`${JSON.stringify({ attempts })}\n`);
