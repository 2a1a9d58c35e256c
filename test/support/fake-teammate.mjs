#!/usr/bin/env node
// A small fake teammate (the real runtime is a later issue), run as the pane's command through
// SWARM_TEAMMATE_COMMAND="node /abs/test/support/fake-teammate.mjs". Uses the BUILT dist/ (run
// `npm run build` first). It:
//  - prints `FAKE argv [...]` and `FAKE env {...}` (selected variables);
//  - accepts exactly the SPEC §4.3 flags (anything else: exit 2, like a strict CLI);
//  - writes status/<name>.json ({pid, state: idle, heartbeatAt} plus its argv, env and cwd, so
//    tests can check what arrived), consumes its inbox (marks entries read), printing each message;
//  - on a shutdown_request whose lead_sig verifies with --lead-verify-key: replies
//    shutdown_approved to team-lead and exits 0 — or, with FAKE_REJECT=1, replies
//    shutdown_rejected with a reason; with FAKE_IGNORE=1 ignores it; with FAKE_GRACE=1 behaves like
//    the runtime whose model never answers: after SWARM_SHUTDOWN_GRACE_MS (default 30000) it
//    replies shutdown_approved with graceExpired: true and exits 0.
// FAKE_CRASH=1: prints an error and exits 3 at once. FAKE_SILENT=1: writes its status but never
// reads its inbox (a teammate that never becomes ready). FAKE_GATE=<file>: writes its status, then
// reads its inbox only once that file exists (a teammate whose readiness the test releases).
// Started as a stand-in `claude` (CLAUDECODE=1, `--runtime claude`): accepts claude's flags (no
// --lead-verify-key, no --cwd; `--session-id <id>`, `--resume <id>`), writes no status file (a real
// claude does not) nor any session transcript, and does not check signatures.
import { existsSync, watch } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const dist = new URL('../../dist/', import.meta.url);
const { Mailbox } = await import(new URL('mailbox/mailbox.js', dist).href);
const { followInbox } = await import(new URL('mailbox/follow.js', dist).href);
const { verifyEntry } = await import(new URL('permissions/signing.js', dist).href);
const { formatJson, writeFileAtomic } = await import(new URL('storage/atomic.js', dist).href);
const { resolveRoot } = await import(new URL('team/paths.js', dist).href);
const { Team } = await import(new URL('team/team.js', dist).href);
const { encodeControl, parseControl } = await import(new URL('protocol/control.js', dist).href);

const SHOWN_ENV = [
  'SWARM_PROBE', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR', 'NOT_FORWARDED', 'CLAUDECODE',
  'CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS', 'HTTPS_PROXY', 'no_proxy',
];
const argv = process.argv.slice(2);
if (argv.length === 1 && argv[0] === '--version') {
  console.log('0.0.0-fake (Claude Code)'); // as `claude --version` prints it (spawn reports it)
  process.exit(0);
}
const env = Object.fromEntries(SHOWN_ENV.filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]));
console.log(`FAKE argv ${JSON.stringify(argv)}`);
console.log(`FAKE env ${JSON.stringify(env)}`);
if (process.env.FAKE_CRASH === '1') {
  console.error('fake-teammate: crashing at once (FAKE_CRASH=1)');
  process.exit(3);
}

const asClaude = process.env.CLAUDECODE === '1';
let values;
try {
  ({ values } = parseArgs({
    args: argv,
    strict: true,
    allowPositionals: false,
    options: {
      'agent-id': { type: 'string' },
      'agent-name': { type: 'string' },
      'team-name': { type: 'string' },
      'agent-color': { type: 'string' },
      'parent-session-id': { type: 'string' },
      'lead-verify-key': { type: 'string' },
      'agent-type': { type: 'string' },
      model: { type: 'string' },
      'plan-mode-required': { type: 'boolean' },
      'permission-mode': { type: 'string' },
      cwd: { type: 'string' },
      'dangerously-skip-permissions': { type: 'boolean' },
      settings: { type: 'string' }, // a claude teammate's allow rules for the scratchpad (teammates/command-line.ts)
      'append-system-prompt-file': { type: 'string' }, // claude's: its team memory (teammates/recipe.ts)
      'add-dir': { type: 'string', multiple: true }, // claude's: the team memory directory (docs/memory.md)
      allowedTools: { type: 'string', multiple: true }, // claude's: the rule that lets it write memory files
      // swarm resume: the conversation comes back from the transcript (a fake has none); claude's
      // `--resume <session id>` goes on with a Claude Code session (a fake never touches its transcript).
      resume: { type: asClaude ? 'string' : 'boolean' },
      'session-id': { type: 'string' }, // claude's: the session swarm names at spawn (teammates/spawn.ts)
    },
  }));
} catch (e) {
  console.error(`fake-teammate: ${e.message}`);
  process.exit(2);
}
const name = values['agent-name'];
const team = values['team-name'];
const verifyKey = values['lead-verify-key'];
if (!name || !team || (!verifyKey && !asClaude) || !values['agent-id']) {
  console.error('fake-teammate: --agent-id, --agent-name, --team-name and --lead-verify-key are required');
  process.exit(2);
}

