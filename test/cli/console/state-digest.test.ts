// What wakes the console's status refresh (src/cli/console/state-digest.ts, rosterDigest in
// team-store.ts): a heartbeat that rewrites a status file with the same state is no news, a new
// state or a new member is; a status file whose size and mtime did not move is not read again; the
// lease's renewal of config.json is no news, a roster change is.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateDigest } from '../../../src/cli/console/state-digest.js';
import { createTeam, readTeam, rosterDigest, updateMember, updateTeam, addMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-digest-');

const status = (state: string, heartbeatAt: number) => JSON.stringify({ name: 'w1', pid: 4242, state, heartbeatAt });

describe('StateDigest', () => {
  it('a heartbeat is no news; a state change, a new file and a removed one are', async () => {
    const dir = path.join(root, 'status');
    await fs.mkdir(dir);
    const file = path.join(dir, 'w1.json');
    await fs.writeFile(file, status('idle', 1));
    const digest = new StateDigest(dir);
    const first = await digest.read();
    expect(first).toBe('w1.json:idle:4242');
    await fs.writeFile(file, status('idle', 2000));
    expect(await digest.read()).toBe(first);
    await fs.writeFile(file, status('working', 3000));
    expect(await digest.read()).toBe('w1.json:working:4242');
    await fs.writeFile(path.join(dir, 'w2.json'), 'not json');
    expect(await digest.read()).toBe('w1.json:working:4242|w2.json:unreadable');
    await fs.rm(file);
    expect(await digest.read()).toBe('w2.json:unreadable');
  });

  it('a file whose size and mtime did not move is not parsed again', async () => {
    const dir = path.join(root, 'status');
    await fs.mkdir(dir);
    const file = path.join(dir, 'w1.json');
    await fs.writeFile(file, status('idle', 1));
    const mtime = new Date(1_700_000_000_000);
    await fs.utimes(file, mtime, mtime);
    const digest = new StateDigest(dir);
    await digest.read();
    // Same byte count and mtime, other content: a re-read would see it unreadable; the cache keeps what it read.
    const handle = await fs.open(file, 'r+');
    await handle.write(Buffer.from('x'), 0, 1, 0);
    await handle.close();
    await fs.utimes(file, mtime, mtime);
    expect(await digest.read()).toBe('w1.json:idle:4242');
  });
});

describe('StateDigest with the names a watcher gave', () => {
  it('once listed, it looks only at the files named: a named removal leaves, an unnamed change is not seen until a full look', async () => {
    const dir = path.join(root, 'status');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'w1.json'), status('idle', 1));
    await fs.writeFile(path.join(dir, 'w2.json'), JSON.stringify({ name: 'w2', pid: 4343, state: 'idle', heartbeatAt: 1 }));
    const digest = new StateDigest(dir);
    expect(await digest.read(new Set(['w1.json']))).toBe('w1.json:idle:4242|w2.json:idle:4343'); // the first look lists all
    await fs.writeFile(path.join(dir, 'w1.json'), status('working', 2));
    await fs.writeFile(path.join(dir, 'w2.json'), JSON.stringify({ name: 'w2', pid: 4343, state: 'working', heartbeatAt: 2 }));
    expect(await digest.read(new Set(['w1.json', 'w1.json.tmp-1-ab']))).toBe('w1.json:working:4242|w2.json:idle:4343');
    await fs.rm(path.join(dir, 'w1.json'));
    await fs.writeFile(path.join(dir, 'w3.json'), 'not json');
    expect(await digest.read(new Set(['w1.json', 'w3.json']))).toBe('w2.json:idle:4343|w3.json:unreadable');
    expect(await digest.read('all')).toBe('w2.json:working:4343|w3.json:unreadable');
  });
});

describe('rosterDigest', () => {
  it("the lease's renewal is no news; a member's change is", async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    await addMember(team, { name: 'w1', cwd: root });
    const before = rosterDigest(await readTeam(team));
    await updateTeam(team, (c) => {
      c.leadProcess = { pid: 1, claimedAt: 1, renewedAt: Date.now() };
    });
    expect(rosterDigest(await readTeam(team))).toBe(before);
    await updateMember(new Team(root, 't'), 'w1', { hibernatedAt: 5 });
    expect(rosterDigest(await readTeam(team))).not.toBe(before);
  });
});
