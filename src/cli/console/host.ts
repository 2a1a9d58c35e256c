// The console as the in-process host (docs/protocol.md#backends item 4): in-process teammates run inside the
// leader console's process, each as the real teammate runtime (runTeammate) started from the same
// argv a pane would run. Their pane output goes to the host's ring buffer (`swarm status`, capture),
// not to the console screen.
import { InProcessHost } from '../../backends/in-process/host.js';
import type { TeammateLaunch } from '../../backends/in-process/context.js';
import { flagsFromArgv } from '../../runtime/args.js';
import type { Team } from '../../team/team.js';
import { chalk } from '../output/render.js';

/** Runs a teammate argv (`... teammate --agent-id ...`) in this process with the leader's env plus the pane's. */
export function teammateLauncher(baseEnv: NodeJS.ProcessEnv): TeammateLaunch {
  return async (argv, paneEnv, ctx) => {
    // Loaded on first use: the runtime (the Messages API SDK, the tools) costs every other command
    // ~0.1 s of start-up, and most consoles never host a teammate.
    const { runTeammate } = await import('../../runtime/teammate.js');
    return runTeammate({
      flags: flagsFromArgv(argv),
      env: { ...baseEnv, ...paneEnv },
      write: (text) => ctx.print(text),
      colorLevel: chalk.level,
      signal: ctx.stopSignal,
    });
  };
}

/** Register this process as the team's in-process host. */
export function openConsoleHost(team: Team, env: NodeJS.ProcessEnv): Promise<InProcessHost> {
  return InProcessHost.open({ team, launch: teammateLauncher(env) });
}
