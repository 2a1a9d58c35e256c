// The console's status line: collects `swarm status` data, prints the compact line only when a
// member's state or the pending count changed (a teammate still starting is no change yet),
// and one event when every teammate has gone idle.
import { LEAD_NAME } from '../../protocol/names.js';
import { chalk } from '../output/render.js';
import { collectStatus, type MemberState } from '../../teammates/status-report.js';
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

const TRANSIENT: ReadonlySet<MemberState> = new Set(['starting']);

export class StatusTracker {
  private last = '';
  private allIdle = false;
  /** Each member's last state other than `unknown`, by lower-case name. */
  private readonly known = new Map<string, MemberState>();

  constructor(private readonly o: StatusTrackerOptions) {}

  /** Print what changed; resolves with the teammates' names. */
  async update(pending: number): Promise<string[]> {
    const now = Date.now();
    const stopping = this.o.stopping ?? new Set<string>();
    // A teammate found dead (pane lost, process alive) gives its tasks back (one notice to
    // team-lead); a stopped one keeps them for `swarm resume`; one being stopped here is released
    // by that stop, with the right words.
    const collected = await collectStatus(this.o.team, { env: this.o.env, now: () => now, releaseDead: (name) => !stopping.has(name.toLowerCase()) });
    // `unknown` (liveness not told this time: a pane probe that failed on a loaded machine) keeps
    // the member's last known state on the line: a blip is no news. Never known: shown as unknown.
    const members = collected.report.members.map((m) => {
      const key = m.name.toLowerCase();
      if ((m.state === 'dead' || m.state === 'stopped') && stopping.has(key)) return { ...m, state: 'exiting' as const };
      if (m.state !== 'unknown') this.known.set(key, m.state);
      const known = this.known.get(key);
      return m.state === 'unknown' && known !== undefined ? { ...m, state: known } : m;
    });
    const s = { ...collected, report: { ...collected.report, members } };
    const teammates = s.report.members.filter((m) => m.name !== LEAD_NAME);
    // A teammate being spawned (`starting`: its pane is up, its first turn not begun) is news only
    // once it works (the spawn says so itself), and an `unknown` one none at all: the line leaves them out.
    const settled = s.report.members.flatMap((m, i) => (TRANSIENT.has(m.state) ? [] : [[m, s.details[i]!] as const]));
    const shown = { ...s, report: { ...s.report, members: settled.map(([m]) => m) }, details: settled.map(([, d]) => d) };
    const key = statusKey(shown, pending);
    if (key !== this.last) {
      this.last = key;
      this.o.print(statusLine(shown, pending));
    }
    // A hibernating teammate is idle that has gone to sleep (docs/hibernation.md).
    const allIdle = teammates.length > 0 && pending === 0 && teammates.every((m) => m.state === 'idle' || m.state === 'hibernating');
    if (allIdle && !this.allIdle) {
      const who = teammates.length === 1 ? `${teammates[0]!.name} is idle` : teammates.length === 2 ? 'both teammates are idle' : `all ${teammates.length} teammates are idle`;
      this.o.print(chalk.green(who) + (this.o.allIdleHint ? ` — ${this.o.allIdleHint}` : ''));
    }
    this.allIdle = allIdle;
    return teammates.map((m) => m.name);
  }
}
