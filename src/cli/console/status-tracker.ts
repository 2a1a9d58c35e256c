// The console's status line: collects `swarm status` data, prints the compact line only when a
// member's state or the pending count changed, and one event when every teammate has gone idle.
import { LEAD_NAME } from '../../protocol/names.js';
import { chalk } from '../output/render.js';
import { collectStatus } from '../../teammates/status-report.js';
import { statusKey, statusLine } from './view.js';
import type { Team } from '../../team/team.js';

export interface StatusTrackerOptions {
  team: Team;
  env: NodeJS.ProcessEnv;
  print(text: string): void;
  /** Added to the all-idle event. */
  allIdleHint?: string | undefined;
  /** Teammates being shut down (lower-case): a dead pane there is `exiting`, not news. */
  stopping?: ReadonlySet<string>;
}

export class StatusTracker {
  private last = '';
  private allIdle = false;

  constructor(private readonly o: StatusTrackerOptions) {}

  /** Print what changed; resolves with the teammates' names. */
  async update(pending: number): Promise<string[]> {
    const now = Date.now();
    const stopping = this.o.stopping ?? new Set<string>();
    // A teammate found dead (pane lost, process alive) gives its tasks back (one notice to
    // team-lead); a stopped one keeps them for `swarm resume`; one being stopped here is released
    // by that stop, with the right words.
    const collected = await collectStatus(this.o.team, { env: this.o.env, now: () => now, releaseDead: (name) => !stopping.has(name.toLowerCase()) });
    const members = collected.report.members.map((m) => ((m.state === 'dead' || m.state === 'stopped') && stopping.has(m.name.toLowerCase()) ? { ...m, state: 'exiting' as const } : m));
    const s = { ...collected, report: { ...collected.report, members } };
    const teammates = s.report.members.filter((m) => m.name !== LEAD_NAME);
    const key = statusKey(s, pending);
    if (key !== this.last) {
      this.last = key;
      this.o.print(statusLine(s, pending));
    }
    const allIdle = teammates.length > 0 && pending === 0 && teammates.every((m) => m.state === 'idle');
    if (allIdle && !this.allIdle) {
      const who = teammates.length === 1 ? `${teammates[0]!.name} is idle` : teammates.length === 2 ? 'both teammates are idle' : `all ${teammates.length} teammates are idle`;
      this.o.print(chalk.green(who) + (this.o.allIdleHint ? ` — ${this.o.allIdleHint}` : ''));
    }
    this.allIdle = allIdle;
    return teammates.map((m) => m.name);
  }
}
