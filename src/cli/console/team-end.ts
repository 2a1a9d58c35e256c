// When the console's team empties (docs/protocol.md#cli, docs/protocol.md#demo): once no teammate is left, the demo's console
// (`endWithLastTeammate`) ends and any other says how to leave — once each time the roster empties,
// and only after a shutdown this console runs has reported its outcomes. With an agent lead the
// roster is the lead's business: the demo's console ends once the lead has finished with no
// teammate left.
import { LEAD_NAME } from '../../protocol/names.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { chalk } from '../output/render.js';

export interface TeamEndOptions {
  team: Team;
  endWithLastTeammate: boolean;
  /** Names (lower-case) this console is shutting down. */
  stopping: ReadonlySet<string>;
  leadRuns: () => boolean;
  /** True once the console is leaving. */
  leaving: () => boolean;
  leave: () => void;
  print: (text: string) => void;
  track: (p: Promise<unknown>) => void;
}

export class TeamEnd {
  /** Some teammate was on the roster since the console started (so "none left" is news). */
  private hadTeammates = false;
  private saidNoneLeft = false;

  constructor(private readonly o: TeamEndOptions) {}

  /** The teammates now on the roster (every status refresh). */
  roster(names: readonly string[]): void {
    const o = this.o;
    if (names.length > 0) {
      this.hadTeammates = true;
      this.saidNoneLeft = false;
      return;
    }
    // A shutdown still reporting its outcomes here finishes first (the command refreshes after).
    if (o.leadRuns()) return;
    if (!this.hadTeammates || this.saidNoneLeft || o.leaving() || o.stopping.size > 0) return;
    this.saidNoneLeft = true;
    if (o.endWithLastTeammate) {
      o.print(chalk.dim('the last teammate has left: the demo ends'));
      o.leave();
      return;
    }
    o.print(chalk.dim('no teammate is left: /quit leaves the console (or /spawn <name> <prompt> adds one)'));
  }

  /** The agent lead finished: the demo ends when no teammate is left (the lead stopped them). */
  leadFinished(): void {
    const o = this.o;
    if (!o.endWithLastTeammate || o.leaving()) return;
    o.track(
      readTeam(o.team).then((c) => {
        if (c.members.some((m) => m.name !== LEAD_NAME) || o.leaving()) return;
        o.print(chalk.dim('the lead has finished and no teammate is left: the demo ends'));
        o.leave();
      }),
    );
  }
}
