// The demo (`swarm demo`, docs/protocol.md#demo; runDemo): the whole system for real — panes, processes, inboxes, a permission
// request approved from the leader console, a graceful shutdown — with every model call answered by
// the stand-in Messages API (in this process, on 127.0.0.1) replaying a scripted scenario. No API
// key is used or needed. Two scenarios:
//   default   an agent lead (docs/protocol.md#agent-lead) in the console gets a small goal for the demo project
//             (demo/lead-scenario.ts): it makes tasks with a dependency, spawns two workers and a
//             verification teammate, the person answers one permission question (y), and once the
//             verdict is in the lead shuts the team down and gives its final answer;
//   --manual  three teammates from a team file (demo/scenario.ts); the person approves the Bash
//             request and ends the demo with /shutdown --all.
//
// Everything lives under a private root in the OS temp dir (never the user's ~/.claude; demo/root.ts),
// printed at start and removed on exit, with the teammates stopped, the stand-in closed, and the
// demo's team session killed (when the demo created one). Backend: auto — this pane inside tmux;
// outside tmux a `swarm-demo` session whose first pane is the console (attached when this is a
// terminal); in-process without tmux.
//
// The demo ends when its console does — which it does by itself once the last teammate has left
// (--manual: `/shutdown --all`; default: the lead has finished and stopped its teammates) — or when
// it is interrupted: SIGINT, SIGTERM, SIGHUP (the terminal closed: a closed window, `tmux
// kill-pane`) or a closed stdout (cli/interrupts.ts). An interrupted demo kills its teammates at
// once (verified), kills its session, closes the stand-in, removes its root, and then dies of the
// same signal (a shell shows 128 + the signal; exit 141 for a closed output). Only SIGKILL or a
// crash leave the root behind; its marker names this process, so `swarm doctor` can tell it is
// orphaned and `--fix` removes it.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { TeamSessions } from '../../backends/backend.js';
import { teamSessions } from '../../backends/registry.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { SHUTDOWN_GRACE_ENV } from '../../protocol/shutdown-timing.js';
import { killTeammate, shutdownAll } from '../../teammates/stop.js';
import { startMessagesServer, type MessagesServer } from '../../standin/messages-server.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { lastLeadAnswer } from '../../runtime/lead/answer.js';
import { runConsole } from '../console/run.js';
import { println, rootDir } from '../context.js';
import { LEAD_DEMO_GOAL, leadDemoScript, leadDemoTeamFile } from './lead-scenario.js';
import { DEMO_FILES, LEAD_DEMO_FILES, writeDemoProject } from './project.js';
import { makeDemoRoot, removeDemoRoot } from './root.js';
import { DEMO_TEAM, demoScript, demoTeamFile } from './scenario.js';
import { attachOrSay, consoleInSession, startTeam } from '../launch/start-team.js';
import { catchInterrupts } from '../interrupts.js';
import { chalk } from '../output/render.js';
import { defaultLeadSettings } from '../run/options.js';
import { sessionConsoleEnv } from '../console/session-env.js';
import { cliIo } from '../io.js';


export const DEMO_IDLE_HINT = 'the demo is done: type /shutdown --all, or press Ctrl-C and answer y, to shut the team down and end the demo';

/**
 * The model every member of the demo names: the stand-in is no Claude model, and a name no price
 * row matches (protocol/prices.ts) makes its tokens count without a made-up dollar cost.
 */
export const DEMO_MODEL = 'swarm-stand-in';

function demoEnv(root: string, server: MessagesServer): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...cliIo().env, CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_MODEL: DEMO_MODEL, [SHUTDOWN_GRACE_ENV]: '10000' };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'SWARM_TEAMMATE_COMMAND', 'SWARM_TEAM']) delete env[k];
  return env;
}

/** `demo`, unless a `swarm-demo` session exists (another demo running, or one killed): then `demo-<hex>`, and says why. */
async function teamName(env: NodeJS.ProcessEnv): Promise<string> {
  const sessions = teamSessions({ env });
  if (!(await sessions.exists(DEMO_TEAM).catch(() => false))) return DEMO_TEAM;
  println(chalk.yellow(`note: tmux session ${sessions.nameOf(DEMO_TEAM)} exists: another demo is running, or one was killed without cleaning up ('swarm doctor --fix' removes those)`));
  return `${DEMO_TEAM}-${randomBytes(2).toString('hex')}`;
}

/** Stop the teammates still on the roster: gracefully after a normal end, at once when interrupted. */
async function stopTeammates(team: Team, env: NodeJS.ProcessEnv, interrupted: boolean): Promise<void> {
  const left = await readTeam(team).then((c) => c.members.filter((m) => m.name !== LEAD_NAME).map((m) => m.name), () => []);
  if (left.length === 0) return;
  println(chalk.dim(`${interrupted ? 'killing' : 'stopping'} ${left.length} teammate${left.length === 1 ? '' : 's'}…`));
  if (!interrupted) {
    await shutdownAll(team, { env, force: true, timeoutMs: 5000 });
    return;
  }
  const failed = await Promise.all(left.map((name) => killTeammate(team, name, { env }).then(() => undefined, (e: unknown) => `${name}: ${e instanceof Error ? e.message : String(e)}`)));
  for (const f of failed) if (f !== undefined) println(chalk.yellow(`could not stop ${f}`));
}

