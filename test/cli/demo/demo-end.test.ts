// How `swarm demo --manual` ends, each with a real demo in a pane of a private tmux server (reaped
// afterwards; TMPDIR points into the test's temp dir, so the demo's root is ours):
//   - `/shutdown --all` in its console: once the last teammate has left, the demo cleans up and exits 0;
//   - SIGHUP (the terminal closed), with the console in the demo's own pane: the teammates, their
//     panes, the session and the root are gone, exit 129 (in a `swarm-demo` session: demo.test.ts);
//   - `tmux kill-pane` on the demo's pane (the terminal itself gone: SIGHUP, and a dead tty whose EIO
//     must not kill the demo before it has cleaned up): its teammates and its root are gone;
//   - a closed stdout (`| head -3`): the same cleanup, exit 141;
//   - SIGKILL (no cleanup possible): `swarm doctor` reports the orphaned demo and `--fix` removes
//     its teammates, its session and its root.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import type { DoctorReport } from '../../../src/cli/handlers/doctor.js';
import { listDemoRoots } from '../../../src/cli/demo/root.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { swarmInProcess } from '../../support/cli.js';
import { demoCommand, expectDemoCleanedUp, expectHangUpCleansUp, demoEnv, demoLeftovers, sessionNames, startDemoPane, useDemoPanes, userRoot, type DemoPanes } from '../../support/demo-pane.js';
import { waitFor } from '../../support/wait.js';

let panes: DemoPanes;
let tmp: string;
let tmux: TmuxServer;

useDemoPanes((d) => ({ tmp, tmux } = panes = d));

/**
 * `swarm demo --manual` in the first pane of the private server (startDemoPane). `outsideTmux`:
 * TMUX unset and stdin not a terminal, so its console goes to a `swarm-demo` session and nothing
 * attaches. `pipe`: its stdout piped into that command.
 */
function startDemo(outsideTmux: boolean, pipe?: string): Promise<{ pane: string; screen: () => Promise<string> }> {
  const demo = demoCommand(['--manual']);
  const run = outsideTmux ? `env -u TMUX ${demo} </dev/null` : demo;
  const cmd = pipe === undefined ? `${run}; echo DEMO-EXIT=$?` : quote(['bash', '-c', `${run} | ${pipe}; echo DEMO-EXIT=\${PIPESTATUS[0]}`]);
  return startDemoPane(panes, cmd);
}

/** The running demo's root, pid (from its marker) and teammates' pids, once all three are spawned. */
async function demoState(): Promise<{ root: string; pid: number; teammatePids: number[] }> {
  return waitFor(async () => {
    const [d] = await listDemoRoots(userRoot(panes));
    if (d?.marker === undefined) return undefined;
    const config = await readTeam(new Team(d.root, 'demo'));
    const pids = config.members.flatMap((m) => (m.name !== 'team-lead' && m.pid !== undefined ? [m.pid] : []));
    return pids.length === 3 ? { root: d.root, pid: d.marker.pid, teammatePids: pids } : undefined;
  }, 30_000, 'the demo root with three spawned teammates');
}

