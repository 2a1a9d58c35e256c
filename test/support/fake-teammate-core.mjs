// The one fake teammate (a scripted stand-in for `swarm teammate`, and for `claude`), shared by its
// three entry points: test/support/fake-teammate.mjs (a child process over the built dist/),
// test/support/fake-teammate-inprocess.ts (a TeammateLaunch for the in-process host, over src/) and
// scripts/bench/fake-teammate.mjs (the spawn bench's). The swarm functions it needs come in as `lib`,
// so each entry keeps to one set of module instances: a dist Mailbox inside a src in-process host
// would not see the host's AsyncLocalStorage context. Types: fake-teammate-core.d.mts. It:
//  - answers `--version` as `claude --version` prints it (spawn reports it);
//  - prints `FAKE argv [...]` and `FAKE env {...}` (selected variables);
//  - accepts exactly the SPEC §4.3 flags (anything else: exit 2, like a strict CLI);
//  - writes status/<name>.json ({pid, state: idle, heartbeatAt} plus its argv, env and cwd, so
//    tests can check what arrived), renewed every 2 s, consumes its inbox (marks entries read),
//    printing each message;
//  - on a shutdown_request from team-lead whose lead_sig verifies with --lead-verify-key: replies
//    shutdown_approved to team-lead, writes state `exiting` and ends with 0 — or, with
//    FAKE_REJECT=1, replies shutdown_rejected with a reason; with FAKE_IGNORE=1 ignores it; with
//    FAKE_GRACE=1 behaves like the runtime whose model never answers: after SWARM_SHUTDOWN_GRACE_MS
//    (default 30000) it replies shutdown_approved with graceExpired: true and ends with 0.
// FAKE_CRASH=1: prints an error and ends with 3 at once. FAKE_SILENT=1: writes its status but never
// reads its inbox (a teammate that never becomes ready). FAKE_GATE=<file>: writes its status, then
// reads its inbox only once that file exists (a teammate whose readiness the test releases).
// FAKE_STATUS_PID=<pid>: the pid its status file names instead of its own, as a teammate on another
// machine's pid means nothing on this one.
// Started as a stand-in `claude` (CLAUDECODE=1, `--runtime claude`): accepts claude's flags (no
// --lead-verify-key, no --cwd; `--session-id <id>`, `--resume <id>`), writes no status file (a real
// claude does not) nor any session transcript, and does not check signatures.
import { existsSync, watch } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

const SHOWN_ENV = [
  'SWARM_PROBE', 'ANTHROPIC_BASE_URL', 'CLAUDE_CONFIG_DIR', 'NOT_FORWARDED', 'CLAUDECODE',
  'CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS', 'HTTPS_PROXY', 'no_proxy',
];
const FLAGS = {
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
  resume: { type: 'boolean' },
  'session-id': { type: 'string' }, // claude's: the session swarm names at spawn (teammates/spawn.ts)
};

