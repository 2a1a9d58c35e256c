// One leader per team while an agent lead runs: `swarm run` and `swarm lead --agent` on a team whose
// recorded leader process lives are refused before anything starts; a headless run records itself
// as the leader and gives the record back at the end. A lease no live holder proves (pid 1 from
// before a reboot, a live `sleep`, a renewal dated 2100) refuses nothing.
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { claimLeadProcess, refuseOtherLeader } from '../../../src/cli/run/lead-process.js';
import { leaseSelf } from '../../../src/team/lead-lease.js';
import { createTeam, readTeam, updateTeam } from '../../../src/team/team-store.js';
import { execa } from 'execa';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { forgedLeases } from '../../support/forged-leases.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-lead-process-');

describe('one leader per team for an agent lead', () => {
  it('refuses swarm run and swarm lead --agent while another leader lives', async () => {
    const { team } = await createTeam(root, { name: 'busy' });
    await updateTeam(team, (c) => void (c.leadProcess = { pid: process.pid, claimedAt: Date.now() })); // this test process: alive
    const run = await swarm(root, ['run', '-p', 'anything', '--team', 'busy'], { ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(run.exitCode).toBe(1);
    expect(run.stderr).toMatch(/team busy is led by pid \d+/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    // A pipe for stdin (a scripted console): the terminal check passes, the leader check refuses.
    const lead = await execa(process.execPath, [SWARM_BIN, 'lead', '--agent', '--team', 'busy'], { env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' }, input: '', reject: false });
    expect(lead.exitCode).toBe(1);
    expect(String(lead.stderr)).toMatch(/team busy is led by pid \d+/);
  });

  it('claims the team for this process and gives it back; a dead leader does not count', async () => {
    const { team } = await createTeam(root, { name: 'free' });
    await updateTeam(team, (c) => void (c.leadProcess = { pid: 2 ** 22 + 12345, claimedAt: 0 })); // no such process
    // Above the largest pid Linux gives (2^22), so no process has it: a small one, say 4242, is some
    // other process's now and then (pids wrap at 32768 here, and a run starts thousands).
    const dead = 2 ** 22 + 4242;
    const release = await claimLeadProcess(team, 'headless', leaseSelf('headless', dead));
    expect((await readTeam(team)).leadProcess).toMatchObject({ pid: dead, kind: 'headless' });
    await expect(claimLeadProcess(team, 'headless')).resolves.toBeTypeOf('function'); // `dead` is not alive
    await release(); // not ours any more: left alone
    expect((await readTeam(team)).leadProcess?.pid).toBe(process.pid);
  });

  it('a forged or stale lease refuses neither swarm run --team nor a headless run', async () => {
    for (const [i, [what, lease]] of (await forgedLeases(os.hostname())).entries()) {
      const { team } = await createTeam(root, { name: `forged-${i}` });
      await updateTeam(team, (c) => void (c.leadProcess = lease));
      await expect(refuseOtherLeader(team), what).resolves.toBeUndefined(); // swarm run, swarm lead --agent
      const release = await claimLeadProcess(team, 'headless'); // swarm run -p
      expect((await readTeam(team)).leadProcess, what).toMatchObject({ pid: process.pid, kind: 'headless' });
      await release();
      expect((await readTeam(team)).leadProcess, what).toBeUndefined();
    }
  });
});
