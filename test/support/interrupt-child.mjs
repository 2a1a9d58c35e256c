#!/usr/bin/env node
// A process that ends the way a swarm command does after an interrupt (cli/interrupts.ts over the
// BUILT dist/), for test/cli/interrupts.test.ts. Every step waits for a line on stdin, so the test
// decides the order of events without sleeping. Modes (argv[2]):
//   cleanup     catchInterrupts(); prints `ready`; on the first interrupt prints `cleaning <cause>`,
//               waits for `done`, prints `cleaned`, and ends by that interrupt.
//   late-epipe  a library's listener on SIGTERM that raises it again (as signal-exit does); on `go`
//               writes to its closed stdout (the EPIPE comes on the next tick) and at once ends by
//               SIGTERM: the process must die of SIGTERM, not exit 141 on that EPIPE.
import readline from 'node:readline';

const dist = new URL('../../dist/', import.meta.url);
const { catchInterrupts, endByInterrupt } = await import(new URL('cli/interrupts.js', dist).href);
const { handleClosedOutput } = await import(new URL('cli/output/closed-output.js', dist).href);

handleClosedOutput();
const lines = readline.createInterface({ input: process.stdin })[Symbol.asyncIterator]();
const next = async () => (await lines.next()).value;

if (process.argv[2] === 'cleanup') {
  const caught = catchInterrupts();
  process.stdout.write('ready\n');
  await new Promise((resolve) => caught.signal.addEventListener('abort', resolve, { once: true }));
  process.stdout.write(`cleaning ${caught.cause}\n`);
  while ((await next()) !== 'done');
  process.stdout.write('cleaned\n');
  await caught.exit(caught.cause);
} else if (process.argv[2] === 'late-epipe') {
  process.on('SIGTERM', function library() {
    process.removeListener('SIGTERM', library);
    process.kill(process.pid, 'SIGTERM');
  });
  process.stderr.write('ready\n');
  while ((await next()) !== 'go');
  process.stdout.write('into a closed pipe\n');
  await endByInterrupt('SIGTERM');
}
