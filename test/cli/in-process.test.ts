// main(argv, io) run in-process (test/support/cli.ts swarmInProcess): each call sees only its own
// env and streams, ends with a status instead of ending this process, and leaves nothing behind
// (the colour level, process.env, listeners on the process and its streams).
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { chalk } from '../../src/cli/output/render.js';
import { createTeam } from '../../src/team/index.js';
import { swarmInProcess } from '../support/cli.js';
import { useTempRoot } from '../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir));

/** Every listener this process and its standard streams hold that a command could add. */
function listenerCounts(): number[] {
  return [
    ...(['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((s) => process.listenerCount(s)),
    process.stdout.listenerCount('error'),
    process.stderr.listenerCount('error'),
  ];
}

// Before any call of this file: the first main() call must not add a listener either.
const listenersBefore = listenerCounts();

describe('main(argv, io) in-process', () => {
  it('a failure is its one line on io.stderr and a status (2 or 1), and this process goes on', async () => {
    const usage = await swarmInProcess(root, ['status', '--wach']);
    expect([usage.exitCode, usage.stdout, usage.stderr]).toEqual([2, '', 'swarm: unknown flag --wach; did you mean --watch? (see swarm --help)']);
    const missing = await swarmInProcess(root, ['team', 'show', 'nope']);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr).toMatch(/^swarm: .*nope/);
  });

  it("yargs' help and version go to io.stdout, wrapped to its columns", async () => {
    let out = '';
    const code = await main(['status', '--help'], {
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' },
      cwd: root,
      stdin: process.stdin,
      stdout: { write: (t: string) => (out += t), columns: 60, isTTY: true }, // a terminal 60 wide (a pipe gets 100)
      stderr: { write: () => true },
    });
    expect(code).toBe(0);
    expect(out).toMatch(/^swarm status\n/);
    // Options and descriptions wrap to the columns; each example's command stays whole on its line.
    const beforeExamples = out.split('\nExamples:')[0]!;
    expect(Math.max(...beforeExamples.split('\n').map((l) => l.length))).toBeLessThanOrEqual(60);
    expect((await swarmInProcess(root, ['--version'])).stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('each call has its own env: SWARM_TEAM of one call is not the next one\'s, --no-color is exported into the call\'s env only', async () => {
    await createTeam(root, { name: 'alpha' });
    const env: NodeJS.ProcessEnv = { CLAUDE_CONFIG_DIR: root, SWARM_TEAM: 'alpha' };
    const noColor = process.env.NO_COLOR;
    const code = await main(['team', 'show', '--json', '--no-color'], { env, cwd: root, stdin: process.stdin, stdout: { write: () => true }, stderr: { write: () => true } });
    expect(code).toBe(0);
    expect(env.NO_COLOR).toBe('1');
    expect(process.env.NO_COLOR).toBe(noColor);
    expect((await swarmInProcess(root, ['team', 'show'])).stderr).toMatch(/^swarm: no team given/);
  });

  it('two calls at once each write to their own streams', async () => {
    await createTeam(root, { name: 'alpha' });
    await createTeam(root, { name: 'beta' });
    const [a, b] = await Promise.all([swarmInProcess(root, ['team', 'show', 'alpha', '--json']), swarmInProcess(root, ['team', 'show', 'beta', '--json'])]);
    expect((JSON.parse(a.stdout) as { name: string }).name).toBe('alpha');
    expect((JSON.parse(b.stdout) as { name: string }).name).toBe('beta');
  });

  it('leaves the colour level, process.env and the listeners on the process as they were', async () => {
    await createTeam(root, { name: 'alpha' });
    const level = chalk.level;
    chalk.level = 2; // what this process had decided, different from what any call below decides
    const env = { ...process.env };
    try {
      const coloured = await swarmInProcess(root, ['team', 'list', '--color'], { FORCE_COLOR: '3' });
      expect(coloured.stdout).toContain('\x1b[');
      await swarmInProcess(root, ['team', 'list', '--no-color']);
      await swarmInProcess(root, ['status', '--team', 'alpha']);
      await swarmInProcess(root, ['bogus']);
      expect(chalk.level).toBe(2);
    } finally {
      chalk.level = level;
    }
    expect(process.env).toEqual(env);
    expect(listenerCounts()).toEqual(listenersBefore);
  });
});
