// The README's everyday jobs, run as printed, in order, in one bash (the stand-in it starts with `&`
// is the job the clean-up's `kill %1` ends): launch offline, list pending requests, read the
// leader's inbox with jq, stop the teammate with a shutdown request, clean up. Only the port
// changes (a free one, not 8787) and, between the blocks, the script waits as a person would for
// scout's message; every command must succeed (`set -e`). After the stop, the launch line runs a
// second time (the same stand-in still serving): the team, shut down, starts again from its file.
// The first `npx swarm` is npx's own (it finds the clone's bin); after it, `npx swarm …` is a bash
// function that runs that same bin/swarm.js, as `npm link`'s plain `swarm` would: npx resolves the
// same file for every subcommand, and each of its starts cost about 1 CPU-s of loading npm.
import { execa } from 'execa';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/backends/process.js';
import { REPO } from '../support/cli.js';
import { afterThisTest, useTempRoot } from '../support/tmp-root.js';
import { tmuxForThisTest } from '../support/tmux.js';

let root: string;
useTempRoot((r) => (root = r));
let socket: string;
beforeEach(() => {
  socket = tmuxForThisTest();
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** The sh blocks of the README's "Everyday jobs" section, in order. */
export function everydayBlocks(readme: string): string[] {
  const section = /^## Everyday jobs\n([^]*?)^## /m.exec(readme)?.[1] ?? '';
  return [...section.matchAll(/^```sh\n([^]*?)^```/gm)].map((m) => m[1]!);
}

describe("the README's everyday jobs", () => {
  it('run as printed: launch offline, approve, inspect, stop, launch again, clean up', async () => {
    const blocks = everydayBlocks(await readFile(path.join(REPO, 'README.md'), 'utf8'));
    expect(blocks).toHaveLength(5);
    const [launch, approve, inspect, stop, cleanUp] = blocks as [string, string, string, string, string];
    const port = String(await freePort());
    const inbox = '"$CLAUDE_CONFIG_DIR/teams/hello/inboxes/team-lead.json"';
    const script = [
      'set -eo pipefail',
      launch.replaceAll('8787', port),
      'echo "== launched"',
      `npx() { if [ "$1" = swarm ]; then shift; node ${quote([path.join(REPO, 'bin/swarm.js')])} "$@"; else command npx "$@"; fi; }`,
      `for i in $(seq 300); do [ -s ${inbox} ] && jq -e 'length > 0' ${inbox} >/dev/null && break; sleep 0.1; done`,
      approve.split('\n').filter((l) => !l.includes('<')).join('\n'), // a request id is the reader's to fill in
      'echo "== inspect"',
      inspect,
      'echo "== stop"',
      stop,
      'echo "== launch again"',
      launch.split('\n').filter((l) => l.includes('swarm launch')).join('\n').replaceAll('8787', port),
      'npx swarm shutdown --all',
      'echo "== clean up"',
      cleanUp,
      'wait', // the stand-in, ended by `kill %1`: the script ends only once it is gone
    ].join('\n');
    const run = execa('bash', ['-c', script], {
      cwd: REPO,
      // npm_config_ignore_scripts: the first `npx swarm` in a clone installs the clone into npx's
      // cache, running its `prepare` (`npm run build`) in the clone itself: dist/ rewritten in place
      // while the other test files' processes load it (one failed with a bundle chunk half written).
      // The commands stay as printed; only that rebuild is left out.
      env: { CLAUDE_CONFIG_DIR: root, SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '', NO_COLOR: '1', SWARM_TEAM: '', npm_config_ignore_scripts: 'true' },
      reject: false,
      stdin: 'ignore',
      detached: true, // its own process group: the clean-up below ends the stand-in even if the script failed
      timeout: 120_000,
    });
    afterThisTest(async () => {
      if (run.pid !== undefined && isProcessAlive(run.pid)) process.kill(-run.pid, 'SIGKILL');
    });
    const r = await run;
    const out = String(r.stdout);
    expect(r.exitCode, `${out}\n${String(r.stderr)}`).toBe(0);
    expect(out).toMatch(/== inspect\nscout: /);
    expect(out).toMatch(/== stop\n[^]*scout[^]*approved/);
    expect(out).toMatch(/== launch again\nteam "hello" exists with no teammate running: starting it again from the file[^]*spawned scout[^]*scout[^]*approved/);
    expect(out).toMatch(/== clean up\n[^]*deleted[^]*hello/);
  }, 150_000);
});
