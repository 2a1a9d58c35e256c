// `swarm run --lead claude "<goal>"` in a terminal (docs/claude-code-lead.md): Claude Code leads in
// this terminal, and the person's console — `swarm lead`, watching: it asks the teammates'
// permission and plan questions, /status, /shutdown — opens in a pane beside it; teammates open
// beside them. Where the backend makes team sessions (tmux, outside tmux) the run starts itself
// again in the first pane of a new session `swarm-<team>` and attaches this terminal to it.
// When Claude Code exits, every teammate is shut down (verified), the console's pane is closed, and
// the team's files stay. Ctrl-C is Claude Code's (it reads keys); an interrupt (`signal`) stops it first.
import { execa } from 'execa';
import type { PaneRef } from '../../backends/backend.js';
import { selectBackend } from '../../backends/registry.js';
import { isSwarmError, SwarmError } from '../../protocol/errors.js';
import { onSignals } from '../../protocol/signals.js';
import { backendsOnce, type StopContext } from '../../teammates/stop.js';
import { forwardedEnv, SWARM_BIN } from '../../teammates/command-line.js';
import type { Team } from '../../team/team.js';
import { requestedBackend } from '../context.js';
import { attachOrSay, leadArgv } from '../launch/start-team.js';
import { claudeLeadCommand, teamFlags } from './claude-lead.js';
import type { TeamSettings } from './options.js';
import { endRun } from './run-report.js';

export interface ClaudeTerminalOptions {
  team: Team;
  goal: string;
  settings: TeamSettings;
  leadModel?: string | undefined;
  env: NodeJS.ProcessEnv;
  print: (line: string) => void;
  /** SIGTERM, SIGHUP: Claude Code is stopped, then the team (the caller catches them; Ctrl-C is Claude Code's). */
  signal?: AbortSignal;
  shutdownTimeoutMs?: number;
}

/** The console pane's colour and title. */
const CONSOLE_PANE = { name: 'console', color: 'white' } as const;

export async function runClaudeInTerminal(o: ClaudeTerminalOptions): Promise<number> {
  const { team, settings } = o;
  const chosen = await selectBackend({ requested: await requestedBackend(team, settings.backend), env: o.env, team }).catch((e: unknown) => {
    if (!isSwarmError(e, 'not_found')) throw e;
    throw new SwarmError('not_found', `swarm run --lead claude opens its teammates in panes and found no pane backend (${e.message}): run it where tmux is installed, or in iTerm2 with it2`);
  });
  for (const n of chosen.notes) o.print(`note: ${n}`);
  const backend = chosen.backend;

  if (backend.sessions !== undefined) {
    // Outside tmux: this run, again, in the first pane of the team's new session; this terminal attaches.
    const again = [process.execPath, SWARM_BIN, 'run', o.goal, '--lead', 'claude', '--team', team.name, ...teamFlags(settings), ...(o.leadModel ? ['--lead-model', o.leadModel] : [])];
    const inSession = await backend.sessions.runConsole(team.name, { argv: again, cwd: settings.cwd, env: forwardedEnv(o.env) });
    o.print(backend.describe());
    await attachOrSay(inSession, o.print);
    o.print(`the run goes on in tmux session ${backend.sessions.nameOf(team.name)}: leaving Claude Code there ends it and stops the teammates`);
    return 0;
  }

  const { argv, env: claudeEnv } = await claudeLeadCommand({ team, settings, goal: o.goal, leadModel: o.leadModel, headless: false, env: o.env });
  const consolePane: PaneRef = await backend.createPane({ team: team.name, ...CONSOLE_PANE, argv: leadArgv(team.name), env: forwardedEnv(o.env), cwd: settings.cwd });
  const child = execa(argv[0]!, argv.slice(1), { env: claudeEnv, cwd: settings.cwd, stdio: 'inherit', reject: false });
  // The terminal's Ctrl-C is a key Claude Code reads; a SIGINT sent to the group is its to handle, not this process's.
  const offSigint = onSignals(['SIGINT'], () => undefined);
  const stopClaude = (): void => void child.kill('SIGTERM');
  o.signal?.addEventListener('abort', stopClaude, { once: true });
  let exitCode: number;
  try {
    exitCode = (await child).exitCode ?? 1;
  } finally {
    offSigint();
    o.signal?.removeEventListener('abort', stopClaude);
  }
  const ctx: StopContext = { env: o.env };
  ctx.backendFor = backendsOnce(ctx);
  await endRun({ team, ctx, progress: o.print, timeoutMs: o.shutdownTimeoutMs });
  await backend.kill(consolePane).catch((e: unknown) => o.print(`error: closing the console pane: ${e instanceof Error ? e.message : String(e)}`));
  o.print(`team files kept: swarm status --team ${team.name}`);
  return exitCode === 0 ? 0 : 1;
}
