#!/usr/bin/env node
// A `swarm launch` whose attach to the team's session ends just before its own SIGHUP is handled
// (cli/launch/run-launch.ts over the BUILT dist/), for test/cli/launch/launch-interrupt.test.ts:
// the tmux client and launch are hung up together when the terminal closes, and the client may exit
// first. Its io claims a terminal, so it attaches; the session's attach returns at once, and the
// SIGHUP comes `argv[2]` ms later. Launch must still take it as the terminal gone: say so on stderr
// and die of SIGHUP.
import { PassThrough } from 'node:stream';

const dist = new URL('../../dist/', import.meta.url);
const { attachToSession } = await import(new URL('cli/launch/run-launch.js', dist).href);
const { handleClosedOutput } = await import(new URL('cli/output/closed-output.js', dist).href);
const { processIo, withCliRun } = await import(new URL('cli/io.js', dist).href);

handleClosedOutput();
const terminal = { write: (text) => process.stdout.write(text), isTTY: true };
const io = { ...processIo(), stdin: Object.assign(new PassThrough(), { isTTY: true }), stdout: terminal };
let attached = false;
const session = { paneId: '%1', attach: ['tmux', '-L', 'sock', 'attach', '-t', 'swarm-att'], attachHere: async () => void (attached = true) };
setTimeout(() => process.kill(process.pid, 'SIGHUP'), Number(process.argv[2] ?? '30'));
await withCliRun({ io, argv: [], exitCode: 0 }, () => attachToSession(session, 'att'));
process.stdout.write(`${attached ? 'attached, then ' : ''}detached\n`); // a plain detach: launch goes on
await new Promise((resolve) => setTimeout(resolve, 2000));
