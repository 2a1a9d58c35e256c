// What the agent lead's Agent and SendMessage tools do, as the command line decided (docs/protocol.md#agent-lead):
// spawning goes through the normal spawn path (the team's backend unless --backend, readiness, the
// flags the run passes down: --model, --permission-mode, --runtime; the lead's `mode` is a model's
// request, refused above the person's --permission-mode, the ceiling: teammates/spawn.ts); a shutdown_request goes
// through the verified stop (teammates/stop.ts): an approval or a rejection is reported as is, a
// teammate that does not answer in time is killed; a stopped teammate the lead messages is resumed
// (cli/resume-members.ts) on the same backend as its spawns.
import type { InProcessHost } from '../../backends/in-process/host.js';
import { selectBackend, type SelectedBackend } from '../../backends/registry.js';
import type { LeadOptions } from '../../runtime/lead/lead.js';
import type { StopReport } from '../../runtime/lead/tools.js';
import type { TeammateRuntime } from '../../teammates/command-line.js';
import { spawnTeammate } from '../../teammates/spawn.js';
import { backendsOnce, killTeammate, shutdownAll, shutdownTeammate, type StopContext, type StopOutcome } from '../../teammates/stop.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { requestedBackend } from '../context.js';
import { resumeRecipients } from '../resume-members.js';

export interface LeadPowerOptions {
  team: Team;
  env: NodeJS.ProcessEnv;
  /** --backend; default the team's `swarm.backend`, else detection. */
  backend?: string | undefined;
  /** The console's in-process host, when there is one. */
  host?: InProcessHost | undefined;
  /** Passed down to every teammate unless the lead's Agent call or its agent type says otherwise. */
  model?: string | undefined;
  permissionMode?: string | undefined;
  runtime?: TeammateRuntime | undefined;
  cwd?: string | undefined;
  /** Progress: notes, notices. */
  print: (line: string) => void;
  /**
   * No console runs (headless): a team session this run creates (tmux outside tmux) loses its
   * first pane after the first spawn, so the session ends with its last teammate.
   */
  noConsole?: boolean;
  /** Told before a shutdown request goes out (the console reports those outcomes itself). */
  onStopping?: (name: string) => void;
  signal?: AbortSignal;
}

/** A teammate that did not answer is killed; anything else is reported as it happened. */
async function settle(team: Team, o: StopOutcome, ctx: StopContext): Promise<StopReport> {
  if (o.outcome !== 'timeout') return o;
  const killed = await killTeammate(team, o.name, ctx).catch((e: unknown) => ({ name: o.name, outcome: 'failed' as const, reason: e instanceof Error ? e.message : String(e), verified: false }));
  return killed.outcome === 'killed' ? { ...killed, reason: o.reason ?? 'no answer in time' } : killed;
}

/** What the command line gives every lead front end: spawning, stopping (asked, or now), resuming. */
export type LeadPowerSet = Required<Pick<LeadOptions, 'spawn' | 'stop' | 'stopAll' | 'kill' | 'resumeStopped'>>;

export function leadPowers(o: LeadPowerOptions): LeadPowerSet {
  let selected: Promise<SelectedBackend & { sessionExisted: boolean }> | undefined;
  let consolePaneDropped = false;
  const backend = async (): Promise<SelectedBackend & { sessionExisted: boolean }> => {
    const s = await selectBackend({ requested: await requestedBackend(o.team, o.backend), env: o.env, team: o.team, inProcessHost: o.host });
    for (const n of s.notes) o.print(`note: ${n}`);
    return { ...s, sessionExisted: (await s.backend.sessions?.exists(o.team.name)) ?? true };
  };
  const ctx: StopContext = { env: o.env, inProcessHost: o.host };
  ctx.backendFor = backendsOnce(ctx); // one backend per kind for every stop of the run
  return {
    spawn: async (req) => {
      selected ??= backend();
      const { backend: chosen, sessionExisted } = await selected;
      const r = await spawnTeammate({
        team: o.team,
        name: req.name,
        prompt: req.prompt,
        model: req.model,
        defaultModel: o.model,
        agentType: req.agentType,
        // A model's request: refused above the person's mode (the ceiling), here for every front end.
        requestedMode: req.mode,
        defaultPermissionMode: o.permissionMode,
        runtime: req.runtime ?? o.runtime,
        isolation: req.isolation,
        cwd: o.cwd,
        backend: chosen,
        env: o.env,
        onNotice: (text) => o.print(text),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      if (o.noConsole === true && !sessionExisted && !consolePaneDropped) {
        consolePaneDropped = true;
        await chosen.sessions?.dropConsolePane(o.team.name);
      }
      if (r.modeNote !== undefined) o.print(`note: ${r.modeNote}`);
      return {
        agentId: r.agentId,
        name: r.name,
        where: `${r.backendType} pane ${r.paneId}${r.pid === undefined ? '' : ` (pid ${r.pid})`}`,
        ...(r.modeNote !== undefined ? { note: r.modeNote } : {}),
      };
    },
    stop: async (name, reason) => {
      o.onStopping?.(name);
      return settle(o.team, await shutdownTeammate(o.team, name, { ...ctx, reason }), ctx);
    },
    kill: async (name) => {
      o.onStopping?.(name);
      return killTeammate(o.team, name, ctx);
    },
    stopAll: async (reason) => {
      for (const m of (await readTeam(o.team)).members) o.onStopping?.(m.name);
      const outcomes = await shutdownAll(o.team, { ...ctx, reason });
      return Promise.all(outcomes.map((x) => settle(o.team, x, ctx)));
    },
    resumeStopped: async (recipients) => {
      const lines = await resumeRecipients(o.team, recipients, {
        backend: async () => (await (selected ??= backend())).backend,
        env: o.env,
        onNotice: (text) => o.print(text),
      });
      for (const line of lines) o.print(line);
      return lines;
    },
  };
}
