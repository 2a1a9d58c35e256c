// `swarm demo` (SPEC §7): the whole system for real — panes, processes, inboxes, a permission
// request approved from the leader console, a graceful shutdown — with the teammates' model calls
// answered by the stand-in Messages API (in this process, on 127.0.0.1) replaying a scripted
// scenario (demo/scenario.ts). No API key is used or needed.
//
// Everything lives under a private root in the OS temp dir (never the user's ~/.claude), printed
// at start and removed on exit, with the teammates stopped, the stand-in closed, and the demo's tmux
// session killed (when the demo created one). Backend: auto — this pane inside tmux; outside tmux
// a `swarm-demo` session whose first pane is the console (attached when this is a terminal);
// in-process without tmux.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandModule } from 'yargs';
import { sessionNameFor } from '../../backends/registry.js';
import { shutdownAll } from '../../teammates/stop.js';
import { TmuxServer, hasSession } from '../../backends/tmux/commands.js';
import { startMessagesServer, type MessagesServer } from '../../standin/messages-server.js';
import { readTeam } from '../../team/team-store.js';
import { runConsole } from '../console/console.js';
import { println, type GlobalArgs } from '../context.js';
import { writeDemoProject } from '../demo/project.js';
import { DEMO_TEAM, demoScript, demoTeamFile } from '../demo/scenario.js';
import { attachOrSay, consoleGoesToSession, consoleInSession, startTeam } from '../launch/start-team.js';
import { chalk } from '../output/render.js';

export const DEMO_IDLE_HINT = 'the demo is done: type /shutdown --all, or press Ctrl-C and answer y, to shut the team down';

function demoEnv(root: string, server: MessagesServer): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: server.url, SWARM_SHUTDOWN_GRACE_MS: '10000' };
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'ANTHROPIC_MODEL', 'SWARM_TEAMMATE_COMMAND', 'SWARM_TEAM']) delete env[k];
  return env;
}

/** `demo`, unless a `swarm-demo` tmux session exists (another demo running): then `demo-<hex>`. */
async function teamName(env: NodeJS.ProcessEnv): Promise<string> {
  const server = new TmuxServer({ socket: env.SWARM_TMUX_SOCKET || undefined });
  const taken = await hasSession(server, sessionNameFor(DEMO_TEAM)).catch(() => false);
  return taken ? `${DEMO_TEAM}-${randomBytes(2).toString('hex')}` : DEMO_TEAM;
}

async function cleanUp(root: string, team: string | undefined, env: NodeJS.ProcessEnv, server: MessagesServer, killSession: boolean): Promise<void> {
  if (team !== undefined) {
    const left = await readTeam(root, team).then((c) => c.members.length - 1, () => 0);
    if (left > 0) {
      println(chalk.dim(`stopping ${left} teammate${left === 1 ? '' : 's'}…`));
      await shutdownAll(root, team, { env, root, force: true, timeoutMs: 5000 });
    }
    if (killSession) await new TmuxServer({ socket: env.SWARM_TMUX_SOCKET || undefined }).tryRun(['kill-session', '-t', `=${sessionNameFor(team)}`]);
  }
  await server.close();
  await rm(root, { recursive: true, force: true });
  println(chalk.dim(`demo cleaned up (removed ${root})`));
}

export const demoCommand: CommandModule<GlobalArgs, GlobalArgs> = {
  command: 'demo',
  describe: 'a three-teammate demo with a scripted stand-in model: no API key needed',
  builder: (y) => y.example('$0 demo', 'run it; approve the Bash request with y; Ctrl-C then y to finish'),
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
    let team: string | undefined;
    let killSession = false;
    const interrupted = new AbortController();
    const onSignal = (): void => interrupted.abort();
    try {
      const started = await startTeam({ root, env, file: demoTeamFile(project, await teamName(env)), requested: 'auto', withConsole: true, cwd: project, print: println });
      team = started.team;
      if (consoleGoesToSession(started.backend, env)) {
        killSession = true;
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        const inSession = await consoleInSession(team, env, project, { SWARM_LEAD_BANNER: banner.slice(1, 2).join('\n'), SWARM_LEAD_IDLE_HINT: DEMO_IDLE_HINT });
        await attachOrSay(inSession.attach, println);
        println(chalk.dim('the demo runs until its console exits; Ctrl-C here stops it and cleans up'));
        await inSession.ended(interrupted.signal);
      } else {
        await runConsole({ root, team, env, banner: [], allIdleHint: DEMO_IDLE_HINT, ...(started.host ? { host: started.host } : {}) });
      }
    } finally {
      process.removeListener('SIGINT', onSignal);
      process.removeListener('SIGTERM', onSignal);
      await cleanUp(root, team, env, server, killSession);
    }
  },
};
