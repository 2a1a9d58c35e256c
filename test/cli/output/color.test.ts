// Colour: the one decision (output/color.ts) as a table, then `swarm` into a pipe with
// NO_COLOR / FORCE_COLOR / --color / --no-color, an error line on stderr, and the choice handed on
// to what a launch starts (the dry run's env file line). In-process through main(argv, io) with
// exactly the env given; the two cases that set both NO_COLOR and FORCE_COLOR run as real child
// processes of bin/swarm.js, where Node itself would warn on stderr if swarm passed both on.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { decideColorLevel, normalizeColorEnv } from '../../../src/cli/output/color.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';

const ESC = '\u001b[';

describe('decideColorLevel', () => {
  const tty = (env: NodeJS.ProcessEnv, flag?: boolean) => decideColorLevel({ env, isTTY: true, flag });
  const pipe = (env: NodeJS.ProcessEnv, flag?: boolean) => decideColorLevel({ env, isTTY: false, flag });

  it('colours a terminal as richly as it says, and never a pipe or a dumb terminal by default', () => {
    expect(tty({ TERM: 'xterm' })).toBe(1);
    expect(tty({ TERM: 'tmux-256color' })).toBe(2);
    expect(tty({ TERM: 'xterm', COLORTERM: 'truecolor' })).toBe(3);
    expect(tty({ TERM: 'dumb' })).toBe(0);
    expect(pipe({ TERM: 'xterm-256color' })).toBe(0);
  });

  it('NO_COLOR (any non-empty value) turns colour off, even with FORCE_COLOR; an empty one is unset', () => {
    expect(tty({ NO_COLOR: '1' })).toBe(0);
    expect(tty({ NO_COLOR: 'no' })).toBe(0);
    expect(pipe({ NO_COLOR: '1', FORCE_COLOR: '1' })).toBe(0);
    expect(tty({ NO_COLOR: '', TERM: 'xterm' })).toBe(1);
  });

  it('FORCE_COLOR colours a pipe (at least its level) and 0/false turns colour off', () => {
    expect(pipe({ FORCE_COLOR: '1' })).toBe(1);
    expect(pipe({ FORCE_COLOR: '' })).toBe(1);
    expect(pipe({ FORCE_COLOR: 'true' })).toBe(1);
    expect(pipe({ FORCE_COLOR: '3' })).toBe(3);
    expect(pipe({ FORCE_COLOR: '1', TERM: 'screen-256color' })).toBe(2);
    expect(tty({ FORCE_COLOR: '0' })).toBe(0);
    expect(tty({ FORCE_COLOR: 'false' })).toBe(0);
  });

  it('--color and --no-color beat the environment', () => {
    expect(pipe({}, true)).toBe(1);
    expect(pipe({ NO_COLOR: '1' }, true)).toBe(1);
    expect(pipe({ FORCE_COLOR: '2' }, true)).toBe(2);
    expect(tty({ FORCE_COLOR: '3' }, false)).toBe(0);
  });

  it('normalizeColorEnv makes the environment say the same (an empty NO_COLOR goes; a set one drops FORCE_COLOR)', () => {
    const a: NodeJS.ProcessEnv = { NO_COLOR: '1', FORCE_COLOR: '1' };
    normalizeColorEnv(a);
    expect(a).toEqual({ NO_COLOR: '1' });
    const b: NodeJS.ProcessEnv = { NO_COLOR: '', FORCE_COLOR: '1' };
    normalizeColorEnv(b);
    expect(b).toEqual({ FORCE_COLOR: '1' });
  });
});

describe('swarm into a pipe', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));

  /** `swarm ...args` in-process with exactly `env` for colour (nothing inherited), stdout and stderr not terminals. */
  const run = (args: string[], env: Record<string, string>) => swarmInProcess(root, args, { SWARM_TEAM: '', TERM: 'xterm', ...env }, { extendEnv: false });

  /** `run` as a child process of bin/swarm.js, stdout and stderr pipes. */
  async function runChild(args: string[], env: Record<string, string>) {
    const r = await execa(process.execPath, [SWARM_BIN, ...args], {
      env: { CLAUDE_CONFIG_DIR: root, SWARM_TEAM: '', TERM: 'xterm', ...env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
    return { stdout: String(r.stdout), stderr: String(r.stderr), exitCode: r.exitCode };
  }

  it.each([
    ['nothing set', false, {}, [], run],
    ['FORCE_COLOR=1', true, { FORCE_COLOR: '1' }, [], run],
    ['FORCE_COLOR=1 NO_COLOR=1', false, { FORCE_COLOR: '1', NO_COLOR: '1' }, [], runChild],
    ['FORCE_COLOR=1 --no-color', false, { FORCE_COLOR: '1' }, ['--no-color'], run],
    ['--color', true, {}, ['--color'], run],
    ['NO_COLOR=1 --color', true, { NO_COLOR: '1' }, ['--color'], runChild],
  ])('%s: coloured %s', async (_what, coloured, env, flags, via) => {
    const r = await via(['team', 'create', 'blue', ...flags], env);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('created team');
    expect(r.stdout.includes(ESC)).toBe(coloured);
    // Node's own "The 'NO_COLOR' env is ignored" warning would contradict what swarm does.
    expect(r.stderr).toBe('');
  });

  it('the one-line error on stderr follows the same choice, and --no-color is accepted by every command', async () => {
    const red = await run(['inbox', 'nobody', '--team', 'none'], { FORCE_COLOR: '1' });
    expect(red.exitCode).toBe(1);
    expect(red.stderr).toMatch(/^\u001b\[31mswarm:/);
    const plain = await run(['inbox', 'nobody', '--team', 'none', '--no-color'], { FORCE_COLOR: '1' });
    expect(plain.exitCode).toBe(1);
    expect(plain.stderr).toMatch(/^swarm: no team "none"/);
    for (const cmd of [['status'], ['team', 'list']]) {
      const r = await run([...cmd, '--no-color', '--help'], {});
      expect(r.exitCode, cmd.join(' ')).toBe(0);
    }
  });

  it('a launch hands an explicit --no-color / --color on to its panes (the env file of the dry run)', async () => {
    const file = path.join(root, 'team.yaml');
    await writeFile(file, 'name: hue\nmembers:\n  - name: scout\n    prompt: look around\n');
    const envLine = (out: string) => out.split('\n').find((l) => l.includes('<private env file>')) ?? '';
    const off = await run(['launch', file, '--dry-run', '--backend', 'tmux', '--no-color'], { FORCE_COLOR: '1', PATH: process.env.PATH ?? '' });
    expect(off.exitCode).toBe(0);
    expect(envLine(off.stdout)).toContain('export NO_COLOR=1');
    expect(envLine(off.stdout)).not.toContain('FORCE_COLOR');
    const on = await run(['launch', file, '--dry-run', '--backend', 'tmux', '--color'], { NO_COLOR: '1', PATH: process.env.PATH ?? '' });
    expect(envLine(on.stdout)).toContain('export FORCE_COLOR=1');
    expect(envLine(on.stdout)).not.toContain('NO_COLOR');
  });
});
