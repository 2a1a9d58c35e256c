// The fast entry of `swarm teammate` (src/cli/teammate-main.ts): which argvs it takes itself and
// which it leaves to the full CLI, and that a user meets the same help and one-line errors either
// way. Real child processes of bin/swarm.js (run `npm run build` first).
import { describe, expect, it } from 'vitest';
import { parseTeammateArgv } from '../../src/cli/teammate-main.js';
import { swarm } from '../support/cli.js';
import { useTempRoot } from '../support/tmp-root.js';

const BASE = ['--agent-id', 'w1@t', '--agent-name', 'w1', '--team-name', 't', '--lead-verify-key', '1.k'];

describe('parseTeammateArgv', () => {
  it('takes the flags a backend builds, camel-cased', () => {
    expect(parseTeammateArgv([...BASE, '--plan-mode-required', '--permission-mode=plan'])).toEqual({
      agentId: 'w1@t',
      agentName: 'w1',
      teamName: 't',
      leadVerifyKey: '1.k',
      planModeRequired: true,
      permissionMode: 'plan',
    });
  });

  it.each([
    ['--help', ['--help']],
    ['-h', ['-h']],
    ['--version', ['--version']],
    ['an unknown flag', [...BASE, '--bogus']],
    ['a global flag', [...BASE, '--team', 't']],
    ['a negated boolean', [...BASE, '--no-plan-mode-required']],
    ['a value after a boolean', [...BASE, '--plan-mode-required', 'false']],
    ['a positional', [...BASE, 'extra']],
    ['a value that looks like a flag', ['--agent-id', '-x']],
  ])('leaves %s to the full CLI', (_what, argv) => {
    expect(parseTeammateArgv(argv)).toBeUndefined();
  });
});

describe('swarm teammate through the fast entry', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));

  it('--help is the full CLI help', async () => {
    const r = await swarm(root, ['teammate', '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('--lead-verify-key');
    expect(r.stdout).toContain('swarm teammate');
  });

  it('a runtime flag error (fast entry) and an unknown flag (full CLI) are one line with exit code 2', async () => {
    const missing = await swarm(root, ['teammate', '--agent-id', 'w1@t']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe('swarm: swarm teammate: expected --agent-name <name>');
    const unknown = await swarm(root, ['teammate', ...BASE, '--bogus']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^swarm: unknown flag --bogus/);
  });
});