/** Runs the fake teammate to its end; resolves with its exit code. */
export async function runFakeTeammate(lib, run) {
  const { argv, env, print, warn } = run;
  if (argv.length === 1 && argv[0] === '--version') {
    print('0.0.0-fake (Claude Code)');
    return 0;
  }
  const shown = Object.fromEntries(SHOWN_ENV.filter((k) => env[k] !== undefined).map((k) => [k, env[k]]));
  print(`FAKE argv ${JSON.stringify(argv)}`);
  print(`FAKE env ${JSON.stringify(shown)}`);
  if (env.FAKE_CRASH === '1') {
    warn('fake-teammate: crashing at once (FAKE_CRASH=1)');
    return 3;
  }
  const asClaude = env.CLAUDECODE === '1';
  let values;
  try {
    const options = asClaude ? { ...FLAGS, resume: { type: 'string' } } : FLAGS;
    ({ values } = parseArgs({ args: [...argv], strict: true, allowPositionals: false, options }));
  } catch (e) {
    warn(`fake-teammate: ${e.message}`);
    return 2;
  }
  const name = values['agent-name'];
  const verifyKey = values['lead-verify-key'];
  if (!name || !values['team-name'] || (!verifyKey && !asClaude) || !values['agent-id']) {
    warn('fake-teammate: --agent-id, --agent-name, --team-name and --lead-verify-key are required');
    return 2;
  }
  const team = new lib.Team(lib.resolveRoot(env), values['team-name']);
  const mailbox = new lib.Mailbox({ team });
  const startedAt = Date.now();
  const pid = Number(env.FAKE_STATUS_PID) || run.pid;
  const status = { name, agentId: values['agent-id'], pid, startedAt, argv, env: shown, cwd: run.cwd };
  const writeStatus = async (state) => {
    if (!asClaude) await lib.writeFileAtomic(team.paths.status(name), lib.formatJson({ ...status, state, heartbeatAt: Date.now() }));
  };
  // As the runtime's StatusReporter does: a team Claude Code made has no status/ until someone makes it.
  if (!asClaude) await lib.ensureDir(path.dirname(team.paths.status(name)));
  await writeStatus('idle');
  const heartbeat = setInterval(() => void writeStatus('idle').catch(() => undefined), 2000);
  // Ends the inbox loop: the host's stop signal, or the shutdown grace running out.
  const stop = new AbortController();
  run.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  try {
    if (env.FAKE_GATE) await gate(env.FAKE_GATE, print);
    if (env.FAKE_SILENT === '1') {
      print('fake-teammate: silent, never reading the inbox (FAKE_SILENT=1)');
      await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }));
      return 0;
    }
    const reply = (message) => mailbox.append('team-lead', { from: name, text: lib.encodeControl(message), color: values['agent-color'] });
    for await (const m of lib.followInbox(mailbox, name, { consume: true, pollMs: 200, signal: stop.signal })) {
      const parsed = lib.parseControl(m.text);
      if (parsed.kind !== 'control' || parsed.message.type !== 'shutdown_request') {
        print(`FAKE got from ${m.from}: ${m.text}`);
        continue;
      }
      const { requestId } = parsed.message;
      if (m.from !== 'team-lead' || (!asClaude && !lib.verifyEntry(m, verifyKey))) {
        print(`fake-teammate: ignoring an unverified shutdown_request ${requestId}`);
        continue;
      }
      const timestamp = new Date().toISOString();
      if (env.FAKE_GRACE === '1') {
        const graceMs = Number(env.SWARM_SHUTDOWN_GRACE_MS ?? 30_000);
        print(`fake-teammate: not answering ${requestId}; exiting in ${graceMs} ms (FAKE_GRACE=1)`);
        setTimeout(() => {
          const note = `the model did not answer within ${Math.round(graceMs / 1000)}s; exited anyway`;
          void reply({ type: 'shutdown_approved', requestId, from: name, timestamp: new Date().toISOString(), graceExpired: true, note }).finally(() => stop.abort());
        }, graceMs);
      } else if (env.FAKE_IGNORE === '1') {
        print(`fake-teammate: ignoring shutdown_request ${requestId} (FAKE_IGNORE=1)`);
      } else if (env.FAKE_REJECT === '1') {
        await reply({ type: 'shutdown_rejected', requestId, from: name, reason: 'busy: still writing tests (FAKE_REJECT=1)', timestamp });
        print(`fake-teammate: rejected ${requestId}`);
      } else {
        await reply({ type: 'shutdown_approved', requestId, from: name, timestamp, ...run.approval });
        clearInterval(heartbeat);
        await writeStatus('exiting');
        print(`fake-teammate: approved ${requestId}, exiting`);
        return 0;
      }
    }
    return 0;
  } finally {
    clearInterval(heartbeat);
  }
}

/** Resolves once `file` exists (FAKE_GATE). */
async function gate(file, print) {
  print(`fake-teammate: waiting for ${file} (FAKE_GATE)`);
  await new Promise((resolve) => {
    const watcher = watch(path.dirname(file), () => {
      if (existsSync(file)) (watcher.close(), resolve());
    });
    if (existsSync(file)) (watcher.close(), resolve());
  });
}
