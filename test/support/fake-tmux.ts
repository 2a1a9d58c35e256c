// A `tmux` of the test's own, first on this process's PATH for the test: `-V` says 3.3a, `list-panes`
// prints the lines the test sets (PANE_LIST_FORMAT, backends/tmux/commands.ts), and every call is
// logged. For what only a loaded machine shows (a dead pid's pane still listed as running) and for
// checking that a cheap path asks tmux nothing.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterThisTest, tempRoot } from './tmp-root.js';

export interface FakeTmux {
  /** What `list-panes` prints from now on, e.g. `%7 <pid> 1 0 @1 cmd swarm-t` (pane_dead = 1). */
  list(lines: string[]): Promise<void>;
  /** Every call so far, its arguments as one line each. */
  calls(): Promise<string[]>;
  /** From now on every call but `-V` fails (exit 1: the server could not be asked). */
  fail(): Promise<void>;
}

export async function fakeTmux(): Promise<FakeTmux> {
  const bin = await tempRoot('swarm-fake-tmux-');
  const listing = path.join(bin, 'panes');
  const log = path.join(bin, 'calls');
  await fs.writeFile(listing, '');
  await fs.writeFile(log, '');
  const failing = path.join(bin, 'failing');
  await fs.writeFile(
    path.join(bin, 'tmux'),
    `#!/bin/sh\necho "$*" >> '${log}'\ncase "$*" in *-V*) echo "tmux 3.3a"; exit 0;; esac\n[ -e '${failing}' ] && { echo "protocol version mismatch" >&2; exit 1; }\ncase "$*" in *list-panes*) cat '${listing}';; esac\n`,
    { mode: 0o755 },
  );
  const path0 = process.env.PATH;
  process.env.PATH = `${bin}:${path0 ?? ''}`;
  afterThisTest(async () => {
    process.env.PATH = path0;
  });
  return {
    list: (lines) => fs.writeFile(listing, lines.map((l) => `${l}\n`).join('')),
    calls: async () => (await fs.readFile(log, 'utf8')).split('\n').filter((l) => l !== ''),
    fail: () => fs.writeFile(failing, ''),
  };
}
