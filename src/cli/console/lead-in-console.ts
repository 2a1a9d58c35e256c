// The agent lead inside the leader console (docs/protocol.md#agent-lead): runLead in this process, fed by the console
// (every inbox entry but the person's questions, and each plain line typed), its lines printed as
// `lead › …`, its spawns and stops through the console's in-process host and stop context (the
// console reports a stop's outcome once), its limits asked as console questions. When the lead
// finishes, its answer is on screen and it waits for the person's next line; when it stops (a
// limit, a failure) the console says why and stays open.
import type { InProcessHost } from '../../backends/in-process/host.js';
import { runLead, type LeadOutcome } from '../../runtime/lead/lead.js';
import type { LimitHit } from '../../runtime/lead/limits.js';
import { LeadQueue } from '../../runtime/lead/queue.js';
import type { Team } from '../../team/team.js';
import { describeOutcome } from '../output/stop.js';
import { chalk } from '../output/render.js';
import type { LeadSettings } from '../run/options.js';
import { prefixedLines } from '../run/lead-lines.js';
import { RepeatFilter } from './repeats.js';
import { leadPowers } from '../run/lead-powers.js';

/** What `swarm run` / `swarm lead --agent` pass to the console; no goal: the lead waits for the first line. */
export type ConsoleLeadOptions = LeadSettings & { goal?: string | undefined };

/** The console as the lead needs it. */
export interface LeadHostConsole {
  readonly team: Team;
  readonly env: NodeJS.ProcessEnv;
  readonly host: InProcessHost | undefined;
  readonly stopping: Set<string>;
  print(text: string): void;
  askLimit(hit: LimitHit): Promise<'continue' | 'stop'>;
  /** The lead ended a turn with its team at rest; its answer is on screen. */
  leadFinished?(): void;
}

export class LeadInConsole {
  readonly queue: LeadQueue;
  private running = false;

  constructor(
    private readonly o: ConsoleLeadOptions,
    private readonly c: LeadHostConsole,
  ) {
    this.queue = new LeadQueue(c.team);
  }

  /** A line the person typed. */
  say(text: string): void {
    this.queue.say(text);
    if (!this.running) this.c.print(chalk.dim('the lead has stopped; its queue keeps your line, but nothing reads it (/quit, then swarm lead --agent)'));
  }

  async run(signal: AbortSignal): Promise<void> {
    const c = this.c;
    const repeats = new RepeatFilter(); // "Waiting for coder and tester." after each idle notification: once
    const lines = prefixedLines(chalk.cyan('lead › '), (l) => void (repeats.fresh('lead', l) && c.print(l)));
    const powers = leadPowers({
      team: c.team,
      env: c.env,
      backend: this.o.backend,
      host: c.host,
      model: this.o.model,
      permissionMode: this.o.permissionMode,
      runtime: this.o.runtime,
      cwd: this.o.cwd,
      print: (line) => c.print(chalk.yellow(line)),
      onStopping: (name) => c.stopping.add(name.toLowerCase()),
      signal,
    });
    this.running = true;
    let outcome: LeadOutcome;
    try {
      outcome = await runLead({
        team: c.team,
        ...(this.o.goal !== undefined ? { goal: this.o.goal } : {}),
        queue: this.queue,
        model: this.o.leadModel,
        cwd: this.o.cwd,
        readTools: this.o.readTools,
        limits: this.o.limits,
        spawn: (req) => powers.spawn(req),
        resumeStopped: (recipients) => powers.resumeStopped(recipients),
        stop: async (name, reason) => {
          try {
            const r = await powers.stop(name, reason);
            c.print(describeOutcome(r));
            return r;
          } finally {
            c.stopping.delete(name.toLowerCase());
          }
        },
        kill: async (name) => {
          try {
            const r = await powers.kill(name);
            c.print(describeOutcome(r));
            return r;
          } finally {
            c.stopping.delete(name.toLowerCase());
          }
        },
        stopAll: async (reason) => {
          const all = await powers.stopAll(reason);
          for (const r of all) {
            c.print(describeOutcome(r));
            c.stopping.delete(r.name.toLowerCase());
          }
          return all;
        },
        onLimit: (hit) => c.askLimit(hit),
        onFinished: () => {
          lines.flush();
          c.print(chalk.green('the lead is done: its last reply above is the answer; type to give it more, or /quit'));
          c.leadFinished?.();
          return false;
        },
        env: c.env,
        write: lines.write,
        colorLevel: chalk.level,
        signal,
      });
    } finally {
      lines.flush();
      this.running = false;
    }
    if (outcome.kind === 'limit') c.print(chalk.red(`the lead stopped: over a limit: ${outcome.hit.why}`));
    if (outcome.kind === 'failed') c.print(chalk.red(`the lead stopped: ${outcome.why}`));
  }
}
