// What `swarm kill <name>` (hard stop now, verified) and `swarm shutdown <name|--all>` (cooperative
// shutdown_request, verified exit, optional --force escalation) do; the command lines are
// commands/stop.ts. Each prints exactly what happened per teammate; `shutdown` exits 1 when any
// teammate is still running afterwards.
//
// While `shutdown` waits, stderr says for whom (output/waiting.ts). By default it waits the
// teammates' grace period plus a margin (protocol/shutdown-timing.ts). Ctrl-C stops the waiting,
// not the shutdown: the requests stay in the inboxes, so it says who will still stop on their own,
// and within how long, and exits 130.
import { killTeammate, shutdownAll, shutdownTeammate, type StopOutcome } from '../../teammates/stop.js';
import { SwarmError } from '../../protocol/errors.js';
import { LEAD_NAME, sameName } from '../../protocol/names.js';
import { shutdownGraceMs } from '../../protocol/shutdown-timing.js';
import { readTeam, requireMember } from '../../team/team-store.js';
import { printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { describeOutcome } from '../output/stop.js';
import { nameList, WaitingLine } from '../output/waiting.js';
import { INTERRUPT_SIGNALS, interruptStatus, onSignals, type InterruptSignal } from '../interrupts.js';
import { cliIo, setExitCode } from '../io.js';

/** What Ctrl-C during a shutdown leaves: the requests stand; swarm teammates still stop when their grace ends. */
export function interruptedLine(
  team: string,
  left: readonly { name: string; runtime?: string | undefined }[],
  notAsked: readonly string[],
  graceLeftMs: number,
): string {
  const unsent = notAsked.length > 0 ? `; no request was sent to ${nameList(notAsked)}` : '';
  if (left.length === 0) return `interrupted: no shutdown request is waiting for an answer${unsent}`;
  const swarmOnes = left.filter((m) => m.runtime !== 'claude').map((m) => m.name);
  const claudeOnes = left.filter((m) => m.runtime === 'claude').map((m) => m.name);
  const parts: string[] = [];
  if (swarmOnes.length > 0) {
    const their = swarmOnes.length === 1 ? 'its' : 'their';
    const within = graceLeftMs > 0 ? `within ${Math.ceil(graceLeftMs / 1000)} s` : 'any moment now';
    parts.push(`${nameList(swarmOnes)} will stop on ${their} own ${within}, when ${their} grace period ends`);
  }
  if (claudeOnes.length > 0) parts.push(`${nameList(claudeOnes)} (Claude Code) will stop only if ${claudeOnes.length === 1 ? 'it approves' : 'they approve'}`);
  const s = left.length === 1 ? '' : 's';
  const kill = left.length === 1 ? `swarm kill ${left[0]!.name} --team ${team}` : `swarm kill <name> --team ${team}`;
  return `interrupted: the shutdown request${s} stay${left.length === 1 ? 's' : ''}; ${parts.join('; ')}${unsent}. To stop now: ${kill}`;
}

export interface KillArgs extends GlobalArgs {
  name: string;
}

export interface ShutdownArgs extends GlobalArgs {
  name?: string;
  all: boolean;
  reason?: string;
  timeout: number;
  force: boolean;
}

export async function kill(args: KillArgs): Promise<void> {
  const out = await killTeammate(await requireTeam(args), args.name, { env: cliIo().env });
  if (args.json) return printJson(out);
  println(describeOutcome(out));
}

export async function shutdown(args: ShutdownArgs): Promise<void> {
  if (args.all === (args.name !== undefined)) {
    throw new SwarmError('invalid_input', 'name one teammate or pass --all (not both)');
  }
  if (!(args.timeout > 0)) throw new SwarmError('invalid_input', `expected --timeout > 0 seconds, got ${args.timeout}`);
  const team = await requireTeam(args);
  const config = await readTeam(team);
  const members = args.all ? config.members.filter((m) => !sameName(m.name, LEAD_NAME)) : [requireMember(config, args.name!)];
  const waiting = new WaitingLine(members.map((m) => m.name));
  const onInterrupt = (sig: InterruptSignal): void => {
    waiting.stop();
    const left = members.filter((m) => waiting.waitingFor.includes(m.name));
    cliIo().stderr.write(`${interruptedLine(team.name, left, waiting.notAsked, shutdownGraceMs(cliIo().env) - waiting.elapsedMs)}\n`);
    process.exit(interruptStatus(sig));
  };
  const offInterrupts = onSignals(INTERRUPT_SIGNALS, onInterrupt);
  const opts = {
    env: cliIo().env,
    timeoutMs: args.timeout * 1000,
    force: args.force,
    reason: args.reason,
    onRequested: (name: string) => waiting.asked(name),
    onOutcome: (o: StopOutcome) => waiting.done(o.name),
  };
  const outcomes = await (args.all ? shutdownAll(team, opts) : shutdownTeammate(team, args.name!, opts).then((o) => [o])).finally(() => {
    offInterrupts();
    waiting.stop();
  });
  if (args.json) printJson(outcomes);
  else if (outcomes.length === 0) println(chalk.dim('no teammates to shut down'));
  else for (const o of outcomes) println(describeOutcome(o));
  if (outcomes.some((o) => !o.verified)) setExitCode(1);
}
