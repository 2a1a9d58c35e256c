// What each slash command does: the same library calls as the plain commands (send, spawn,
// shutdown, kill, status, tasks, permissions, plan), with the output printed above the console prompt.
import type { Backend } from '../../backends/backend.js';
import type { InProcessHost } from '../../backends/in-process/host.js';
import { BACKEND_CHOICES, paneLabel, selectBackend, type BackendChoice } from '../../backends/registry.js';
import { spawnTeammate } from '../../teammates/spawn.js';
import { killTeammate, shutdownAll, shutdownTeammate, type StopContext, type StopOutcome } from '../../teammates/stop.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { refuseHandWrittenFrame, sendMessage } from '../../mailbox/send.js';
import { listPending } from '../../permissions/pending-list.js';
import { answerPlan } from '../../permissions/plan-answer.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { describeOutcome } from '../output/stop.js';
import { openMailbox } from '../context.js';
import { resumeRecipients } from '../resume-members.js';
import { oneLine } from '../../protocol/text.js';
import { chalk, paint } from '../output/render.js';
import { renderPending } from '../output/permission.js';
import { renderStatus } from '../output/status.js';
import { renderTaskTable } from '../output/tasks.js';
import { TaskList } from '../../tasks/index.js';
import { WaitingLine } from '../output/waiting.js';
import { collectStatus } from '../../teammates/status-report.js';
import { HELP, type SlashCommand } from './slash.js';

export interface ActionContext {
  team: Team;
  env: NodeJS.ProcessEnv;
  host: InProcessHost | undefined;
  /** Names (lower-case) being shut down by a command here: their shutdown_approved is reported by it. */
  stopping: Set<string>;
  print(text: string): void;
}

export function stopContext(c: ActionContext): StopContext {
  return { env: c.env, inProcessHost: c.host };
}

export function helpLines(): string[] {
  const width = Math.max(...HELP.map((h) => h.usage.length));
  return [
    chalk.bold('commands') + chalk.dim('  (Tab completes commands and names; each has a plain equivalent)'),
    ...HELP.map((h) => `  ${h.usage.padEnd(width)}  ${h.does}${h.plain ? chalk.dim(`  = ${h.plain}`) : ''}`),
    chalk.dim('  a permission or plan question is answered with one key: y / a / n (then optional feedback)'),
    chalk.dim('  Ctrl-C: clears a typed line; on an empty line asks whether to shut the team down'),
  ];
}

/** The backend new panes open on: the team's `swarm.backend`, else detection (notes printed). */
async function consoleBackend(c: ActionContext): Promise<Backend> {
  const config = await readTeam(c.team);
  const configured = config.swarm?.backend;
  const requested: BackendChoice = configured !== undefined && (BACKEND_CHOICES as readonly string[]).includes(configured) ? (configured as BackendChoice) : 'auto';
  const { backend, notes } = await selectBackend({ requested, env: c.env, team: c.team, inProcessHost: c.host });
  for (const n of notes) c.print(chalk.yellow(`note: ${n}`));
  return backend;
}

async function spawnOne(c: ActionContext, name: string, prompt: string): Promise<void> {
  const backend = await consoleBackend(c);
  c.print(chalk.dim(`spawning ${name}…`));
  const r = await spawnTeammate({ team: c.team, name, prompt, backend, env: c.env, onNotice: (text) => c.print(chalk.yellow(text)) });
  c.print(`spawned ${paint(r.color, r.name)}${paneLabel(r)}: ready`);
}

/** Run one slash command; resolves 'quit' for /quit. Errors propagate (the caller prints them). */
export async function runCommand(cmd: SlashCommand, c: ActionContext): Promise<'quit' | undefined> {
  switch (cmd.kind) {
    case 'send':
    case 'broadcast': {
      const to = cmd.kind === 'send' ? cmd.to : '*';
      refuseHandWrittenFrame(cmd.text, to);
      const r = await sendMessage(await openMailbox(c.team), { to, text: cmd.text });
      c.print(chalk.dim(`→ ${r.recipients.join(', ')}: ${oneLine(cmd.text, 100)}`));
      // A stopped recipient is brought back, and reads the message then (docs/protocol.md#transcripts-and-resume).
      const resumed = await resumeRecipients(c.team, r.recipients, { backend: () => consoleBackend(c), env: c.env, onNotice: (text) => c.print(chalk.yellow(text)) });
      for (const line of resumed) c.print(line);
      return undefined;
    }
    case 'spawn':
      await spawnOne(c, cmd.name, cmd.prompt);
      return undefined;
    case 'shutdown': {
      const opts = { ...stopContext(c), force: false };
      if (cmd.target.all) c.print(chalk.dim('asking every teammate to shut down…'));
      else c.print(chalk.dim(`asking ${cmd.target.name} to shut down…`));
      const names = cmd.target.all ? (await readTeam(c.team)).members.map((m) => m.name) : [cmd.target.name];
      for (const n of names) c.stopping.add(n.toLowerCase());
      // Above the prompt, a line every 10 s once a wait lasts 5 s: "waiting for alice, bob (15 s)…".
      const waiting = new WaitingLine(cmd.target.all ? names.filter((n) => n !== LEAD_NAME) : names, {
        stream: { write: (text: string) => c.print(chalk.dim(text.trimEnd())) },
        firstAfterMs: 5000,
      });
      const waitOpts = { ...opts, onRequested: (n: string) => waiting.asked(n), onOutcome: (o: StopOutcome) => waiting.done(o.name) };
      const outcomes = await (cmd.target.all ? shutdownAll(c.team, waitOpts) : shutdownTeammate(c.team, names[0]!, waitOpts).then((o) => [o])).finally(() => {
        waiting.stop();
        for (const n of names) c.stopping.delete(n.toLowerCase());
      });
      if (outcomes.length === 0) c.print(chalk.dim('no teammates to shut down'));
      for (const o of outcomes) c.print(describeOutcome(o));
      return undefined;
    }
    case 'kill':
      c.print(describeOutcome(await killTeammate(c.team, cmd.name, stopContext(c))));
      return undefined;
    case 'status': {
      const now = Date.now();
      const s = await collectStatus(c.team, { env: c.env, now: () => now });
      c.print(renderStatus(s, now).join('\n'));
      return undefined;
    }
    case 'tasks': {
      const { tasks, corrupt } = await new TaskList(c.team).list();
      for (const x of corrupt) c.print(chalk.yellow(`warning: ${x.file} was corrupt (${x.error}); kept as ${x.keptAt}`));
      c.print(renderTaskTable(tasks).join('\n'));
      return undefined;
    }
    case 'permissions': {
      const pending = await listPending(c.team, { onProblem: (m) => c.print(chalk.yellow(m)) });
      c.print(pending.length === 0 ? chalk.dim('no pending permission requests') : pending.map(renderPending).join('\n'));
      return undefined;
    }
    case 'plan': {
      const r = await answerPlan(c.team, cmd.name, { approve: cmd.approve, ...(cmd.feedback ? { feedback: cmd.feedback } : {}) });
      c.print(`${r.approved ? chalk.green('approved') : chalk.red('rejected')} ${r.to}'s plan ${chalk.dim(`[${r.requestId}]`)}`);
      return undefined;
    }
    case 'help':
      c.print(helpLines().join('\n'));
      return undefined;
    case 'quit':
      return 'quit';
  }
}
