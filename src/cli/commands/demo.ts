// `swarm demo` (SPEC §7): the whole system for real — panes, processes, inboxes, a permission
// request approved from the leader console, a graceful shutdown — with the teammates' model calls
// answered by the stand-in Messages API (in this process, on 127.0.0.1) replaying a scripted
// scenario (demo/scenario.ts). No API key is used or needed.
//
// Everything lives under a private root in the OS temp dir (never the user's ~/.claude), printed
// at start and removed on exit, with the teammates stopped, the stand-in closed, and the demo's team
// session killed (when the demo created one). Backend: auto — this pane inside tmux; outside tmux
// a `swarm-demo` session whose first pane is the console (attached when this is a terminal);
// in-process without tmux.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import type { TeamSessions } from '../../backends/backend.js';
import { teamSessions } from '../../backends/registry.js';
import { shutdownAll } from '../../teammates/stop.js';
import { startMessagesServer, type MessagesServer } from '../../standin/messages-server.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { runConsole } from '../console/console.js';
import { println, refuseGlobals, type GlobalArgs } from '../context.js';
import { writeDemoProject } from '../demo/project.js';
import { DEMO_TEAM, demoScript, demoTeamFile } from '../demo/scenario.js';
import { attachOrSay, consoleInSession, startTeam } from '../launch/start-team.js';
import { chalk } from '../output/render.js';

export const DEMO_IDLE_HINT = 'the demo is done: type /shutdown --all, or press Ctrl-C and answer y, to shut the team down';

function demoEnv(root: string, server: MessagesServer): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: server.url, SWARM_SHUTDOWN_GRACE_MS: '10000' };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_MODEL', 'SWARM_TEAMMATE_COMMAND', 'SWARM_TEAM']) delete env[k];
  return env;
}

/** `demo`, unless a `swarm-demo` session exists (another demo running): then `demo-<hex>`. */
async function teamName(env: NodeJS.ProcessEnv): Promise<string> {
  const taken = await teamSessions({ env }).exists(DEMO_TEAM).catch(() => false);
  return taken ? `${DEMO_TEAM}-${randomBytes(2).toString('hex')}` : DEMO_TEAM;
}

/** `sessions`: the backend's team sessions when the demo's console went to one (killed here). */
async function cleanUp(root: string, team: Team | undefined, env: NodeJS.ProcessEnv, server: MessagesServer, sessions: TeamSessions | undefined): Promise<void> {
  if (team !== undefined) {
    const left = await readTeam(team).then((c) => c.members.length - 1, () => 0);
    if (left > 0) {
      println(chalk.dim(`stopping ${left} teammate${left === 1 ? '' : 's'}…`));
      await shutdownAll(team, { env, force: true, timeoutMs: 5000 });
    }
    await sessions?.kill(team.name).catch((e: unknown) => println(chalk.yellow(`could not kill the demo's session: ${e instanceof Error ? e.message : String(e)}`)));
  }
  await server.close();
  await rm(root, { recursive: true, force: true });
  println(chalk.dim(`demo cleaned up (removed ${root})`));
}

export const demoCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'demo',
  describe: 'a three-teammate demo with a scripted stand-in model: no API key needed',
  builder: (y) => refuseGlobals(y, 'demo', { team: 'the demo always makes its own team, in a temporary root', json: '' }).example('$0 demo', 'run it; approve the Bash request with y; Ctrl-C then y to finish'),
  handler: async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'swarm-demo-'));
    const project = await writeDemoProject(path.join(root, 'project'));
    const server = await startMessagesServer({ script: demoScript() });
    const env = demoEnv(root, server);
    const banner = [
      chalk.bold('swarm demo'),
      chalk.yellow('The teammates here talk to a scripted stand-in model (a local server replaying a script), not Claude. No API key is used.'),
      chalk.dim(`demo root ${root} (removed on exit) · stand-in model at ${server.url}`),
      chalk.dim('watch the teammates read files and message each other; approve the Bash request with y.'),
    ];
    for (const l of banner) println(l);
    let team: Team | undefined;
    let inSessions: TeamSessions | undefined;
    const interrupted = new AbortController();
    const onSignal = (): void => interrupted.abort();
    try {
      const started = await startTeam({ root, env, file: demoTeamFile(project, await teamName(env)), requested: 'auto', withConsole: true, cwd: project, print: println });
      team = started.team;
      inSessions = started.backend.sessions;
      if (inSessions !== undefined) {
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        const inSession = await consoleInSession(inSessions, team.name, env, project, { SWARM_LEAD_BANNER: banner.slice(1, 2).join('\n'), SWARM_LEAD_IDLE_HINT: DEMO_IDLE_HINT });
        await attachOrSay(inSession, println);
        println(chalk.dim('the demo runs until its console exits; Ctrl-C here stops it and cleans up'));
        await inSession.ended(interrupted.signal);
      } else {
        await runConsole({ team, env, banner: [], allIdleHint: DEMO_IDLE_HINT, ...(started.host ? { host: started.host } : {}) });
      }
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await cleanUp(root, team, env, server, inSessions);
    }
  },
};
