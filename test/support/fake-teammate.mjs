#!/usr/bin/env node
// The fake teammate as a child process (fake-teammate-core.mjs says what it does, and its FAKE_*
// switches): the pane's command through SWARM_TEAMMATE_COMMAND="node /abs/test/support/fake-teammate.mjs",
// a stand-in `claude`, and the spawn and ssh benches' trivial teammate. Uses the BUILT dist/ (run
// `npm run build` first) through dist-lib.mjs: bundled by the suite and the spawn bench.
import { distLib } from './dist-lib.mjs';
import { runFakeTeammate } from './fake-teammate-core.mjs';

const lib = { ...distLib };
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
