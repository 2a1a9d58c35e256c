// A proc file system of a test's own, for storage/pid.ts's readers that take a proc root: `self/stat`
// (so it is a /proc at all), the boot id, and per pid a stat line (its state and start time, after
// a command name holding ") " itself, as a real one may) and a command line. Removed with the test.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { tempRoot } from './tmp-root.js';

export interface FakeProcess {
  /** The state letter (field 3); R by default. */
  state?: string;
  /** Clock ticks since boot (field 22); 1000 by default. */
  startTicks?: number;
  /** Written NUL-separated to cmdline, as the kernel does; absent: no cmdline file. */
  cmdline?: string[];
}

export interface FakeProcOptions {
  /** Write `self/stat` (true by default): without it the root is no /proc at all (macOS). */
  self?: boolean;
  /** The boot id; absent: no boot_id file. */
  bootId?: string;
}

/** A stat line: pid, a command name with ") " in it, the state, 18 more fields, then the start time. */
function statLine(pid: string, p: FakeProcess): string {
  return `${pid} (odd) name) ${p.state ?? 'R'} 1 1 1 0 -1 4194304 100 0 0 0 0 0 0 0 20 0 1 0 ${p.startTicks ?? 1000} 1000 100\n`;
}

/** A fresh proc root holding `procs` (keyed by pid), removed when the test finishes. */
export async function fakeProc(procs: Record<number, FakeProcess>, o: FakeProcOptions = {}): Promise<string> {
  const root = await tempRoot('swarm-fake-proc-');
  const write = async (pid: string, p: FakeProcess): Promise<void> => {
    await mkdir(path.join(root, pid), { recursive: true });
    await writeFile(path.join(root, pid, 'stat'), statLine(pid, p));
    if (p.cmdline !== undefined) await writeFile(path.join(root, pid, 'cmdline'), p.cmdline.map((a) => `${a}\0`).join(''));
  };
  if (o.self !== false) await write('self', {});
  if (o.bootId !== undefined) {
    await mkdir(path.join(root, 'sys', 'kernel', 'random'), { recursive: true });
    await writeFile(path.join(root, 'sys', 'kernel', 'random', 'boot_id'), `${o.bootId}\n`);
  }
  for (const [pid, p] of Object.entries(procs)) await write(pid, p);
  return root;
}
