// Offline launches of the shipped example teams: every `examples/<x>.yaml` has an
// `examples/<x>.scenario.json` for the stand-in Messages API that is a valid script, answers
// shutdown requests, and speaks for exactly the file's members; the team file the README shows is
// examples/hello.yaml verbatim; and `swarm launch examples/hello.yaml --no-console` against the
// stand-in CLI (a child process, as the README runs it) serving the shipped scenario, and again the
// README's example scenario, prints the attach line once and leaves no bare shell in the session,
// delivers scout's message, after which `swarm shutdown --all` is approved by the scripted model
// well within the grace period and the session ends.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { TmuxServer, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { parseScript } from '../../../src/standin/script.js';
import { Team } from '../../../src/team/team.js';
import { parseTeamFileText } from '../../../src/cli/launch/team-file.js';
import { REPO, swarm } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { endAfterThisTest } from '../../support/children.js';

const EXAMPLES = path.join(REPO, 'examples');

async function teamFiles(): Promise<string[]> {
  return (await fs.readdir(EXAMPLES)).filter((f) => f.endsWith('.yaml')).sort();
}

describe('the scenarios shipped in examples/', () => {
  it('every example team file has a valid scenario that answers shutdowns and speaks for exactly its members', async () => {
    const files = await teamFiles();
    expect(files).toEqual(['docs-pair.yaml', 'hello.yaml', 'review-trio.yaml']);
    for (const f of files) {
      const team = parseTeamFileText(await fs.readFile(path.join(EXAMPLES, f), 'utf8'), f, EXAMPLES);
      const scenarioFile = path.join(EXAMPLES, f.replace(/\.yaml$/, '.scenario.json'));
      const script = parseScript(JSON.parse(await fs.readFile(scenarioFile, 'utf8')), scenarioFile);
      expect(script.shutdown, f).toBe('approve');
      const agents = new Set(script.turns.map((t) => (typeof t.match === 'function' ? undefined : t.match.agent)));
      expect([...agents].sort(), f).toEqual(team.members.map((m) => m.name).sort());
    }
  });

  it('the team file the README shows is examples/hello.yaml as it is', async () => {
    const readme = await fs.readFile(path.join(REPO, 'docs/launch.md'), 'utf8');
    const block = /<!-- examples\/hello\.yaml -->\s*```yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block).toBe(await fs.readFile(path.join(EXAMPLES, 'hello.yaml'), 'utf8'));
  });

  it("the README's example scenario is a valid script that answers shutdowns", async () => {
    const readme = await fs.readFile(path.join(REPO, 'docs/models.md'), 'utf8');
    const block = /<!-- scenario-example -->\s*```json\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'the README block after <!-- scenario-example -->').toBeDefined();
    expect(parseScript(JSON.parse(block!), 'README').shutdown).toBe('approve');
  });
});

describe('swarm launch examples/hello.yaml on the stand-in', () => {
  let root: string;
  let socket: string;
  useTempRoot((dir) => (root = dir), 'swarm-offline-');
  beforeEach(() => {
    socket = tmuxForThisTest();
  });

  it.each([
    ['the shipped examples/hello.scenario.json', '(stand-in scenario)'],
    ["the README's example scenario", 'I listed the files here.'],
  ])("with %s: scout's scripted message arrives, and shutdown --all is approved by the model in well under the grace period", async (which, says) => {
    let scenario = path.join(EXAMPLES, 'hello.scenario.json');
    if (which.startsWith('the README')) {
      scenario = path.join(root, 'my-scenario.json');
      const readme = await fs.readFile(path.join(REPO, 'docs/models.md'), 'utf8');
      await fs.writeFile(scenario, /<!-- scenario-example -->\s*```json\n([\s\S]*?)```/.exec(readme)![1]!);
    }
    // As the README runs it: the stand-in CLI serving the scenario, its url on stdout.
    const standin = execa(process.execPath, [path.join(REPO, 'dist/standin/messages-server.js'), '--script', scenario, '--port', '0']);
    endAfterThisTest(standin, 'SIGTERM');
    let out = '';
    standin.stdout?.on('data', (d: Buffer) => (out += d.toString()));
    const url = await waitFor(() => /"url":"([^"]+)"/.exec(out)?.[1], 10_000, 'the stand-in url');
    const env = { ANTHROPIC_BASE_URL: url, SWARM_TMUX_SOCKET: socket, TMUX: '', SWARM_POLL_MS: '250', SWARM_HEARTBEAT_MS: '500' };

    const launched = await swarm(root, ['launch', path.join(EXAMPLES, 'hello.yaml'), '--no-console'], env);
    expect(launched.stderr).toBe('');
    expect(launched.exitCode).toBe(0);
    expect(launched.stdout.match(/attach -t swarm-hello/g), 'the attach line, once').toHaveLength(1);
    // No console: the session holds the teammate's pane only (no bare shell left behind).
    const tmux = new TmuxServer({ socket });
    expect((await listAllPanes(tmux)).map((p) => p.sessionName)).toEqual(['swarm-hello']);
    const team = new Team(root, 'hello');
    await waitFor(
      async () => (await new Mailbox({ team }).read('team-lead')).some((m) => m.from === 'scout' && m.text.includes(says)),
      20_000,
      "scout's scripted message in team-lead's inbox",
    );

    const started = Date.now();
    const shutdown = await swarm(root, ['shutdown', '--all', '--team', 'hello', '--json'], env);
    const tookMs = Date.now() - started;
    expect(shutdown.exitCode).toBe(0);
    expect(JSON.parse(shutdown.stdout)).toEqual([expect.objectContaining({ name: 'scout', outcome: 'approved', verified: true })]);
    expect(tookMs).toBeLessThan(10_000); // the grace period (SWARM_SHUTDOWN_GRACE_MS) is 30 s
    // With its last teammate gone and no console, the session is gone too.
    await waitFor(async () => !(await listAllPanes(tmux).catch(() => [])).some((p) => p.sessionName === 'swarm-hello'), 5000, 'the swarm-hello session to end');
  }, 60_000);
});
