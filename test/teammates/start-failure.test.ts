// A failed start's error: the pane's last output, and the stderr lines the capture lacks (a process
// that dies at once can be gone before tmux has drawn its last line), taken from its stderr log,
// also when that log's tee writes them only after the failure was seen.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend } from '../../src/backends/backend.js';
import { abandonPane, startFailure } from '../../src/teammates/readiness.js';
import { tempRoot } from '../support/tmp-root.js';

describe('startFailure', () => {
  it('adds the stderr lines the pane capture lacks, after the pane lines; none lacking, it names the log', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, 'boom: no key\n');
    const cause = new Error('w1 exited before it was ready');
    const raced = await startFailure('spawn of w1 failed', log, { lines: ['starting w1'], exit: { code: 3 } }, [], cause);
    expect(raced.message).toBe(`spawn of w1 failed: w1 exited before it was ready (exit status 3)\nlast output of its pane:\n  starting w1\nthen on its stderr (${log}):\n  boom: no key`);
    const drawn = await startFailure('spawn of w1 failed', log, { lines: ['starting w1', 'boom: no key'], exit: { code: 3 } }, [], cause);
    expect(drawn.message.split('\n').slice(1)).toEqual(['last output of its pane:', '  starting w1', '  boom: no key', `its stderr is kept in ${log}`]);
  });

  it('waits for a stderr log written late (its tee outlives the teammate), and no longer than the settle time for one that stays empty', async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, '');
    const cause = new Error('w1 exited before it was ready');
    const late = setTimeout(() => void fs.appendFile(log, 'boom: no key\n'), 300);
    const raced = await startFailure('spawn of w1 failed', log, { lines: ['starting w1'], exit: { code: 3 } }, [], cause, 5000);
    clearTimeout(late);
    expect(raced.message).toContain(`then on its stderr (${log}):\n  boom: no key`);
    await fs.writeFile(log, '');
    const started = Date.now();
    const quiet = await startFailure('spawn of w1 failed', log, { lines: ['starting w1'], exit: { code: 3 } }, [], cause, 200);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(quiet.message.split('\n').slice(1)).toEqual(['last output of its pane:', '  starting w1']);
  });

  it("a pane whose process has ended: its log is read before the kill, which would end the tee still copying it", async () => {
    const log = path.join(await tempRoot(), 'w1.stderr');
    await fs.writeFile(log, '');
    let killed = false;
    const backend = { capture: async () => ({ lines: ['starting w1'], exit: { code: 3 } }), kill: async () => void (killed = true) } as unknown as Backend;
    const tee = setTimeout(() => void (killed || fs.appendFile(log, 'boom: no key\n')), 300); // the tee, late on a loaded machine
    const problems: string[] = [];
    const output = await abandonPane(backend, { paneId: '%1', backendType: 'tmux' }, problems, log);
    clearTimeout(tee);
    expect(killed).toBe(true);
    const e = await startFailure('spawn of w1 failed', log, output, problems, new Error('w1 exited before it was ready'));
    expect(e.message).toContain(`then on its stderr (${log}):\n  boom: no key`);
  });
});

