// `swarm demo` in a pane of a private tmux server, as the demo's tests run it: per test a temp dir
// (the demo's TMPDIR, so its private root lands there; removed afterwards) holding the user's root
// (the demo's CLAUDE_CONFIG_DIR, where it records itself), and a private server (reaped). The demo
// runs in the first pane of session `main`, with its exit status kept readable on the screen.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { beforeEach, expect } from 'vitest';
import { isProcessAlive } from '../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes } from '../../src/backends/tmux/commands.js';
import { listDemoRoots } from '../../src/cli/demo/root.js';
import { SWARM_BIN } from './cli.js';
import { useTempRoot } from './tmp-root.js';
import { tmuxForThisTest } from './tmux.js';
import { waitFor } from './wait.js';

export interface DemoPanes {
  tmp: string;
  socket: string;
  tmux: TmuxServer;
}

/** Registers the beforeEach that makes each test's temp dir and server, and passes them to `set`. */
export function useDemoPanes(set: (d: DemoPanes) => void): void {
  let tmp = '';
  useTempRoot((dir) => (tmp = dir), 'swarm-demo-test-');
  beforeEach(() => {
    const socket = tmuxForThisTest();
    set({ tmp, socket, tmux: new TmuxServer({ socket }) });
  });
}

/** The root the demo runs under (its CLAUDE_CONFIG_DIR, where it records itself); the demo never uses it otherwise. */
export const userRoot = (d: DemoPanes): string => path.join(d.tmp, 'user-root');

/** What a demo left: its records under the user's root, and demo roots in the temp dir. */
export async function demoLeftovers(d: DemoPanes): Promise<string[]> {
  return [...(await listDemoRoots(userRoot(d))).map((r) => r.root), ...(await fs.readdir(d.tmp)).filter((n) => n.startsWith('swarm-demo-'))];
}

/** The env the demo (and `swarm doctor` after it) gets: this test's server and temp dir, fast polls. */
export const demoEnv = (d: DemoPanes): Record<string, string> => ({ SWARM_TMUX_SOCKET: d.socket, TMPDIR: d.tmp, SWARM_POLL_MS: '250', SWARM_HEARTBEAT_MS: '500' });

/** `swarm demo <args>` as a shell word list. */
export const demoCommand = (args: readonly string[]): string => quote([process.execPath, SWARM_BIN, 'demo', ...args]);

/**
 * Runs the shell command `cmd` (a demoCommand, wrapped) in the first pane of the server, `size`
 * columns by rows; `screen` is its last `lines` lines joined again (the console's pane is narrow
 * once teammates split beside it).
 */
export async function startDemoPane(d: DemoPanes, cmd: string, size: [number, number] = [200, 50], lines = 300): Promise<{ pane: string; screen: () => Promise<string> }> {
  const flags = Object.entries(demoEnv(d)).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  await execa('tmux', ['-L', d.socket, 'new-session', '-d', '-s', 'main', '-x', String(size[0]), '-y', String(size[1]), ...flags, '-c', d.tmp, cmd], {
    env: { ...process.env, TMUX: '', SWARM_TEAM: '', ANTHROPIC_API_KEY: '', CLAUDE_CONFIG_DIR: userRoot(d) },
  });
  const pane = (await listAllPanes(d.tmux))[0]!.paneId;
  await d.tmux.run(['set-option', '-w', '-t', pane, 'remain-on-exit', 'on']); // the exit status stays readable
  return { pane, screen: async () => (await capturePane(d.tmux, pane, lines)).replaceAll('\n', '') };
}

/** The server's session names, sorted. */
export async function sessionNames(d: DemoPanes): Promise<string[]> {
  return [...new Set((await listAllPanes(d.tmux)).map((p) => p.sessionName))].sort();
}

/** The demo has ended cleanly: `screen` says it cleaned up, only its own `pane` is left, its `root` is gone. */
export async function expectDemoCleanedUp(d: DemoPanes, screen: string, pane: string, root: string): Promise<void> {
  expect(screen).toContain('demo cleaned up');
  expect((await listAllPanes(d.tmux)).map((p) => p.paneId)).toEqual([pane]);
  await expect(fs.access(root)).rejects.toThrow(/ENOENT/);
}

/** SIGHUP (the terminal closed) to the demo's `pid`: it exits 129 with its teammates, their panes and sessions, and its root gone. */
export async function expectHangUpCleansUp(d: DemoPanes, demo: { pid: number; pane: string; root: string; teammatePids: number[]; screen: () => Promise<string> }): Promise<void> {
  process.kill(demo.pid, 'SIGHUP');
  await waitFor(async () => (await demo.screen()).includes('DEMO-EXIT=129'), 30_000, 'the demo to exit 129');
  await expectDemoCleanedUp(d, await demo.screen(), demo.pane, demo.root);
  expect(await sessionNames(d)).toEqual(['main']);
  expect(demo.teammatePids.filter((p) => isProcessAlive(p))).toEqual([]);
}