interface Started {
  team?: Team;
  sessions?: TeamSessions;
  server?: MessagesServer;
  env?: NodeJS.ProcessEnv;
}

async function cleanUp(owner: string, root: string, s: Started, interrupted: boolean): Promise<void> {
  if (s.team !== undefined && s.env !== undefined) {
    const { team, env } = s;
    await stopTeammates(team, env, interrupted).catch((e: unknown) => println(chalk.yellow(`could not stop the teammates: ${e instanceof Error ? e.message : String(e)}`)));
    await s.sessions?.kill(team.name).catch((e: unknown) => println(chalk.yellow(`could not kill the demo's session: ${e instanceof Error ? e.message : String(e)}`)));
  }
  await s.server?.close();
  await removeDemoRoot(owner, root);
  println(chalk.dim(`demo cleaned up (removed ${root})`));
}

/** What the person reads first: what the demo is, where it lives, what will happen and what to press. */
function bannerLines(manual: boolean, root: string, server: MessagesServer): string[] {
  const who = manual ? 'The teammates here talk' : 'The agent lead and its teammates here talk';
  const plan = manual
    ? ['watch the teammates read files and message each other; approve the Bash request with y.']
    : [
        `the lead's goal: ${LEAD_DEMO_GOAL}`,
        'it plans two tasks (the test waits for the fix), spawns coder and tester, then a verifier, and shuts them down when the verdict is in.',
        'press y when tester asks to run node test/greet.test.js (your one question); the demo ends by itself after the lead\'s final answer.',
      ];
  return [
    chalk.bold(manual ? 'swarm demo --manual' : 'swarm demo'),
    chalk.yellow(`${who} to a scripted stand-in model (a local server replaying a script), not Claude. No API key is used.`),
    chalk.dim(`demo root ${root} (removed on exit) · stand-in model at ${server.url}`),
    ...plan.map((l) => chalk.dim(l)),
  ];
}

/** Run the demo (`--manual`: three scripted teammates, no agent lead) until it ends; an interrupted one ends the process after its cleanup. */
export async function runDemo(manual: boolean): Promise<void> {
  // Interruptions are caught before anything exists, so whatever gets made is also cleaned up.
  const interrupted = catchInterrupts();
  const owner = rootDir();
  const root = await makeDemoRoot(os.tmpdir(), owner, { pid: process.pid, startedAt: Date.now() });
  const s: Started = {};
  try {
    const project = await writeDemoProject(path.join(root, 'project'), manual ? DEMO_FILES : LEAD_DEMO_FILES);
    const server = (s.server = await startMessagesServer({ script: manual ? demoScript() : leadDemoScript() }));
    const env = (s.env = demoEnv(root, server));
    const banner = bannerLines(manual, root, server);
    for (const l of banner) println(l);
    const name = await teamName(env);
    if (interrupted.signal.aborted) return;
    const file = manual ? demoTeamFile(project, name) : leadDemoTeamFile(name);
    const started = await startTeam({ root, env, file, requested: 'auto', withConsole: true, cwd: project, print: println, signal: interrupted.signal });
    s.team = started.team;
    s.sessions = started.backend.sessions;
    if (interrupted.signal.aborted) return;
    if (s.sessions !== undefined) {
      // The console's own banner: the notice and, with the lead, what will happen (the person sees only that pane).
      const told = manual ? { banner: banner[1]!, idleHint: DEMO_IDLE_HINT } : { banner: [banner[1], ...banner.slice(3)].join('\n'), goal: LEAD_DEMO_GOAL };
      const inSession = await consoleInSession(s.sessions, started.team.name, env, project, sessionConsoleEnv({ ...told, endWithTeam: true }), !manual);
      await attachOrSay(inSession, println);
      if (interrupted.signal.aborted) return;
      println(chalk.dim('the demo runs until its console exits; Ctrl-C here stops it and cleans up'));
      await inSession.ended(interrupted.signal);
      // The console (and the session with it) is gone: the lead's answer stays in this terminal.
      const answer = manual || interrupted.signal.aborted ? undefined : await lastLeadAnswer(started.team);
      if (answer !== undefined) println(`${chalk.bold("the lead's answer:")}\n${answer}`);
    } else {
      // The lead spawns on the backend chosen above (not detected a second time).
      const lead = { ...defaultLeadSettings(env, project), backend: started.backend.type, goal: LEAD_DEMO_GOAL };
      const scenario = manual ? { allIdleHint: DEMO_IDLE_HINT } : { lead };
      await runConsole({ team: started.team, env, banner: [], endWithLastTeammate: true, signal: interrupted.signal, ...scenario, ...(started.host ? { host: started.host } : {}) });
    }
  } finally {
    await cleanUp(owner, root, s, interrupted.signal.aborted);
    // Interrupted: end now (a tmux client or a timer must not keep alive a demo told to stop).
    if (interrupted.cause !== undefined) await interrupted.exit(interrupted.cause);
    interrupted.off();
  }
}
