// The leader lease in config.json: claimed when free, kept by a live holder (its unknown fields too),
// taken over once the holder's pid is gone (or, on another host, once its renewal is stale), handed
// over by a console when a live watcher asks, never by an agent lead; a keeper's tick notices.
import { describe, expect, it } from 'vitest';
import { createTeam, readTeam, updateTeam } from '../../src/team/team-store.js';
import { FOREIGN_STALE_MS, LeaseKeeper, leaseSelf, releaseLease, requestTakeOver, syncLease, type LeaseState } from '../../src/team/lead-lease.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-lead-lease-');

const DEAD = 2 ** 22 + 12345; // no such process
// Two live processes: this test (the holder) and its parent (the watcher asking).
const holder = leaseSelf('console', process.pid, 'here');
const watcher = leaseSelf('console', process.ppid, 'here');

describe('the leader lease', () => {
  it('a live holder keeps it and its unknown fields; a dead or stale one loses it', async () => {
    const { team } = await createTeam(root, { name: 'l1' });
    await updateTeam(team, (c) => void (c.leadProcess = { pid: process.pid, claimedAt: 1, sessionId: 'claude-code' }));
    expect(await syncLease(team, watcher)).toEqual({ role: 'watcher', holder: { pid: process.pid, claimedAt: 1, sessionId: 'claude-code' } });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.pid, claimedAt: 1, sessionId: 'claude-code' });

    await updateTeam(team, (c) => void (c.leadProcess = { pid: DEAD, claimedAt: 1 }));
    expect(await syncLease(team, watcher, 5000)).toEqual({ role: 'holder' });
    expect((await readTeam(team)).leadProcess).toEqual({ pid: process.ppid, claimedAt: 5000, renewedAt: 5000, host: 'here', kind: 'console' });

    // Another host's pid cannot be checked: its renewal decides.
    const now = Date.now();
    await updateTeam(team, (c) => void (c.leadProcess = { pid: DEAD, claimedAt: 1, host: 'there', renewedAt: now }));
    expect((await syncLease(team, watcher, now + 1000)).role).toBe('watcher');
    expect((await syncLease(team, watcher, now + FOREIGN_STALE_MS)).role).toBe('holder');
    await releaseLease(team, watcher);
    expect((await readTeam(team)).leadProcess).toBeUndefined();
  });

  it('a console holder hands over to a live asker; an agent lead refuses to', async () => {
    const { team } = await createTeam(root, { name: 'l2' });
    expect(await syncLease(team, holder)).toEqual({ role: 'holder' });
    expect((await requestTakeOver(team, watcher)).role).toBe('watcher');
    expect((await readTeam(team)).leadProcess?.takeOver?.pid).toBe(process.ppid);
    expect(await syncLease(team, holder)).toMatchObject({ role: 'watcher', holder: { pid: process.ppid, kind: 'console' } });
    expect(await syncLease(team, watcher)).toEqual({ role: 'holder' });

    await releaseLease(team, watcher);
    const run = leaseSelf('headless', process.pid, 'here');
    expect(await syncLease(team, run)).toEqual({ role: 'holder' });
    await expect(requestTakeOver(team, watcher)).rejects.toThrow(/led by pid \d+ \(a headless run\), which keeps team-lead's inbox/);
  });

  it("a watcher's keeper takes over within a tick once the holder is gone", async () => {
    const { team } = await createTeam(root, { name: 'l3' });
    await updateTeam(team, (c) => void (c.leadProcess = { pid: process.pid, claimedAt: 1, kind: 'console' }));
    const changes: LeaseState[] = [];
    const keeper = await LeaseKeeper.open(team, watcher, { tickMs: 20, onChange: (s) => changes.push(s) });
    try {
      expect(keeper.state.role).toBe('watcher');
      await updateTeam(team, (c) => void (c.leadProcess = { pid: DEAD, claimedAt: 1, kind: 'console' })); // the holder died
      await waitFor(() => keeper.holding, 2000, 'the take-over');
      expect(changes).toEqual([{ role: 'holder' }]);
      expect((await readTeam(team)).leadProcess?.pid).toBe(process.ppid);
    } finally {
      await keeper.close();
    }
    expect((await readTeam(team)).leadProcess).toBeUndefined(); // released on close
  });
});
