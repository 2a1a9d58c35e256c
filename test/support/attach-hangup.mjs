#!/usr/bin/env node
// A `swarm launch` whose attach to the team's session ends just before its own SIGHUP is handled
// (cli/launch/run-launch.ts over the BUILT dist/), for test/cli/launch/launch-interrupt.test.ts:
// the tmux client and launch are hung up together when the terminal closes, and the client may exit
// first. Here stdout is no terminal, so the attach returns at once; the SIGHUP comes `argv[2]` ms
// later. Launch must still take it as the terminal gone: say so on stderr and die of SIGHUP.
const dist = new URL('../../dist/', import.meta.url);
const { attachToSession } = await import(new URL('cli/launch/run-launch.js', dist).href);
const { handleClosedOutput } = await import(new URL('cli/output/closed-output.js', dist).href);

handleClosedOutput();
const session = { paneId: '%1', attach: ['tmux', '-L', 'sock', 'attach', '-t', 'swarm-att'], attachHere: async () => undefined };
setTimeout(() => process.kill(process.pid, 'SIGHUP'), Number(process.argv[2] ?? '30'));
await attachToSession(session, 'att');
process.stdout.write('detached\n'); // a plain detach: launch goes on
await new Promise((resolve) => setTimeout(resolve, 2000));
