// `swarm lead` ends by itself after /quit: nothing it opened (its in-process host, the directory
// watchers, the status tick) keeps node alive, so no process.exit is needed to hide a leak. Once
// its last teammate is gone it says how to leave (the demo's console leaves by itself instead:
// test/cli/demo/demo-end.test.ts).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterEach, describe, expect, it } from 'vitest';
import { addMember, updateMember } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { reapChildren, startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-lead-exit-');
afterEach(() => reapChildren());

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

  it('says /quit leaves once the last teammate is gone, and stays until then', { timeout: 45_000 }, async () => {
    expect((await swarm(root, ['team', 'create', 'small'])).exitCode).toBe(0);
    const team = new Team(root, 'small');
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { pid: await startSleeper() }); // no pane: /kill stops the process
    const lead = execa(process.execPath, [SWARM_BIN, 'lead', '--team', 'small'], {
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '' },
      stdin: 'pipe',
      reject: false,
      timeout: 30_000,
    });
    let out = '';
    lead.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => out.includes('w1'), 10_000, 'the status line with w1');
    lead.stdin!.write('/kill w1\n');
    await waitFor(() => out.includes('no teammate is left: /quit leaves the console'), 10_000, 'the hint');
    expect(out.indexOf('w1: killed')).toBeLessThan(out.indexOf('no teammate is left'));
    // The status line of the emptied team does not say "yet" right under "no teammate is left".
    await waitFor(() => out.includes('── no teammates'), 10_000, 'the status line with nobody');
    expect(out).toContain('── no teammates (/spawn <name> <prompt> adds one)');
    expect(lead.exitCode).toBeNull(); // a plain console stays
    lead.stdin!.end('/quit\n');
    const r = await lead;
    expect([r.timedOut, r.exitCode]).toEqual([false, 0]);
  });

  it('leaves like /quit, quietly, when its output is closed (a terminal or pipe gone)', { timeout: 45_000 }, async () => {
    expect((await swarm(root, ['team', 'create', 'gone'])).exitCode).toBe(0);
    const lead = execa(process.execPath, [SWARM_BIN, 'lead', '--team', 'gone'], {
      env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', SWARM_TEAM: '' },
      stdin: 'pipe',
      reject: false,
      timeout: 20_000,
    });
    let out = '';
    lead.stdout!.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => out.includes('swarm lead · team gone'), 10_000, 'the banner');
    lead.stdout!.destroy();
    lead.stdin!.write('/status\n'); // something to print into the closed pipe
    const r = await lead;
    expect([r.timedOut, r.exitCode, String(r.stderr)]).toEqual([false, 0, '']);
    const config = JSON.parse(await readFile(path.join(root, 'teams/gone/config.json'), 'utf8')) as { leadProcess?: unknown };
    expect(config.leadProcess).toBeUndefined(); // released, as /quit does
  });
});
