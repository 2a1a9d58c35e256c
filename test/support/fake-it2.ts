// A fake `it2` on PATH for tests: a temp dir with `bin/it2` -> support/fake-it2 (the scripted
// stand-in for the Python it2 CLI), its invocation log, and an env that puts that dir first on PATH.
import { readFile, readdir, symlink } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isProcessAlive } from '../../src/backends/process.js';
import { tempRoot } from './tmp-root.js';

export const FAKE_IT2 = fileURLToPath(new URL('./fake-it2', import.meta.url));
export const LEADER = 'LEADER-0000';

/** A temp dir with `bin/it2` -> fake-it2, the fake's log, and an env putting bin first on PATH. */
export class FakeIt2 {
  private constructor(
    readonly dir: string,
    readonly log: string,
    readonly env: Record<string, string | undefined>,
  ) {}

  static async create(extraEnv: Record<string, string> = {}): Promise<FakeIt2> {
    const dir = await tempRoot('swarm-fake-it2-');
    await symlink(FAKE_IT2, path.join(dir, 'it2'));
    const log = path.join(dir, 'it2.log');
    const PATH = [dir, path.dirname(process.execPath), process.env.PATH ?? ''].join(path.delimiter);
    return new FakeIt2(dir, log, { ...process.env, PATH, FAKE_IT2_LOG: log, FAKE_IT2_LEADER: LEADER, ...extraEnv });
  }

  async calls(): Promise<string[][]> {
    const text = await readFile(this.log, 'utf8').catch(() => '');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as string[]);
  }

  /** Kill the process group of every command the fake started (only ours); the dir goes when the test ends. */
  async dispose(): Promise<void> {
    const state = `${this.log}.d`;
    for (const f of await readdir(state).catch(() => [])) {
      if (!f.endsWith('.json')) continue;
      const s = JSON.parse(await readFile(path.join(state, f), 'utf8')) as { pid: number | null };
      if (s.pid !== null && isProcessAlive(s.pid)) {
        try {
          process.kill(-s.pid, 'SIGKILL');
        } catch {
          // gone meanwhile
        }
      }
    }
  }
}