describe('swarm demo --manual ends', () => {
  it('by itself once /shutdown --all has stopped the last teammate: cleaned up, exit 0', async () => {
    const { pane, screen } = await startDemo(false);
    const { root } = await demoState();
    await waitFor(async () => (await screen()).includes('[y] allow once'), 30_000, 'the approval question');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('all 3 teammates are idle'), 30_000, 'every teammate idle');
    expect(await screen()).toContain('type /shutdown --all, or press Ctrl-C and answer y, to shut the team down and end the demo');

    await tmux.run(['send-keys', '-t', pane, '-l', '/shutdown --all']);
    await tmux.run(['send-keys', '-t', pane, 'Enter']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 40_000, 'the demo to exit 0').catch(async (e: Error) => {
      throw new Error(`${e.message}; its pane shows:\n${await capturePane(tmux, pane, 300)}`); // timed out once in CI: say where it stood
    });
    const out = await screen();
    expect(out).toContain('reader: approved the shutdown');
    expect(out).toContain('the last teammate has left: the demo ends');
    await expectDemoCleanedUp(panes, out, pane, root);
  }, 90_000);

  // The same with the console in a swarm-demo session: test/cli/demo/demo.test.ts (the default demo).
  it('on SIGHUP (its console in its own pane, teammates split beside it): its teammates, panes, session and root are gone, exit 129', async () => {
    const { pane, screen } = await startDemo(false);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('swarm lead · team demo'), 30_000, 'the console');
    expect(await listAllPanes(tmux)).toHaveLength(4);

    await expectHangUpCleansUp(panes, { pid, pane, root, teammatePids, screen });
  }, 90_000);

  it('on tmux kill-pane of its pane (the terminal gone, its tty dead): its teammates are stopped and its root removed', async () => {
    const { pane, screen } = await startDemo(false);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('swarm lead · team demo'), 30_000, 'the console');

    await tmux.run(['kill-pane', '-t', pane]);
    await waitFor(() => teammatePids.every((p) => !isProcessAlive(p)) && !isProcessAlive(pid), 30_000, 'the demo and its teammates gone');
    await waitFor(async () => (await demoLeftovers(panes)).length === 0, 10_000, 'the demo root removed').catch(async (e: Error) => {
      // Seen once beside two CPU hogs: the demo gone, its root not. Say what stayed (whose files).
      const left = await demoLeftovers(panes);
      const files = await Promise.all(left.map(async (d) => `${d}: ${(await fs.readdir(path.isAbsolute(d) ? d : path.join(tmp, d), { recursive: true }).catch((err: Error) => [err.message])).join(', ')}`));
      throw new Error(`${e.message}; left: ${files.join('; ')}`);
    });
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
  }, 90_000);

  it('when its stdout is closed (| head -3): what it started is stopped, its root removed, exit 141', async () => {
    const { screen } = await startDemo(true, 'head -3');
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=141'), 40_000, 'the demo to exit 141');
    expect(await sessionNames(panes)).toEqual(['main']);
    expect(await demoLeftovers(panes)).toEqual([]);
  }, 90_000);

  it('on SIGKILL: swarm doctor reports the orphaned demo, and --fix kills its teammates and session and removes its root', async () => {
    const { screen } = await startDemo(true);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('the demo runs until its console exits'), 30_000, 'the demo waiting on its console');
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=137'), 10_000, 'the demo to die');
    expect(await sessionNames(panes)).toEqual(['main', 'swarm-demo']); // what the issue saw: everything left

    const doctor = async (...args: string[]): Promise<DoctorReport> => {
      const r = await swarmInProcess(userRoot(panes), ['doctor', '--json', ...args], { ...demoEnv(panes), TMUX: '' });
      return JSON.parse(r.stdout) as DoctorReport;
    };
    // Another root's doctor (another user, another CLAUDE_CONFIG_DIR, another test run): not its demo.
    const other = await swarmInProcess(path.join(tmp, 'other-root'), ['doctor', '--json', '--fix'], { ...demoEnv(panes), TMUX: '' });
    expect((JSON.parse(other.stdout) as DoctorReport).findings.filter((f) => f.check === 'orphan_demo')).toEqual([]);
    expect(teammatePids.filter((p) => isProcessAlive(p))).toHaveLength(3);
    await fs.access(root);

    const before = await doctor();
    expect(before.healthy).toBe(false);
    expect(before.findings.filter((f) => f.check === 'orphan_demo')).toEqual([
      expect.objectContaining({ path: root, problem: expect.stringContaining(`(pid ${pid}) is gone (3 teammates, tmux session swarm-demo)`) }),
    ]);

    const fixed = await doctor('--fix');
    expect(fixed.findings.find((f) => f.check === 'orphan_demo')).toMatchObject({ fixed: true, fixResult: `killed 3 teammates and swarm-demo, removed ${root}` });
    expect(await sessionNames(panes)).toEqual(['main']);
    expect(teammatePids.filter((p) => isProcessAlive(p))).toEqual([]);
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
    expect((await doctor()).passed).toContain('no orphaned demos');
  }, 90_000);
});