const root = resolveRoot(process.env);
const handle = new Team(root, team);
const paths = handle.paths;
const mailbox = new Mailbox({ team: handle });
const startedAt = Date.now();
// FAKE_STATUS_PID=<pid>: the pid its status file names instead of its own, as a teammate on another
// machine's pid means nothing on this one.
const statusPid = Number(process.env.FAKE_STATUS_PID) || process.pid;
const writeStatus = (state) =>
  writeFileAtomic(
    paths.status(name),
    formatJson({ name, agentId: values['agent-id'], pid: statusPid, state, heartbeatAt: Date.now(), startedAt, argv, env, cwd: process.cwd() }),
  );
if (!asClaude) await writeStatus('idle');
const heartbeat = setInterval(() => void (asClaude ? Promise.resolve() : writeStatus('idle')).catch(() => undefined), 2000);
if (process.env.FAKE_GATE) {
  const gate = process.env.FAKE_GATE;
  console.log(`fake-teammate: waiting for ${gate} (FAKE_GATE)`);
  await new Promise((resolve) => {
    const watcher = watch(path.dirname(gate), () => {
      if (existsSync(gate)) (watcher.close(), resolve());
    });
    if (existsSync(gate)) (watcher.close(), resolve());
  });
}
if (process.env.FAKE_SILENT === '1') {
  console.log('fake-teammate: silent, never reading the inbox (FAKE_SILENT=1)');
} else {
  const reply = (message) => mailbox.append('team-lead', { from: name, text: encodeControl(message), color: values['agent-color'] });
  for await (const m of followInbox(mailbox, name, { consume: true, pollMs: 200 })) {
    const parsed = parseControl(m.text);
    if (parsed.kind !== 'control' || parsed.message.type !== 'shutdown_request') {
      console.log(`FAKE got from ${m.from}: ${m.text}`);
      continue;
    }
    const req = parsed.message;
    if (m.from !== 'team-lead' || (!asClaude && !verifyEntry(m, verifyKey))) {
      console.log(`fake-teammate: ignoring an unverified shutdown_request ${req.requestId}`);
      continue;
    }
    const timestamp = new Date().toISOString();
    if (process.env.FAKE_GRACE === '1') {
      const graceMs = Number(process.env.SWARM_SHUTDOWN_GRACE_MS ?? 30_000);
      console.log(`fake-teammate: not answering ${req.requestId}; exiting in ${graceMs} ms (FAKE_GRACE=1)`);
      setTimeout(async () => {
        const note = `the model did not answer within ${Math.round(graceMs / 1000)}s; exited anyway`;
        await reply({ type: 'shutdown_approved', requestId: req.requestId, from: name, timestamp: new Date().toISOString(), graceExpired: true, note });
        process.exit(0);
      }, graceMs);
    } else if (process.env.FAKE_IGNORE === '1') {
      console.log(`fake-teammate: ignoring shutdown_request ${req.requestId} (FAKE_IGNORE=1)`);
    } else if (process.env.FAKE_REJECT === '1') {
      await reply({ type: 'shutdown_rejected', requestId: req.requestId, from: name, reason: 'busy: still writing tests (FAKE_REJECT=1)', timestamp });
      console.log(`fake-teammate: rejected ${req.requestId}`);
    } else {
      await reply({ type: 'shutdown_approved', requestId: req.requestId, from: name, timestamp, ...(process.env.TMUX_PANE ? { paneId: process.env.TMUX_PANE } : {}) });
      clearInterval(heartbeat);
      if (!asClaude) await writeStatus('exiting');
      console.log(`fake-teammate: approved ${req.requestId}, exiting`);
      process.exit(0);
    }
  }
}
