#!/usr/bin/env node
// The trivial teammate of the spawn benchmark (scripts/bench/spawn.ts), run as the pane's command
// through SWARM_TEAMMATE_COMMAND="node /abs/scripts/bench/fake-teammate.mjs" over the BUILT dist/
// (`npm run bench` builds first). It does the least a teammate must for the readiness handshake and
// a verified shutdown: writes status/<name>.json, consumes its inbox, and on a shutdown_request
// signed by the leader (checked with --lead-verify-key) replies shutdown_approved and exits 0.
import { parseArgs } from 'node:util';

const dist = new URL('../../dist/', import.meta.url);
const { Mailbox } = await import(new URL('mailbox/mailbox.js', dist).href);
const { followInbox } = await import(new URL('mailbox/follow.js', dist).href);
const { verifyEntry } = await import(new URL('permissions/signing.js', dist).href);
const { formatJson, writeFileAtomic } = await import(new URL('storage/atomic.js', dist).href);
const { resolveRoot } = await import(new URL('team/paths.js', dist).href);
const { Team } = await import(new URL('team/team.js', dist).href);
const { encodeControl, parseControl } = await import(new URL('protocol/control.js', dist).href);

const { values } = parseArgs({
  args: process.argv.slice(2),
  strict: false, // other SPEC §4.3 flags are accepted and ignored
  allowPositionals: true,
  options: Object.fromEntries(
    ['agent-id', 'agent-name', 'team-name', 'agent-color', 'parent-session-id', 'lead-verify-key', 'agent-type', 'model', 'permission-mode', 'cwd'].map(
      (k) => [k, { type: 'string' }],
    ),
  ),
});
const str = (k) => (typeof values[k] === 'string' ? values[k] : undefined);
const name = str('agent-name');
const team = str('team-name');
const agentId = str('agent-id');
const verifyKey = str('lead-verify-key');
if (!name || !team || !agentId || !verifyKey) {
  console.error('bench fake-teammate: --agent-id, --agent-name, --team-name and --lead-verify-key are required');
  process.exit(2);
}

const root = resolveRoot(process.env);
const handle = new Team(root, team);
const paths = handle.paths;
const mailbox = new Mailbox({ team: handle });
const writeStatus = (state) =>
  writeFileAtomic(paths.status(name), formatJson({ name, agentId, pid: process.pid, state, heartbeatAt: Date.now() }));
await writeStatus('idle');
for await (const m of followInbox(mailbox, name, { consume: true, pollMs: 200 })) {
  const parsed = parseControl(m.text);
  if (parsed.kind !== 'control' || parsed.message.type !== 'shutdown_request') continue;
  if (m.from !== 'team-lead' || !verifyEntry(m, verifyKey)) continue;
  const req = parsed.message;
  await mailbox.append('team-lead', {
    from: name,
    text: encodeControl({ type: 'shutdown_approved', requestId: req.requestId, from: name, timestamp: new Date().toISOString() }),
  });
  await writeStatus('exiting');
  process.exit(0);
}
