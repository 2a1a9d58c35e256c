// `swarm launch <team.yaml> [--no-console] [--dry-run] [--backend]` (SPEC §6; runLaunch): create the team
// from a team file, spawn every member, then run the leader console — in this pane inside tmux (or
// iTerm2, or in-process), else in the first pane of the `swarm-<team>` session, attached when this
// is a terminal. `--dry-run` prints the commands and writes nothing; `--no-console` spawns, prints
// the status table and exits (1 if any member failed to start). A team that already exists is not
// launched twice (launch/existing-team.ts: attach, or say how); `--rename` launches a second team
// under a free name. `--json` (with --no-console or --dry-run) prints one JSON document instead: the
// launch result with the status report, or the dry run's steps.
// Ctrl-C (or SIGTERM/SIGHUP) while the members start stops what launch started, removes the team,
// says so, and exits 130 (143 for SIGTERM, 129 for SIGHUP).
import os from 'node:os';
import type { Backend } from '../../backends/backend.js';
import { backendForType, selectBackend, type BackendChoice } from '../../backends/registry.js';
import { SwarmError, isSwarmError } from '../../protocol/errors.js';
import { teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { runConsole } from '../console/run.js';
import { printJson, println, rootDir, type GlobalArgs } from '../context.js';
import { dryRunJson, dryRunLines } from './dry-run.js';
import { launchExisting } from './existing-team.js';
import { attachOrSay, consoleInSession, startTeam, undoStart, type StartTeamOptions, type StartedTeam } from './start-team.js';
import { chalk } from '../output/render.js';
import { renderStatus } from '../output/status.js';
import { collectStatus } from '../../teammates/status-report.js';
import { planWorktree, type WorktreePlan } from '../../teammates/worktree.js';
import { memberHosts, parseTeamFile } from './team-file.js';

export interface LaunchArgs extends GlobalArgs {
  file: string;
  console: boolean;
  'dry-run': boolean;
  rename: boolean;
  backend?: string;
}

const INTERRUPTS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** startTeam, with Ctrl-C undoing everything it started; exits 128 + the signal after saying so. */
async function startInterruptibly(o: Omit<StartTeamOptions, 'signal'>): Promise<StartedTeam> {
  const ac = new AbortController();
  let caught: NodeJS.Signals | undefined;
  const onSignal = (sig: NodeJS.Signals): void => {
    caught ??= sig;
    ac.abort();
  };
  for (const sig of INTERRUPTS) process.on(sig, onSignal);
  try {
    const started = await startTeam({ ...o, signal: ac.signal });
    if (caught === undefined) return started;
    o.print(chalk.yellow(`${caught === 'SIGINT' ? 'Ctrl-C' : caught}: stopping what launch started…`));
    o.print(await undoStart(started, o.env));
    return process.exit(128 + (os.constants.signals[caught] ?? 0));
  } finally {
    for (const sig of INTERRUPTS) process.removeListener(sig, onSignal);
  }
}

/** The backend launch would choose; only its plan() is used. */
async function dryRunBackend(requested: BackendChoice, team: Team, withConsole: boolean, sshHost: string | undefined): Promise<Backend> {
  try {
    return (await selectBackend({ requested, env: process.env, team, host: requested === 'ssh' ? sshHost : undefined })).backend;
  } catch (e) {
    // No in-process host yet: launch's console would become it (without a console, launch fails the same way).
    if (isSwarmError(e, 'not_found') && withConsole) return backendForType('in-process', team, { env: process.env });
    throw e;
  }
}

/** Run `swarm launch` with its parsed flags. */
export async function runLaunch(args: LaunchArgs): Promise<void> {
  if (args.json && args.console && !args['dry-run']) {
    throw new SwarmError('invalid_input', '--json needs --no-console or --dry-run (the console is interactive)');
  }
  const root = rootDir();
  const env = process.env;
  // The machine checks (each cwd, claude on PATH, worktrees) run before anything is created, dry run too.
  const cwd = process.cwd();
  const file = await parseTeamFile(args.file, { env, cwd });
  const requested = (args.backend ?? file.backend ?? 'auto') as BackendChoice;
  if (args['dry-run']) {
    const named = new Team(root, file.name);
    const backend = await dryRunBackend(requested, named, args.console, memberHosts(file)[0]);
    const worktrees = new Map<string, WorktreePlan>();
    for (const m of file.members) if (m.isolation === 'worktree') worktrees.set(m.name, await planWorktree(file.name, m.name, m.cwd ?? cwd));
    // Members with a host plan on the ssh backend (selecting it runs nothing).
    const hosts = memberHosts(file);
    const onHost = new Map<string, Backend>();
    for (const h of new Set(hosts.filter((h): h is string => h !== undefined))) onHost.set(h, (await selectBackend({ requested: 'ssh', env, team: named, host: h })).backend);
    const backendOf = (index: number): Backend | undefined => onHost.get(hosts[index] ?? '');
    const input = { file, team: file.name, taken: await teamExists(named), rename: args.rename, root, env, cwd, backend, backendOf, console: args.console, worktrees };
    if (args.json) return printJson(dryRunJson(input));
    for (const l of dryRunLines(input)) println(l);
    return;
  }
  const named = new Team(root, file.name);
  if (!args.rename && (await teamExists(named))) {
    const terminal = Boolean(process.stdin.isTTY && process.stdout.isTTY);
    await launchExisting(named, { env, withConsole: args.console, terminal, print: println });
    return;
  }
  // With --json, stdout is the JSON document alone: the progress lines go to stderr.
  const progress = args.json ? (line: string): void => void process.stderr.write(`${line}\n`) : println;
  const started = await startInterruptibly({ root, env, file, requested, withConsole: args.console, cwd, rename: args.rename, print: progress });
  const { team, backend } = started;
  if (!args.console) {
    if (backend.sessions !== undefined) await backend.sessions.dropConsolePane(team.name);
    const now = Date.now();
    const s = await collectStatus(team, { env, now: () => now });
    if (started.failed.length > 0) process.exitCode = 1;
    if (args.json) {
      const { renamedFrom, spawned, failed } = started;
      return printJson({ team: team.name, renamedFrom: renamedFrom ?? null, backend: backend.type, where: backend.describe(), spawned, failed, status: s.report });
    }
    for (const l of renderStatus(s, now)) println(l);
    println(chalk.dim(`open the console with: swarm lead --team ${team.name}`));
    return;
  }
  if (backend.sessions !== undefined) {
    await attachOrSay(await consoleInSession(backend.sessions, team.name, env, cwd), println);
    return;
  }
  await runConsole({ team, env, ...(started.host ? { host: started.host } : {}) });
}
