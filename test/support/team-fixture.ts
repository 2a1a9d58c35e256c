// Building blocks for tests of `swarm status` and `swarm doctor`: real child processes standing in
// for teammates (a live `sleep`, ended when its test finishes, or the pid of one that has exited
// and been reaped), and writers for the files a teammate and a worker leave behind
// (status/<name>.json, pending requests).
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { writePending } from '../../src/permissions/pending.js';
import { newPermissionId } from '../../src/protocol/ids.js';
import { PendingRequestSchema } from '../../src/protocol/permission.js';
import { StatusFileSchema, type StatusFile } from '../../src/protocol/status.js';
import { ensureDir, formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { teamPaths } from '../../src/team/paths.js';
import { afterThisTest } from './tmp-root.js';

const children = new Set<ChildProcess>();

/**
 * A live process (`sleep`) to stand in for a teammate (call it in a test or a beforeEach). It is
 * killed when its test finishes; reapChildren() kills every one still running sooner, for a test
 * about a teammate that exits.
 */
export async function startSleeper(): Promise<number> {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  children.add(child);
  afterThisTest(() => reap([child]));
  await once(child, 'spawn');
  return child.pid!;
}

/** The pid of a process that has exited and been reaped (so it is dead, not a zombie). */
export async function deadPid(): Promise<number> {
  const child = spawn('true', [], { stdio: 'ignore' });
  const pid = child.pid!;
  await once(child, 'exit');
  return pid;
}

/** SIGKILL every sleeper still running and wait for each exit. */
export async function reapChildren(): Promise<void> {
  await reap([...children]);
}

/** SIGKILL each of `all` still running (each leaves the set at once) and wait for its exit. */
async function reap(all: ChildProcess[]): Promise<void> {
  await Promise.all(
    all.map(async (c) => {
      children.delete(c);
      if (c.exitCode !== null || c.signalCode !== null) return;
      const exited = once(c, 'exit');
      c.kill('SIGKILL');
      await exited;
    }),
  );
}

export async function writeStatus(root: string, team: string, name: string, s: Omit<Partial<StatusFile>, 'name'> & { pid: number }): Promise<void> {
  const p = teamPaths(root, team);
  await ensureDir(p.statusDir);
  const record = StatusFileSchema.parse({ name, state: 'working', heartbeatAt: Date.now(), ...s });
  await writeFileAtomic(p.status(name), formatJson(record));
}

/** A pending permission request from `worker` (as the worker side writes it); returns its id. */
export async function writePendingFor(root: string, team: string, worker: string, extra: { workerPid?: number } = {}): Promise<string> {
  const id = newPermissionId();
  await writePending(
    teamPaths(root, team),
    PendingRequestSchema.parse({
      id,
      workerId: `${worker}@${team}`,
      workerName: worker,
      teamName: team,
      toolName: 'Bash',
      toolUseId: `toolu_${id}`,
      description: 'run the tests',
      input: { command: 'npm test' },
      permissionSuggestions: [],
      status: 'pending',
      createdAt: Date.now(),
      ...extra,
    }),
  );
  return id;
}
