// The fake teammate (fake-teammate-core.mjs) as a `TeammateLaunch` for the in-process host, over
// src/: its status file names the host's pid, its output goes to the host's ring buffer, its stop
// signal ends it, and its shutdown_approved says backendType in-process. It checks that it runs
// in its own context: currentTeammate() (AsyncLocalStorage) must name it across awaits.
import { currentTeammate, type TeammateLaunch } from '../../src/backends/in-process/context.js';
import { followInbox } from '../../src/mailbox/follow.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { verifyEntry } from '../../src/permissions/signing.js';
import { encodeControl, parseControl } from '../../src/protocol/control.js';
import { ensureDir, formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { resolveRoot } from '../../src/team/paths.js';
import { Team } from '../../src/team/team.js';
import { runFakeTeammate } from './fake-teammate-core.mjs';

const lib = { Mailbox, Team, followInbox, verifyEntry, encodeControl, parseControl, formatJson, writeFileAtomic, ensureDir, resolveRoot };

export const fakeInProcessTeammate: TeammateLaunch = async (argv, env, ctx) => {
  await Promise.resolve();
  const me = currentTeammate(); // the context follows this async function across awaits
  if (me === undefined || me.name !== ctx.name) throw new Error(`wrong context: ${me?.name ?? 'none'}`);
  return runFakeTeammate(lib, {
    argv: argv.slice(argv.indexOf('--agent-id')),
    env,
    pid: process.pid,
    cwd: ctx.cwd,
    approval: { backendType: 'in-process' },
    signal: ctx.stopSignal,
    print: (line) => ctx.print(line),
    warn: (line) => ctx.print(line),
  });
};
