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
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import type { DoctorReport } from '../../../src/cli/handlers/doctor.js';
import { listDemoRoots } from '../../../src/cli/demo/root.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let tmp: string;
let socket: string;
let tmux: TmuxServer;

useTempRoot((dir) => (tmp = dir), 'swarm-demo-test-');
/** The root the demo runs under (its CLAUDE_CONFIG_DIR, where it records itself); the demo never uses it otherwise. */
const userRoot = (): string => path.join(tmp, 'user-root');
/** What a demo left: its records under the user's root, and demo roots in the temp dir. */
const demoLeftovers = async (): Promise<string[]> => [
  ...(await listDemoRoots(userRoot())).map((d) => d.root),
  ...(await fs.readdir(tmp)).filter((n) => n.startsWith('swarm-demo-')),
];
beforeEach(() => {
  socket = tmuxForThisTest();
  tmux = new TmuxServer({ socket });
});

const DEMO_ENV = (): Record<string, string> => ({ SWARM_TMUX_SOCKET: socket, TMPDIR: tmp, SWARM_POLL_MS: '250', SWARM_HEARTBEAT_MS: '500' });

/**
 * `swarm demo --manual` in the first pane of a private server. `outsideTmux`: TMUX unset and stdin not a
 * terminal, so its console goes to a `swarm-demo` session and nothing attaches.
 */
async function startDemo(outsideTmux: boolean, pipe?: string): Promise<{ pane: string; screen: () => Promise<string> }> {
  const flags = Object.entries(DEMO_ENV()).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const demo = quote([process.execPath, SWARM_BIN, 'demo', '--manual']);
  const run = outsideTmux ? `env -u TMUX ${demo} </dev/null` : demo;
  const cmd = pipe === undefined ? `${run}; echo DEMO-EXIT=$?` : quote(['bash', '-c', `${run} | ${pipe}; echo DEMO-EXIT=\${PIPESTATUS[0]}`]);
  await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', tmp, cmd], {
    env: { ...process.env, TMUX: '', SWARM_TEAM: '', ANTHROPIC_API_KEY: '', CLAUDE_CONFIG_DIR: userRoot() },
  });
  const pane = (await listAllPanes(tmux))[0]!.paneId;
  await tmux.run(['set-option', '-w', '-t', pane, 'remain-on-exit', 'on']); // the exit status stays readable
  // Lines joined again: the console's pane is half the window wide once teammates split beside it.
  return { pane, screen: async () => (await capturePane(tmux, pane, 300)).replaceAll('\n', '') };
}

/** The running demo's root, pid (from its marker) and teammates' pids, once all three are spawned. */
async function demoState(): Promise<{ root: string; pid: number; teammatePids: number[] }> {
  return waitFor(async () => {
    const [d] = await listDemoRoots(userRoot());
    if (d?.marker === undefined) return undefined;
    const config = await readTeam(new Team(d.root, 'demo'));
    const pids = config.members.flatMap((m) => (m.name !== 'team-lead' && m.pid !== undefined ? [m.pid] : []));
    return pids.length === 3 ? { root: d.root, pid: d.marker.pid, teammatePids: pids } : undefined;
  }, 30_000, 'the demo root with three spawned teammates');
}

const sessionNames = async (): Promise<string[]> => [...new Set((await listAllPanes(tmux)).map((p) => p.sessionName))].sort();

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
    expect(out).toContain('demo cleaned up');
    expect((await listAllPanes(tmux)).map((p) => p.paneId)).toEqual([pane]);
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
  }, 90_000);

  // The same with the console in a swarm-demo session: test/cli/demo/demo.test.ts (the default demo).
  it('on SIGHUP (its console in its own pane, teammates split beside it): its teammates, panes, session and root are gone, exit 129', async () => {
    const { pane, screen } = await startDemo(false);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('swarm lead · team demo'), 30_000, 'the console');
    expect(await listAllPanes(tmux)).toHaveLength(4);

    process.kill(pid, 'SIGHUP');
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=129'), 30_000, 'the demo to exit 129');
    expect(await screen()).toContain('demo cleaned up');
    expect(await sessionNames()).toEqual(['main']);
    expect((await listAllPanes(tmux)).map((p) => p.paneId)).toEqual([pane]);
    expect(teammatePids.filter((p) => isProcessAlive(p))).toEqual([]);
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
  }, 90_000);

  it('on tmux kill-pane of its pane (the terminal gone, its tty dead): its teammates are stopped and its root removed', async () => {
    const { pane, screen } = await startDemo(false);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('swarm lead · team demo'), 30_000, 'the console');

    await tmux.run(['kill-pane', '-t', pane]);
    await waitFor(() => teammatePids.every((p) => !isProcessAlive(p)) && !isProcessAlive(pid), 30_000, 'the demo and its teammates gone');
    await waitFor(async () => (await demoLeftovers()).length === 0, 10_000, 'the demo root removed');
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
  }, 90_000);

  it('when its stdout is closed (| head -3): what it started is stopped, its root removed, exit 141', async () => {
    const { screen } = await startDemo(true, 'head -3');
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=141'), 40_000, 'the demo to exit 141');
    expect(await sessionNames()).toEqual(['main']);
    expect(await demoLeftovers()).toEqual([]);
  }, 90_000);

  it('on SIGKILL: swarm doctor reports the orphaned demo, and --fix kills its teammates and session and removes its root', async () => {
    const { screen } = await startDemo(true);
    const { root, pid, teammatePids } = await demoState();
    await waitFor(async () => (await screen()).includes('the demo runs until its console exits'), 30_000, 'the demo waiting on its console');
    process.kill(pid, 'SIGKILL');
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=137'), 10_000, 'the demo to die');
    expect(await sessionNames()).toEqual(['main', 'swarm-demo']); // what the issue saw: everything left

    const doctor = async (...args: string[]): Promise<DoctorReport> => {
      const r = await swarm(userRoot(), ['doctor', '--json', ...args], { ...DEMO_ENV(), TMUX: '' });
      return JSON.parse(r.stdout) as DoctorReport;
    };
    // Another root's doctor (another user, another CLAUDE_CONFIG_DIR, another test run): not its demo.
    const other = await swarm(path.join(tmp, 'other-root'), ['doctor', '--json', '--fix'], { ...DEMO_ENV(), TMUX: '' });
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
    expect(await sessionNames()).toEqual(['main']);
    expect(teammatePids.filter((p) => isProcessAlive(p))).toEqual([]);
    await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
    expect((await doctor()).passed).toContain('no orphaned demos');
  }, 90_000);
});
