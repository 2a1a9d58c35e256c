// Private tmux servers for tests: one socket name per test (`swarm-test-<random>`), reaped
// afterwards (kill-server on that socket only, then its socket file removed: tmux 3.3a leaves it;
// and its panes' processes waited for: Claude Code writes its session files in CLAUDE_CONFIG_DIR
// after the SIGHUP, and must not do so once the test has removed that root, or into the next test).
// The default server and every other socket are never touched. `tmuxForThisTest` does both for the
// current test, and also ends the processes a test started in it.
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { descendantsOf, isProcessAlive, terminateProcess } from '../../src/backends/process.js';
import { quote } from 'shell-quote';
import { TmuxServer } from '../../src/backends/tmux/commands.js';
import { afterThisTest } from './tmp-root.js';

export function privateSocket(): string {
  return `swarm-test-${randomBytes(6).toString('hex')}`;
}

/** Kill the private server on `socket` and remove its socket file; never another server. */
export async function reapServer(socket: string): Promise<void> {
  if (!socket.startsWith('swarm-test-')) throw new Error(`refusing to kill tmux socket ${socket}`);
  const server = new TmuxServer({ socket });
  const where = await server.tryRun(['display-message', '-p', '#{socket_path}']);
  const uid = process.getuid?.() ?? 0;
  const paths = new Set([path.join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${uid}`, socket)]);
  if (where.exitCode === 0 && where.stdout.trim() !== '') paths.add(where.stdout.trim());
  const listed = await server.tryRun(['list-panes', '-a', '-F', '#{pane_pid}']);
  const panePids = listed.exitCode === 0 ? listed.stdout.split('\n').map(Number).filter((pid) => Number.isInteger(pid) && pid > 0) : [];
  const processes = [...panePids, ...(await descendantsOf(panePids))];
  const killed = await server.tryRun(['kill-server']);
  if (killed.exitCode !== 0 && !/no server running|error connecting/i.test(killed.stderr)) {
    throw new Error(`tmux kill-server on ${socket} failed: ${killed.stderr}`);
  }
  for (const p of paths) await rm(p, { force: true });
  const survivors = (await Promise.all(processes.map(async (pid) => ((await terminateProcess(pid, { waitMs: 3000, termMs: 1000, killMs: 1000 })) ? [] : [pid])))).flat();
  if (survivors.length > 0) throw new Error(`tmux server ${socket} is gone, but its panes' processes ${survivors.join(', ')} survived SIGKILL`);
}

/**
 * A private tmux server for the current test (call it in a beforeEach or the test), reaped when the
 * test finishes, after its afterEach hooks; the processes in `pids` (teammates it started) are
 * killed then too. A cleanup error fails only a test that passed, never hides a failure.
 */
export function tmuxForThisTest(pids?: Set<number>): string {
  const socket = privateSocket();
  afterThisTest(async () => {
    try {
      await reapServer(socket);
    } finally {
      for (const pid of pids ?? []) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
      pids?.clear();
    }
  });
  return socket;
}

/**
 * The env that sends every pane of the CLI under test to the private server `socket`, with
 * `teammate` as the teammate command. TMUX/TMUX_PANE are emptied: a developer running the tests
 * inside tmux must not get panes split there.
 */
export function tmuxEnv(socket: string, teammate: readonly string[]): Record<string, string> {
  return { SWARM_TMUX_SOCKET: socket, SWARM_TEAMMATE_COMMAND: quote([...teammate]), TMUX: '', TMUX_PANE: '' };
}
