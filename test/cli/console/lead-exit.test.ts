// `swarm lead` ends by itself after /quit: nothing it opened (its in-process host, the directory
// watchers, the status tick) keeps node alive, so no process.exit is needed to hide a leak. Once
// its last teammate is gone it says how to leave (the demo's console leaves by itself instead:
// test/cli/demo/demo-end.test.ts). On a terminal, SIGINT from outside asks as Ctrl-C does; its
// terminal gone (`tmux kill-pane`: SIGHUP and a dead tty), it leaves as /quit does — the lease given
// back, the teammates left running — and says so on stderr.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { describe, expect, it } from 'vitest';
import { addMember, readTeam, updateMember } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarmInProcess } from '../../support/cli.js';
import { startSleeper } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-lead-exit-');

describe('swarm lead', () => {
  it('exits 0 on its own after /quit (piped input)', { timeout: 45_000 }, async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'quiet'])).exitCode).toBe(0);
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
    expect((await swarmInProcess(root, ['team', 'create', 'small'])).exitCode).toBe(0);
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

  it('leaves like /quit, quietly, when its output is closed (a terminal or pipe gone): exit 141, as any command whose output closed', { timeout: 45_000 }, async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'gone'])).exitCode).toBe(0);
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
    expect([r.timedOut, r.exitCode, String(r.stderr)]).toEqual([false, 141, '']);
    const config = JSON.parse(await readFile(path.join(root, 'teams/gone/config.json'), 'utf8')) as { leadProcess?: unknown };
    expect(config.leadProcess).toBeUndefined(); // released, as /quit does
  });

  it('on a terminal SIGINT asks as Ctrl-C does; its terminal gone (tmux kill-pane): leaves as /quit does, the teammate left running, said on stderr', { timeout: 45_000 }, async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'hup'])).exitCode).toBe(0);
    const team = new Team(root, 'hup');
    await addMember(team, { name: 'w1' });
    const w1 = await startSleeper();
    await updateMember(team, 'w1', { pid: w1 });
    const socket = tmuxForThisTest();
    const tmux = new TmuxServer({ socket });
    const errFile = path.join(root, 'lead.err');
    const cmd = `${quote([process.execPath, SWARM_BIN, 'lead', '--team', 'hup'])} 2>${quote([errFile])}`;
    const env = ['-e', `CLAUDE_CONFIG_DIR=${root}`, '-e', 'NO_COLOR=1', '-e', 'SWARM_TEAM='];
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '160', '-y', '40', ...env, '-c', root, cmd], { env: { ...process.env, TMUX: '' } });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    const lead = await waitFor(async () => {
      const pid = (await readTeam(team)).leadProcess?.pid;
      return pid !== undefined && (await capturePane(tmux, pane, 100)).includes('w1') ? pid : undefined;
    }, 15_000, 'the console holding the lease, w1 on its status line');

    // SIGINT from outside is Ctrl-C on a terminal too (its prompt reads the key itself): it asks, it does not die.
    process.kill(lead, 'SIGINT');
    await waitFor(async () => (await capturePane(tmux, pane, 100)).includes('shut the team down? [y] shut down all and exit  [n] back>'), 10_000, 'the quit question');

    await tmux.run(['kill-pane', '-t', pane]);
    await waitFor(async () => !isProcessAlive(lead) && (await readTeam(team)).leadProcess === undefined, 15_000, 'the console gone, its lease given back');
    expect(await readFile(errFile, 'utf8')).toBe('swarm lead (team hup): SIGHUP (the terminal closed): left the console; 1 teammate still running; come back with: swarm lead --team hup\n');
    expect(isProcessAlive(w1)).toBe(true); // left running on purpose
  });
});
