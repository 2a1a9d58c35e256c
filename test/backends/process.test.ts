// What a pane's process started (backends/process.ts descendantsOf), read from one `ps` table given
// here through the injected Exec: children first, then theirs; several roots from the same one
// table; none when `ps` cannot be run.
import { describe, expect, it } from 'vitest';
import { descendantsOf, type Exec } from '../../src/backends/process.js';

/** A `ps -A -o pid= -o ppid=` of these [pid, ppid] rows, counting how often it runs. */
function psOf(rows: [number, number][]): { exec: Exec; runs: () => number } {
  let runs = 0;
  const exec: Exec = async (file, args) => {
    runs++;
    expect([file, ...args]).toEqual(['ps', '-A', '-o', 'pid=', '-o', 'ppid=']);
    return { exitCode: 0, stdout: rows.map(([pid, ppid]) => `${String(pid).padStart(7)} ${String(ppid).padStart(7)}`).join('\n'), stderr: '' };
  };
  return { exec, runs: () => runs };
}

//   1 ─ 10 ─ 11 ─ 12        20 ─ 21        30 (no children)
const TABLE: [number, number][] = [[1, 0], [10, 1], [11, 10], [12, 11], [13, 10], [20, 1], [21, 20], [30, 1]];

describe('descendantsOf', () => {
  it("lists a process's children, then theirs, never the process itself", async () => {
    expect(await descendantsOf(10, psOf(TABLE).exec)).toEqual([11, 13, 12]);
    expect(await descendantsOf(30, psOf(TABLE).exec)).toEqual([]);
  });

  it('takes several processes from one ps, each descendant once, none of the roots', async () => {
    const ps = psOf(TABLE);
    expect((await descendantsOf([10, 20, 11], ps.exec)).sort((a, b) => a - b)).toEqual([12, 13, 21]);
    expect(ps.runs()).toBe(1);
    const none = psOf(TABLE);
    expect(await descendantsOf([], none.exec)).toEqual([]);
    expect(none.runs()).toBe(0);
  });

  it('is empty when ps cannot be run', async () => {
    expect(await descendantsOf(10, async () => ({ exitCode: 127, stdout: '', stderr: 'ENOENT' }))).toEqual([]);
  });
});
