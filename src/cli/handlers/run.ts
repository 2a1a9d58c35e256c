// What `swarm run "<goal>"` does (docs/protocol.md#agent-lead; the command line is
// commands/run.ts): give the team a goal and an agent lead that turns it into tasks and teammates
// and has the result verified. The team is created (a free name unless --team; an existing --team
// is used as it is). With -p/--print the run is headless (cli/run/headless.ts): progress on stderr,
// the answer on stdout, exit 0 done / 1 failed or over a limit. Without it the leader console opens
// in this terminal with the lead in it.
// Signals (cli/interrupts.ts): a headless run interrupted by Ctrl-C, SIGTERM, SIGHUP or a closed
// output stops its lead and every teammate (verified), then dies of that signal. The console leaves
// on SIGTERM/SIGHUP as on /quit: the lead (in this process) stops, teammates in panes run on, said.
import { readdir } from 'node:fs/promises';
import { ensureLeadKey, removeTeam } from '../../permissions/keys.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { TaskList } from '../../tasks/index.js';
import { SwarmError } from '../../protocol/errors.js';
import { oneLine } from '../../protocol/text.js';
import { wordSlug } from '../../team/slug.js';
import { createTeam, setHibernateAfter, teamExists } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { runConsole } from '../console/run.js';
import { rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { catchInterrupts } from '../interrupts.js';
import { chalk } from '../output/render.js';
import { refuseOtherLeader } from '../run/lead-process.js';
import { leadSettings, requireModelCredentials, teamSettings, type LeadArgs, type LeadSettings, type TeamSettings } from '../run/options.js';
import { resolveClaude } from '../../teammates/command-line.js';
import { cliIo, setExitCode, stdinIsDeadDevice } from '../io.js';

export interface RunArgs extends GlobalArgs, LeadArgs {
  goal: string;
  print: boolean;
  lead: string;
}

/** The flags only swarm's own lead has, refused with Claude Code leading (it counts and reads by itself). */
const SWARM_LEAD_ONLY = { 'max-turns': 'Claude Code counts its own turns', 'lead-tools': 'Claude Code has its own Read, Glob and Grep (allowed without asking)' } as const;

/** --lead claude before anything is created: its flags, the credentials swarm teammates need, and `claude` itself. */
function checkClaudeLead(args: RunArgs, settings: TeamSettings): void {
  for (const [flag, why] of Object.entries(SWARM_LEAD_ONLY)) {
    if (args[flag as keyof typeof SWARM_LEAD_ONLY] !== undefined) throw new SwarmError('invalid_input', `--${flag} is swarm's lead's, not Claude Code's (${why}): leave it out with --lead claude`);
  }
  if (settings.runtime === 'swarm') requireModelCredentials(cliIo().env, 'swarm run --lead claude --runtime swarm', undefined, 'for its teammates (or leave --runtime out: Claude Code teammates)');
  try {
    resolveClaude(cliIo().env);
  } catch {
    throw new SwarmError('not_found', 'swarm run --lead claude needs Claude Code: the `claude` CLI on PATH (npm install -g @anthropic-ai/claude-code, then log in once); or let swarm lead with --lead swarm and an API key');
  }
}

/** The team to run in: --team (created if missing), else a new team with a free name; `created` when this run made it. */
async function teamFor(args: RunArgs): Promise<{ team: Team; created: boolean }> {
  const description = oneLine(args.goal, 120);
  const name = args.team ?? cliIo().env.SWARM_TEAM;
  if (name !== undefined && name !== '') {
    const team = new Team(rootDir(), name);
    if (await teamExists(team)) {
      await refuseOtherLeader(team);
      return { team, created: false };
    }
    return { team: (await createTeam(rootDir(), { name, description, cwd: cliIo().cwd })).team, created: true };
  }
  return { team: (await createTeam(rootDir(), { name: wordSlug(), description, cwd: cliIo().cwd, rename: true })).team, created: true };
}

/**
 * After a run that did not succeed (or a console left): a team this run created into which nobody
 * was ever spawned (no inbox but the leader's) holds nothing and is removed, with its key; one that
 * had teammates stays, and one line says what it holds and how to remove it.
 */
async function settleRunTeam(team: Team, created: boolean, say: (line: string) => void): Promise<void> {
  if (!created) return;
  const inboxes = await readdir(team.paths.inboxes).catch((): string[] => []);
  const members = inboxes.filter((f) => f.endsWith('.json') && f !== `${LEAD_NAME}.json`).map((f) => f.slice(0, -'.json'.length));
  if (members.length === 0) {
    await removeTeam(team);
    say(chalk.dim(`removed team ${team.name}: nobody was spawned into it`));
    return;
  }
  const tasks = (await new TaskList(team).list().then((l) => l.tasks, () => [])).length;
  say(chalk.dim(`team ${team.name} keeps ${tasks} task${tasks === 1 ? '' : 's'} and the inboxes of ${members.join(', ')}: swarm team delete ${team.name} removes it`));
}

export async function run(args: RunArgs): Promise<void> {
  const byClaude = args.lead === 'claude';
  const claudeSettings = byClaude ? teamSettings(args, 'claude', cliIo().cwd) : undefined;
  if (claudeSettings !== undefined) checkClaudeLead(args, claudeSettings);
  else requireModelCredentials(cliIo().env, 'swarm run', 'swarm run --lead claude "<goal>"');
  const settings = claudeSettings ?? leadSettings(args, cliIo().env, cliIo().cwd);
  const goal = String(args.goal);
  if (goal.trim() === '') throw new SwarmError('invalid_input', 'the goal is empty: say what the team should achieve, e.g. swarm run "add a --verbose flag"');
  // The console reads keys: without a terminal, the headless form is the one that works.
  if (!args.print && stdinIsDeadDevice(cliIo().stdin)) {
    throw new SwarmError('invalid_input', 'swarm run opens a console and needs a terminal: run it in a terminal, or use swarm run -p "<goal>" for scripts');
  }
  const { team, created } = await teamFor(args);
  await ensureLeadKey(team);
  await setHibernateAfter(team, settings.hibernateAfterMs);
  const say = (line: string): void => void cliIo().stderr.write(`${line}\n`);
  const exportLine = cliIo().env.SWARM_TEAM === team.name ? [] : [chalk.dim(`  export SWARM_TEAM=${team.name}   (then no command needs --team)`)];
  if (claudeSettings !== undefined) return runByClaude({ args, team, created, goal, settings: claudeSettings, say, exportLine });
  const lead = settings as LeadSettings;
  if (!args.print) {
    for (const l of exportLine) cliIo().stderr.write(`${l}\n`);
    await runConsole({ team, env: cliIo().env, lead: { ...lead, goal }, dieOfInterrupt: true });
    return settleRunTeam(team, created, say);
  }
  cliIo().stderr.write(`${chalk.bold(`team ${team.name}`)} ${chalk.dim(`· lead ${lead.leadModel} · swarm status --team ${team.name}`)}\n`);
  for (const l of exportLine) cliIo().stderr.write(`${l}\n`);
  // Loaded here: only a headless run needs it.
  const { runHeadless } = await import('../run/headless.js');
  const interrupts = catchInterrupts();
  const code = await runHeadless({
    ...lead,
    team,
    goal,
    env: cliIo().env,
    progress: say,
    answer: (text) => cliIo().stdout.write(`${text}\n`),
    signal: interrupts.signal,
  })
    .catch(async (e: unknown) => {
      await settleRunTeam(team, created, say);
      throw e;
    })
    .finally(() => {
      if (interrupts.cause === undefined) interrupts.off();
    });
  if (code !== 0 || interrupts.cause !== undefined) await settleRunTeam(team, created, say);
  if (interrupts.cause !== undefined) await interrupts.exit(interrupts.cause); // the team is stopped: now die of it
  setExitCode(code);
}

/** Claude Code leads (docs/claude-code-lead.md): headless with -p, else in this terminal beside the person's console. */
async function runByClaude(o: { args: RunArgs; team: Team; created: boolean; goal: string; settings: TeamSettings; say: (line: string) => void; exportLine: string[] }): Promise<void> {
  const { args, team, say } = o;
  cliIo().stderr.write(`${chalk.bold(`team ${team.name}`)} ${chalk.dim(`· lead Claude Code${args['lead-model'] ? ` (${args['lead-model']})` : ''} · teammates --runtime ${o.settings.runtime} · swarm status --team ${team.name}`)}\n`);
  for (const l of o.exportLine) cliIo().stderr.write(`${l}\n`);
  // An interrupt stops Claude Code, then the team; Ctrl-C in a terminal is Claude Code's own key.
  const interrupts = catchInterrupts(args.print ? undefined : ['SIGTERM', 'SIGHUP']);
  const common = { team, goal: o.goal, settings: o.settings, leadModel: args['lead-model'], env: cliIo().env, signal: interrupts.signal };
  const run = args.print
    ? import('../run/claude-headless.js').then(({ runClaudeHeadless }) => runClaudeHeadless({ ...common, progress: say, answer: (text) => cliIo().stdout.write(`${text}\n`) }))
    : import('../run/claude-terminal.js').then(({ runClaudeInTerminal }) => runClaudeInTerminal({ ...common, print: say }));
  const code = await run
    .catch(async (e: unknown) => {
      await settleRunTeam(team, o.created, say);
      throw e;
    })
    .finally(() => {
      if (interrupts.cause === undefined) interrupts.off();
    });
  if (code !== 0 || interrupts.cause !== undefined) await settleRunTeam(team, o.created, say);
  if (interrupts.cause !== undefined) await interrupts.exit(interrupts.cause);
  setExitCode(code);
}
