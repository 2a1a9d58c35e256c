// Child process for concurrency tests: parses an inbox file in a tight loop (no lock, as any
// reader would) until SIGTERM, then prints {reads, badReads, maxLength}.
import { readFile } from 'node:fs/promises';

const [file] = process.argv.slice(2);
let reads = 0;
let badReads = 0;
let maxLength = 0;
let stop = false;
process.on('SIGTERM', () => {
  stop = true;
});
process.stdout.write('ready\n');
while (!stop) {
  let raw;
  try {
    raw = await readFile(file, 'utf8');
  } catch {
    await new Promise((r) => setImmediate(r));
    continue; // not created yet
  }
  reads++;
  try {
    const arr = JSON.parse(raw);
    if (!Array.isArray(arr)) badReads++;
    else maxLength = Math.max(maxLength, arr.length);
  } catch {
    badReads++;
  }
  await new Promise((r) => setImmediate(r));
}
process.stdout.write(`${JSON.stringify({ reads, badReads, maxLength })}\n`);
