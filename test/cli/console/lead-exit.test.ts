// `swarm lead` ends by itself after /quit: nothing it opened (its in-process host, the directory
// watchers, the status tick) keeps node alive, so no process.exit is needed to hide a leak.
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-lead-exit-');

describe('swarm lead', () => {
  it('exits 0 on its own after /quit (piped input)', { timeout: 45_000 }, async () => {
    expect((await swarm(root, ['team', 'create', 'quiet'])).exitCode).toBe(0);
    const r = await execa(process.execPath, [SWARM_BIN, 'lead', '--team', 'quiet'], {
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '' },
      input: '/quit\n',
      reject: false,
      timeout: 20_000,
    });
    expect([r.timedOut, r.exitCode]).toEqual([false, 0]);
    expect(String(r.stdout)).toContain('swarm lead · team quiet');
  });
});
