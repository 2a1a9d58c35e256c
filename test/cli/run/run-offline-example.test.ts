// The README's offline `swarm run -p` example, as printed: the stand-in CLI (a child process)
// serving examples/goal.scenario.json, then `swarm run -p "List this project's files"` against it
// (teammates in a private tmux server). The lead plans a task, spawns scout, hears it, stops it and
// answers; exit 0, the answer on stdout, no pane left.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer } from '../../../src/backends/tmux/commands.js';
import { REPO, swarm } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { endAfterThisTest } from '../../support/children.js';

let root = '';
let socket = '';
useTempRoot((r) => (root = r), 'swarm-run-example-');
beforeEach(() => {
  socket = tmuxForThisTest();
});

describe("the README's offline swarm run example", () => {
  it('runs as printed and prints the answer', async () => {
    const readme = await fs.readFile(path.join(REPO, 'docs/run.md'), 'utf8');
    expect(readme).toContain('node dist/standin/messages-server.js --script examples/goal.scenario.json --port 8788 &');
    expect(readme).toContain(`ANTHROPIC_BASE_URL=http://127.0.0.1:8788 swarm run -p "List this project's files"`);
    // Port 0: the test must not depend on 8788 being free; the stand-in prints the URL it got.
    const standin = execa(process.execPath, ['dist/standin/messages-server.js', '--script', 'examples/goal.scenario.json', '--port', '0'], { cwd: REPO });
    endAfterThisTest(standin, 'SIGTERM');
    let out = '';
    standin.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const url = await waitFor(() => /"url":"([^"]+)"/.exec(out)?.[1], 10_000, 'the stand-in URL');
    const work = path.join(root, 'project');
    await fs.mkdir(work);
    await fs.writeFile(path.join(work, 'README.md'), '# project\n');
    const r = await execa(process.execPath, [path.join(REPO, 'bin/swarm.js'), 'run', '-p', "List this project's files"], {
      cwd: work,
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '', ANTHROPIC_BASE_URL: url, SWARM_TMUX_SOCKET: socket, TMUX: '', TMUX_PANE: '' },
      reject: false,
      stdin: 'ignore',
      timeout: 60_000,
    });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(String(r.stdout)).toMatch(/^\(stand-in scenario\) Done: scout listed the project's top-level files/);
    expect(String(r.stderr)).toMatch(/task #1 done \(scout\)/);
    expect(String(r.stderr)).toMatch(/scout approved the shutdown and is gone \(verified\)/);
    const team = /^team (\S+)/m.exec(String(r.stderr))![1]!;
    const tasks = await swarm(root, ['tasks', 'list', '--team', team, '--json']);
    expect((JSON.parse(tasks.stdout) as { status: string }[]).map((t) => t.status)).toEqual(['completed']);
    const panes = await new TmuxServer({ socket }).tryRun(['list-panes', '-a', '-F', '#{pane_id}']);
    expect(panes.stdout.trim()).toBe('');
  }, 90_000);
});
