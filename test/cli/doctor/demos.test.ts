// `swarm doctor`'s demo check, in-process: it judges only the demos its own root recorded
// (`<root>/swarm/demos/`), whatever else sits in the temp dir; a record whose root is gone is a
// warning that --fix removes; a record naming something that is not a demo root is never touched.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkDemos } from '../../../src/cli/doctor/demos.js';
import type { DoctorContext } from '../../../src/cli/doctor/machine-checks.js';
import { listDemoRoots, makeDemoRoot } from '../../../src/cli/demo/root.js';
import { demosDir } from '../../../src/team/paths.js';
import { tempRoot } from '../../support/tmp-root.js';

const ctxFor = (root: string): DoctorContext => ({
  root,
  env: { SWARM_TMUX_SOCKET: 'swarm-test-none-running' },
  exec: () => Promise.reject(new Error('no exec here')),
  now: Date.now(),
  isAlive: () => false, // every demo's process is gone
});

describe('the demo check', () => {
  it("reports and fixes only the demos its own root recorded; another root's dead demo is left alone", async () => {
    const tmp = await tempRoot();
    const [mine, theirs] = [path.join(tmp, 'mine'), path.join(tmp, 'theirs')];
    const myDemo = await makeDemoRoot(tmp, mine, { pid: 999_999, startedAt: 1 });
    const theirDemo = await makeDemoRoot(tmp, theirs, { pid: 999_998, startedAt: 1 });
    const [finding, ...more] = (await checkDemos(ctxFor(mine))).findings;
    expect(more).toEqual([]);
    expect(finding).toMatchObject({ check: 'orphan_demo', severity: 'problem', path: myDemo });
    expect(await finding!.apply!()).toBe(`killed 0 teammates, removed ${myDemo}`);
    await expect(fs.access(myDemo)).rejects.toThrow(/ENOENT/);
    expect(await listDemoRoots(mine)).toEqual([]);
    await fs.access(theirDemo); // untouched
    expect((await checkDemos(ctxFor(mine))).passed).toEqual(['no orphaned demos']);
  });

  it('a record whose root is gone is a warning; --fix removes the record', async () => {
    const tmp = await tempRoot();
    const root = path.join(tmp, 'root');
    const demo = await makeDemoRoot(tmp, root, { pid: 999_999, startedAt: 1 });
    await fs.rm(demo, { recursive: true }); // the temp dir was cleaned (a reboot)
    const [finding] = (await checkDemos(ctxFor(root))).findings;
    expect(finding).toMatchObject({ severity: 'warning', problem: `a swarm demo this root started left its record, but its root ${demo} is gone` });
    await finding!.apply!();
    expect(await fs.readdir(demosDir(root))).toEqual([]);
  });

  it('a record naming a path that is not its demo root (edited by hand) is skipped, the path never removed', async () => {
    const tmp = await tempRoot();
    const root = path.join(tmp, 'root');
    const precious = path.join(tmp, 'precious');
    await fs.mkdir(precious);
    await fs.writeFile(path.join(precious, 'demo.json'), JSON.stringify({ pid: 999_999, startedAt: 1 }));
    await fs.mkdir(demosDir(root), { recursive: true });
    await fs.writeFile(path.join(demosDir(root), 'swarm-demo-abc.json'), JSON.stringify({ pid: 999_999, startedAt: 1, root: precious }));
    expect(await listDemoRoots(root)).toEqual([]);
    expect((await checkDemos(ctxFor(root))).findings).toEqual([]);
    await fs.access(precious);
  });
});
