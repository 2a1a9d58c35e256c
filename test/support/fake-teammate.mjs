#!/usr/bin/env node
// The fake teammate as a child process (fake-teammate-core.mjs says what it does, and its FAKE_*
// switches): the pane's command through SWARM_TEAMMATE_COMMAND="node /abs/test/support/fake-teammate.mjs",
// a stand-in `claude`, and the spawn and ssh benches' trivial teammate. Uses the BUILT dist/ (run
// `npm run build` first).
import { runFakeTeammate } from './fake-teammate-core.mjs';

const dist = new URL('../../dist/', import.meta.url);
const from = (file) => import(new URL(file, dist).href);
const lib = {
  ...(await from('mailbox/mailbox.js')),
  ...(await from('mailbox/follow.js')),
  ...(await from('permissions/signing.js')),
  ...(await from('storage/atomic.js')),
  ...(await from('team/paths.js')),
  ...(await from('team/team.js')),
  ...(await from('protocol/control.js')),
};
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
