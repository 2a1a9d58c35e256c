// The in-process twin of fake-teammate.mjs: a `TeammateLaunch` for the in-process host. It reads
// the same SPEC §4.3 flags from argv, writes status/<name>.json (pid = the host's), consumes its
// inbox until its stop signal fires, and answers a verified shutdown_request with
// shutdown_approved (returning 0), or shutdown_rejected when its env has FAKE_REJECT=1. It finds
// its own name through currentTeammate() (AsyncLocalStorage), not through a parameter.
import { parseArgs } from 'node:util';
import { currentTeammate, type TeammateLaunch } from '../../src/backends/in-process/context.js';
import { followInbox } from '../../src/mailbox/follow.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { verifyEntry } from '../../src/permissions/signing.js';
import { encodeControl, parseControl } from '../../src/protocol/control.js';
import { formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { resolveRoot, teamPaths } from '../../src/team/paths.js';
import { Team } from '../../src/team/team.js';

export const fakeInProcessTeammate: TeammateLaunch = async (argv, env, ctx) => {
  const flagsAt = argv.indexOf('--agent-id');
  const { values } = parseArgs({
    args: argv.slice(flagsAt),
    strict: false,
    options: { 'agent-name': { type: 'string' }, 'team-name': { type: 'string' }, 'lead-verify-key': { type: 'string' } },
  });
  const key = String(values['lead-verify-key']);
  await Promise.resolve();
  const me = currentTeammate(); // the context follows this async function across awaits
  if (me === undefined || me.name !== values['agent-name']) throw new Error(`wrong context: ${me?.name ?? 'none'}`);
  const root = resolveRoot(env);
  const paths = teamPaths(root, me.team);
  const mailbox = new Mailbox({ team: new Team(root, me.team) });
  await writeFileAtomic(paths.status(me.name), formatJson({ name: me.name, pid: process.pid, state: 'idle', heartbeatAt: Date.now(), env }));
  ctx.print(`fake in-process teammate ${me.name} started`);
  try {
    for await (const m of followInbox(mailbox, me.name, { consume: true, pollMs: 200, signal: me.stopSignal })) {
      const parsed = parseControl(m.text);
      if (parsed.kind !== 'control' || parsed.message.type !== 'shutdown_request') {
        ctx.print(`got from ${m.from}: ${m.text}`);
        continue;
      }
      if (!verifyEntry(m, key)) continue;
      const { requestId } = parsed.message;
      const timestamp = new Date().toISOString();
      if (env.FAKE_REJECT === '1') {
        await mailbox.append('team-lead', { from: me.name, text: encodeControl({ type: 'shutdown_rejected', requestId, from: me.name, reason: 'busy', timestamp }) });
        continue;
      }
      await mailbox.append('team-lead', { from: me.name, text: encodeControl({ type: 'shutdown_approved', requestId, from: me.name, timestamp, backendType: 'in-process' }) });
      return 0;
    }
  } catch (e) {
    if (!me.stopSignal.aborted) throw e;
  }
  return 0;
};
