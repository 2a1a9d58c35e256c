// The team's budget binding a teammate (docs/protocol.md#spend-and-budget). Before each model step the teammate reads the
// budget state as it is now (team/spend.ts: config.json's `swarm.budget` and every member's spend,
// the same sum and rule the agent lead uses). Under the budget the step goes ahead. At it, no
// model call: the state becomes `waiting_budget`, team-lead is told once (a message, which also
// wakes an idle agent lead: it asks the person, or a headless run ends), and the teammate waits,
// watching config.json, until
//   the budget is raised (the person went on)  → the step goes ahead;
//   a signed shutdown_request is here          → the teammate exits at once with shutdown_approved
//                                                (its model cannot be asked to answer: exit.ts `budget`);
//   the teammate is stopped (a signal)         → the wait ends with the stop.
// One step already under way is never cut short: the budget can be passed by the steps in flight.
import type { Mailbox } from '../mailbox/mailbox.js';
import type { ShutdownRequest } from '../protocol/control.js';
import { LEAD_NAME } from '../protocol/names.js';
import { DirWatcher } from '../storage/watch.js';
import { readBudgetState } from '../team/spend.js';
import { readTeam } from '../team/team-store.js';
import type { Team } from '../team/team.js';
import type { ShutdownCoordinator } from './shutdown.js';
import type { StatusReporter } from './status.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';
import { firstChange } from './wake.js';

export interface BudgetGateDeps {
  team: Team;
  name: string;
  color?: string;
  mailbox: Mailbox;
  status: StatusReporter;
  view: PaneView;
  transcript: Transcript;
  shutdown: Pick<ShutdownCoordinator, 'unanswered' | 'interruptSignal'>;
  /** A signed shutdown request while waiting: stop the teammate (its `stop` signal aborts). */
  onShutdown(request: ShutdownRequest): void;
  stop: AbortSignal;
  /** Poll interval of the config.json watcher (ms). */
  pollMs: number;
}

/** Resolves when `signal` aborts (already aborted: at once); rejects when `stop` does. */
function aborted(signal: AbortSignal, stop: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (stop.aborted) return reject(stop.reason as Error);
    if (signal.aborted) return resolve();
    const done = (): void => {
      stop.removeEventListener('abort', fail);
      resolve();
    };
    const fail = (): void => {
      signal.removeEventListener('abort', done);
      reject(stop.reason as Error);
    };
    signal.addEventListener('abort', done, { once: true });
    stop.addEventListener('abort', fail, { once: true });
  });
}

export class BudgetGate {
  constructor(private readonly d: BudgetGateDeps) {}

  /** The agent loop's `beforeStep`: resolves when a model step may be taken; throws when the teammate stops instead. */
  async beforeStep(): Promise<void> {
    const d = this.d;
    const config = await readTeam(d.team);
    if (config.swarm?.budget === undefined) return; // no budget: no flush, no sum
    await d.status.flush(); // its own last step is in the sum read below (usage() writes in the background)
    let state = await readBudgetState(d.team, config); // the budget as just read; the spend after the flush
    if (state.hit === undefined) return;
    const why = state.hit.why;
    const before = d.status.state;
    d.status.setState('waiting_budget');
    d.view.waiting(`the team's budget is reached (${why}); no model step until it is raised`);
    d.transcript.append({ kind: 'budget', what: 'waiting', why });
    await this.tellLead(why);
    const watcher = await DirWatcher.open(d.team.paths.dir, { file: 'config.json', pollMs: d.pollMs });
    try {
      for (;;) {
        const request = d.shutdown.unanswered();
        if (request !== undefined) {
          d.onShutdown(request);
          d.stop.throwIfAborted();
        }
        await firstChange(d.stop, [(s) => watcher.changed(s), (s) => aborted(d.shutdown.interruptSignal(), s)]);
        state = await readBudgetState(d.team);
        if (state.hit === undefined) break;
      }
    } finally {
      await watcher.close();
    }
    d.status.setState(before);
    d.view.notice(`the team's budget was raised${state.budget?.usd !== undefined ? ` (--budget-usd ${state.budget.usd})` : ''}${state.budget?.tokens !== undefined ? ` (--budget-tokens ${state.budget.tokens})` : ''}; going on`);
    d.transcript.append({ kind: 'budget', what: 'raised', budget: state.budget });
  }

  /** One message to team-lead: it shows the person why, and wakes an idle agent lead to check its limits. */
  private async tellLead(why: string): Promise<void> {
    const text = `[swarm] ${this.d.name} is waiting: the team's budget is reached (${why}). It takes no model step until the budget is raised, or it is shut down.`;
    try {
      await this.d.mailbox.append(LEAD_NAME, { from: this.d.name, text, summary: 'waiting at the budget', ...(this.d.color ? { color: this.d.color } : {}) });
      this.d.transcript.append({ kind: 'message_out', to: LEAD_NAME, text });
    } catch (e) {
      this.d.view.warn(`telling team-lead: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}
