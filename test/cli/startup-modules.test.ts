// What a `swarm` process loads (issue 31: start-up time): every command's definition is loaded for
// every command line (yargs needs them all to parse and for --help), what a command does
// (cli/handlers/) only when that command runs, and the heavy dependencies only by the commands that
// use them. Real child processes of bin/swarm.js (run `npm run build` first) with a log of every
// module they load (test/support/module-log.mjs); no timing.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, swarm, type CliResult } from '../support/cli.js';
import { useTempRoot } from '../support/tmp-root.js';

/**
 * What no light command needs: processes (execa), the model SDKs, YAML, the backends, and zod's
 * translations of its messages (all but the English one it is configured with, which the bundle
 * keeps only while src imports zod as `* as z`: eslint.config.js).
 */
const HEAVY = ['/node_modules/execa/', '/node_modules/@anthropic-ai/sdk/', '/node_modules/@modelcontextprotocol/sdk/', '/node_modules/yaml/', '/dist/backends/registry.js', /\/node_modules\/zod\/v4\/locales\/(?!en\.js)/];

describe('modules a swarm process loads', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));

  /** `swarm ...args` and the dist/ and node_modules/ paths it loaded. */
  async function run(args: string[]): Promise<{ r: CliResult; modules: string[]; segmenters: number }> {
    const log = path.join(root, 'modules.log');
    const r = await swarm(root, args, { NODE_OPTIONS: `--import=${path.join(REPO, 'test/support/module-log.mjs')}`, SWARM_MODULE_LOG: log });
    const lines = (await readFile(log, 'utf8')).split('\n');
    return { r, modules: lines.filter((u) => u.startsWith('file://')), segmenters: lines.filter((l) => l === 'intl:Segmenter').length };
  }

  const handlers = (modules: string[]): string[] => modules.filter((u) => u.includes('/dist/cli/handlers/')).map((u) => u.slice(u.lastIndexOf('/dist/') + 1));
  const heavy = (modules: string[]): string[] => modules.filter((u) => HEAVY.some((h) => (typeof h === 'string' ? u.includes(h) : h.test(u))));

  it.each(['--help', '--version', 'spawn --help', 'run --help', 'board --help'])('swarm %s loads no handler and nothing heavy', async (line) => {
    const { r, modules } = await run(line.split(' '));
    expect(r.exitCode, r.stderr).toBe(0);
    expect(modules.some((u) => u.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(handlers(modules)).toEqual([]);
    expect(heavy(modules)).toEqual([]);
  });

  it('runs the bundle (scripts/bundle.mjs), the build npm install makes', async () => {
    const { r, modules } = await run(['--version']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(modules.some((u) => u.endsWith('/dist/bundle/main.js'))).toBe(true);
  });

  it('swarm team list loads its own handler only, and nothing heavy', async () => {
    const { r, modules } = await run(['team', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(handlers(modules)).toEqual(['dist/cli/handlers/team.js']);
    expect(heavy(modules)).toEqual([]);
  });

  it('a command that measures no string makes no Intl.Segmenter (string-width makes its own on first use); --help does', async () => {
    for (const line of [['--version'], ['team', 'list']]) {
      const { r, segmenters } = await run(line);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(segmenters, line.join(' ')).toBe(0);
    }
    const help = await run(['--help']);
    expect(help.r.exitCode).toBe(0);
    expect(help.segmenters).toBeGreaterThan(0);
  });

  it('swarm status of a team with no panes asks no backend', async () => {
    expect((await swarm(root, ['team', 'create', 'quiet'])).exitCode).toBe(0);
    const { r, modules } = await run(['status', '--team', 'quiet']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain('team quiet');
    expect(handlers(modules)).toEqual(['dist/cli/handlers/status.js']);
    expect(heavy(modules)).toEqual([]);
  });
});
