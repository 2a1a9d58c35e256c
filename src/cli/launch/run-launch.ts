// `swarm launch <team.yaml> [--no-console] [--dry-run] [--backend] [--rename|--fresh]` (docs/protocol.md#cli; runLaunch): create the team
// from a team file, spawn every member, then run the leader console — in this pane inside tmux (or
// iTerm2, or in-process), else in the first pane of the `swarm-<team>` session, attached when this
// is a terminal. `--dry-run` prints the commands and writes nothing; `--no-console` spawns, prints
// the status table and exits (1 if any member failed to start). A team that already exists is not
// launched twice (launch/existing-team.ts): while a teammate runs, launch attaches (or says how);
// with none running it starts the team again, keeping its tasks and inboxes (`--fresh`: deleted
// first, as `swarm team delete`); `--rename` launches a second team under a free name. `--json` (with --no-console or --dry-run) prints one JSON document instead: the
// launch result with the status report, or the dry run's steps.
// Ctrl-C (or SIGTERM, SIGHUP, a closed output: cli/interrupts.ts) while the members start stops what
// launch started, removes the team, says so, and dies of that signal (a shell shows 130; 143 for
// SIGTERM, 129 for SIGHUP). Once started, the team is meant to outlive launch: its console (in this
// terminal) leaves on SIGTERM/SIGHUP as on /quit — in-process teammates stopped, the others left
// running and said so —, and an attached terminal that goes away leaves the session running, said
// on stderr.
import { setTimeout as delay } from 'node:timers/promises';
import type { Backend, SessionConsole } from '../../backends/backend.js';
import { backendForType, selectBackend, type BackendChoice } from '../../backends/registry.js';
import { SwarmError, isSwarmError } from '../../protocol/errors.js';
import { removeTeam } from '../../permissions/keys.js';
import { teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { runConsole } from '../console/run.js';
import { printJson, println, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { catchInterrupts, describeInterrupt } from '../interrupts.js';
import { dryRunJson, dryRunLines } from './dry-run.js';
import { existingTeam, launchExisting } from './existing-team.js';
import { attachOrSay, consoleInSession, startTeam, undoStart, type StartTeamOptions, type StartedTeam } from './start-team.js';
import { chalk } from '../output/render.js';
import { renderStatus } from '../output/status.js';
import { collectStatus } from '../../teammates/status-report.js';
import { planWorktree, type WorktreePlan } from '../../teammates/worktree.js';
import { memberHosts, parseTeamFile } from './team-file.js';
import { parseDuration } from '../../protocol/duration.js';
import { cliIo, setExitCode } from '../io.js';

export interface LaunchArgs extends GlobalArgs {
  file: string;
  console: boolean;
  'dry-run': boolean;
  rename: boolean;
  fresh: boolean;
  backend?: string;
  'hibernate-after'?: string;
}

/** startTeam, with an interrupt undoing everything it started; then ends the process by that signal, after saying so. */
async function startInterruptibly(o: Omit<StartTeamOptions, 'signal'>): Promise<StartedTeam> {
  const interrupts = catchInterrupts();
  let started: StartedTeam;
  try {
    started = await startTeam({ ...o, signal: interrupts.signal });
  } catch (e) {
    interrupts.off();
    throw e;
  }
  const caught = interrupts.cause;
  if (caught === undefined) {
    interrupts.off();
    return started;
  }
  o.print(chalk.yellow(`${describeInterrupt(caught)}: stopping what launch started…`));
  o.print(await undoStart(started, o.env));
  return interrupts.exit(caught);
}

/**
 * How long an ended attach waits for the hang-up that may have ended it. A closed window hangs up
 * the tmux client and launch together; the client can exit, and launch see it, before launch's own
 * SIGHUP is handled, and an attach taken for a plain detach then left launch to die of that SIGHUP
 * with nothing said (seen once in CI).
 */
export const HANGUP_GRACE_MS = 300;

/**
 * Attach this terminal to the team's session. An interrupt meanwhile (the terminal gone, a kill)
 * ends launch at once and leaves the session running (a tmux client still attached stays the
 * person's), said on stderr: the team was meant to outlive launch.
 */
export async function attachToSession(inSession: SessionConsole, team: string): Promise<void> {
  const interrupts = catchInterrupts();
  const interrupted = new Promise<void>((resolve) => interrupts.signal.addEventListener('abort', () => resolve(), { once: true }));
  const attached = await Promise.race([attachOrSay(inSession, println), interrupted.then(() => false)]);
  if (attached && interrupts.cause === undefined) await Promise.race([interrupted, delay(HANGUP_GRACE_MS)]);
  const cause = interrupts.cause;
  if (cause === undefined) return interrupts.off();
  try {
    cliIo().stderr.write(`swarm launch: ${describeInterrupt(cause)}: team ${team} runs on in its tmux session (its console in pane ${inSession.paneId}); back to it: ${inSession.attach.join(' ')}\n`);
  } catch {
    // stderr is gone too
  }
  await interrupts.exit(cause);
}

/** The backend launch would choose; only its plan() is used. */
async function dryRunBackend(requested: BackendChoice, team: Team, withConsole: boolean, sshHost: string | undefined): Promise<Backend> {
  try {
    return (await selectBackend({ requested, env: cliIo().env, team, host: requested === 'ssh' ? sshHost : undefined })).backend;
  } catch (e) {
    // No in-process host yet: launch's console would become it (without a console, launch fails the same way).
    if (isSwarmError(e, 'not_found') && withConsole) return backendForType('in-process', team, { env: cliIo().env });
    throw e;
  }
}

/** Run `swarm launch` with its parsed flags. */
export async function runLaunch(args: LaunchArgs): Promise<void> {
  if (args.json && args.console && !args['dry-run']) {
    throw new SwarmError('invalid_input', '--json needs --no-console or --dry-run (the console is interactive)');
  }
  if (args.fresh && args.rename) throw new SwarmError('invalid_input', '--fresh and --rename do not go together: --fresh starts the team from nothing, --rename launches a second team under a free name');
  const root = rootDir();
  const env = cliIo().env;
  // The machine checks (each cwd, claude on PATH, worktrees) run before anything is created, dry run too.
  const cwd = cliIo().cwd;
  const parsed = await parseTeamFile(args.file, { env, cwd });
  // --hibernate-after over the file's hibernateAfter (checked here, before anything is created).
  const file = args['hibernate-after'] === undefined ? parsed : { ...parsed, hibernateAfter: (parseDuration(args['hibernate-after'], '--hibernate-after'), args['hibernate-after']) };
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
    const taken = await teamExists(named);
    const existing = taken && !args.rename ? await existingTeam(named, env).catch((e: unknown) => (isSwarmError(e, 'exists') ? { refused: e.message } : Promise.reject(e))) : undefined;
    const input = { file, team: file.name, taken, existing, fresh: args.fresh, rename: args.rename, root, env, cwd, backend, backendOf, console: args.console, worktrees };
    if (args.json) return printJson(dryRunJson(input));
    for (const l of dryRunLines(input)) println(l);
    return;
  }
  const named = new Team(root, file.name);
  let again: StartTeamOptions['again'];
  if (!args.rename && (await teamExists(named))) {
    const existing = await existingTeam(named, env);
    if (existing.running && args.fresh) {
      throw new SwarmError('exists', `team "${named.name}" is running (${existing.alive.map((m) => m.name).join(', ')} alive); --fresh deletes a team only when none of it runs: stop it first (swarm shutdown --all --team ${named.name})`);
    }
    if (existing.running) {
      const terminal = Boolean(cliIo().stdin.isTTY && cliIo().stdout.isTTY);
      await launchExisting(named, existing, { env, withConsole: args.console, terminal, print: println });
      return;
    }
    if (args.fresh) {
      await removeTeam(named);
      println(chalk.yellow(`deleted team "${named.name}" and its files (--fresh): starting from nothing`));
    } else again = { stopped: existing.stopped, roster: existing.roster };
  }
  // With --json, stdout is the JSON document alone: the progress lines go to stderr.
  const progress = args.json ? (line: string): void => void cliIo().stderr.write(`${line}\n`) : println;
  const started = await startInterruptibly({ root, env, file, requested, withConsole: args.console, cwd, rename: args.rename, again, print: progress });
  const { team, backend } = started;
  if (env.SWARM_TEAM !== team.name) progress(chalk.dim(`  export SWARM_TEAM=${team.name}`)); // then no command needs --team
  if (!args.console) {
    if (backend.sessions !== undefined) await backend.sessions.dropConsolePane(team.name);
    const now = Date.now();
    const s = await collectStatus(team, { env, now: () => now });
    if (started.failed.length > 0) setExitCode(1);
    if (args.json) {
      const { renamedFrom, spawned, failed } = started;
      return printJson({ team: team.name, renamedFrom: renamedFrom ?? null, backend: backend.type, where: backend.describe(), spawned, failed, status: s.report });
    }
    for (const l of renderStatus(s, now)) println(l);
    println(chalk.dim(`open the console with: swarm lead --team ${team.name}`));
    return;
  }
  if (backend.sessions !== undefined) return attachToSession(await consoleInSession(backend.sessions, team.name, env, cwd), team.name);
  await runConsole({ team, env, ...(started.host ? { host: started.host } : {}), dieOfInterrupt: true });
}
