#!/usr/bin/env node
// The fake teammate as a child process (fake-teammate-core.mjs says what it does, and its FAKE_*
// switches): the pane's command through SWARM_TEAMMATE_COMMAND="node /abs/test/support/fake-teammate.mjs",
// a stand-in `claude`, and the spawn and ssh benches' trivial teammate. Uses the BUILT dist/ (run
// `npm run build` first) through fake-teammate-lib.mjs.
import { pathToFileURL } from 'node:url';
import { runFakeTeammate } from './fake-teammate-core.mjs';

// SWARM_FAKE_LIB: a bundle of fake-teammate-lib.mjs (the spawn bench makes one).
const libUrl = process.env.SWARM_FAKE_LIB ? pathToFileURL(process.env.SWARM_FAKE_LIB).href : new URL('./fake-teammate-lib.mjs', import.meta.url).href;
const lib = { ...(await import(libUrl)) };
const code = await runFakeTeammate(lib, {
  argv: process.argv.slice(2),
  env: process.env,
  pid: process.pid,
  cwd: process.cwd(),
  approval: process.env.TMUX_PANE ? { paneId: process.env.TMUX_PANE } : {},
  print: (line) => console.log(line),
  warn: (line) => console.error(line),
});
process.exit(code);
