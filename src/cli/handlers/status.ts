// What `swarm status [--watch] [--json]` does (the command line is commands/status.ts): one table
// of the team (docs/protocol.md#cli), liveness checked against tmux / it2 / the process table, not
// taken from config.json. `--watch` clears and redraws every second and at once when status/,
// inboxes/, permissions/pending/ or config.json change (a DirWatcher hint only says "re-read"),
// until Ctrl-C. `--watch --json` prints one compact report per line, only when it changed.
import { DirWatcher, nextChange } from '../../storage/watch.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { printJson, println, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { renderStatus } from '../output/status.js';
import { collectStatus, type CollectOptions } from '../../teammates/status-report.js';
import { INTERRUPT_SIGNALS, onSignals } from '../interrupts.js';
import { cliIo } from '../io.js';

export interface StatusArgs extends GlobalArgs {
  watch: boolean;
}

/** Cursor home + clear screen: a plain redraw, no alternate screen. */
const CLEAR = '\x1b[H\x1b[2J';
const REDRAW_MS = 1000;

// A member found dead gives its unfinished tasks back (docs/protocol.md#task-list), once: the next look finds none.
function probeOptions(): CollectOptions {
  return { env: cliIo().env, releaseDead: () => true };
}

async function watchStatus(team: Team, json: boolean): Promise<void> {
  await readTeam(team); // not_found before any directory is watched (DirWatcher creates it)
  const ac = new AbortController();
  const off = onSignals(INTERRUPT_SIGNALS, () => ac.abort());
  const p = team.paths;
  const watchers = await Promise.all([
    DirWatcher.open(p.statusDir),
    DirWatcher.open(p.inboxes, { match: (n) => n.endsWith('.json') }),
    DirWatcher.open(p.pending, { match: (n) => n.endsWith('.json') }),
    DirWatcher.open(p.dir, { file: 'config.json' }),
  ]);
  let last = '';
  try {
    while (!ac.signal.aborted) {
      const now = Date.now();
      const s = await collectStatus(team, { ...probeOptions(), now: () => now });
      if (json) {
        const line = JSON.stringify(s.report);
        if (line !== last) println(line);
        last = line;
        for (const w of s.warnings) cliIo().stderr.write(`swarm: warning: ${w}\n`);
      } else {
        const footer = chalk.dim(`updated ${new Date(now).toTimeString().slice(0, 8)} · redraws every second and on changes · Ctrl-C to quit`);
        cliIo().stdout.write(`${CLEAR}${renderStatus(s, now).join('\n')}\n\n${footer}\n`);
      }
      await nextChange(watchers, ac.signal, REDRAW_MS);
    }
  } finally {
    off();
    await Promise.all(watchers.map((w) => w.close()));
  }
}

export async function status(args: StatusArgs): Promise<void> {
  const team = await requireTeam(args);
  if (args.watch) return watchStatus(team, args.json === true);
  const now = Date.now();
  const s = await collectStatus(team, { ...probeOptions(), now: () => now });
  if (args.json) {
    for (const w of s.warnings) cliIo().stderr.write(`swarm: warning: ${w}\n`);
    return printJson(s.report);
  }
  for (const line of renderStatus(s, now)) println(line);
}
