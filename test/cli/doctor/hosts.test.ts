// `swarm doctor --host <h>` through the built CLI against a private sshd on 127.0.0.1
// (support/sshd.ts): a healthy host (ssh, tmux, the teammate command, the shared root listed as
// passed), then (in process) a teammate command missing there, a root the host does not share
// (SWARM_REMOTE_ROOT elsewhere) and an unknown host key, each a problem whose fix says what to do.
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { execaExec } from '../../../src/backends/process.js';
import { checkHosts, judgeHost } from '../../../src/cli/doctor/hosts.js';
import { SWARM_BIN, swarm } from '../../support/cli.js';
import { SSH_SKIP, SSH_TEST_HOST, startSshd, type TestSshd } from '../../support/sshd.js';
import { tempRoot, useTempRoot } from '../../support/tmp-root.js';

interface Report {
  passed: string[];
  findings: { check: string; severity: string; problem: string; fix: string; fixable: boolean }[];
}

let root: string;
let sshd: TestSshd;
useTempRoot((dir) => (root = dir), 'swarm-doc-host-');

async function doctor(env: Record<string, string>): Promise<Report> {
  const r = await swarm(root, ['doctor', '--host', SSH_TEST_HOST, '--json'], { SWARM_TEAMMATE_COMMAND: quote([process.execPath, SWARM_BIN]), ...env });
  return JSON.parse(r.stdout) as Report;
}
const hostFindings = (r: Report) => r.findings.filter((f) => f.check.startsWith('ssh_host'));

describe('a host whose swarm is another version', () => {
  it('is a warning naming both versions and the install that matches this one; the same version, or none asked (SWARM_TEAMMATE_COMMAND), is not', () => {
    const host = (swarm: { shown: string; version?: string }) => ({ host: 'ci@build1', reach: undefined, swarm: { command: 'swarm', ...swarm } });
    expect(judgeHost(host({ shown: '0.0.9', version: '0.0.9' }), '0.1.0').findings).toEqual([
      {
        check: 'ssh_host_swarm_version',
        severity: 'warning',
        problem: "host ci@build1: swarm 0.0.9 there, 0.1.0 here; both sides read and write the team's files, so a difference can break them",
        fix: 'install the same version there: npm install -g swarm-launcher@0.1.0',
      },
    ]);
    expect(judgeHost(host({ shown: '0.1.0', version: '0.1.0' }), '0.1.0').findings).toEqual([]);
    expect(judgeHost(host({ shown: '(SWARM_TEAMMATE_COMMAND) at /opt/node-v20.20.2/bin/node' }), '0.1.0').findings).toEqual([]);
  });

  it('a tmux there older than 3.2 is a problem saying to upgrade it; 3.2 and newer pass', () => {
    const host = (tmux: string) => ({ host: 'ci@build1', reach: undefined, tmux: { version: tmux } });
    expect(judgeHost(host('tmux 3.1c')).findings).toEqual([
      { check: 'ssh_host_tmux', severity: 'problem', problem: 'host ci@build1: tmux 3.1c there is older than 3.2', fix: 'upgrade tmux on it to 3.2 or newer' },
    ]);
    expect(judgeHost(host('tmux 3.2')).findings).toEqual([]);
    expect(judgeHost(host('tmux 3.3a')).passed).toEqual(['host ci@build1: reachable over ssh (no prompt)', 'host ci@build1: tmux 3.3a']);
  });
});

describe.skipIf(SSH_SKIP !== undefined)('swarm doctor --host', () => {
  beforeEach(async () => {
    sshd = await startSshd();
    sshd.closeMastersUnder(root);
  });

  it('a healthy host: reachable, tmux, the teammate command and the shared root all pass', async () => {
    const r = await doctor({ SWARM_SSH_COMMAND: sshd.sshCommand });
    expect(hostFindings(r)).toEqual([]);
    expect(r.passed).toContainEqual(expect.stringMatching(new RegExp(`^the team root ${root} is on .*: .*changes.* reach watchers .*poll`)));
    const about = r.passed.filter((p) => p.startsWith(`host ${SSH_TEST_HOST}: `));
    expect(about).toEqual([
      `host ${SSH_TEST_HOST}: reachable over ssh (no prompt)`,
      expect.stringMatching(new RegExp(`^host ${SSH_TEST_HOST}: tmux \\d`)),
      `host ${SSH_TEST_HOST}: ${process.execPath} (SWARM_TEAMMATE_COMMAND) at ${process.execPath}`,
      `host ${SSH_TEST_HOST}: the team root is shared (${root} there)`,
    ]);
  });

  it('no swarm there, a root the host does not share, a relative SWARM_REMOTE_ROOT, an unknown host key: problems saying what to do', async () => {
    // In process (the CLI path is the test above): the same check doctor runs.
    const elsewhere = await tempRoot('swarm-doc-elsewhere-');
    await mkdir(path.join(elsewhere, 'swarm'));
    const check = (env: Record<string, string>) => checkHosts({ root, env, exec: execaExec, now: Date.now(), isAlive: () => true, hosts: [SSH_TEST_HOST] });
    const notShared = (await check({ SWARM_SSH_COMMAND: sshd.sshCommand, SWARM_REMOTE_ROOT: elsewhere, SWARM_TEAMMATE_COMMAND: 'swarm-not-installed-here teammate' })).findings;
    expect(notShared).toEqual([
      {
        check: 'ssh_host_swarm',
        severity: 'problem',
        problem: `host ${SSH_TEST_HOST}: swarm-not-installed-here is not on its PATH`,
        fix: 'install swarm there (npm install -g swarm-launcher), or set SWARM_TEAMMATE_COMMAND to what runs it there',
      },
      {
        check: 'ssh_host_root',
        severity: 'problem',
        problem: expect.stringContaining(`host ${SSH_TEST_HOST}: the team root ${root} is not shared with ${SSH_TEST_HOST} at SWARM_REMOTE_ROOT=${elsewhere}`),
        fix: `mount it there (NFS or sshfs), or set SWARM_REMOTE_ROOT to where ${SSH_TEST_HOST} mounts it`,
      },
    ]);
    const relative = (await check({ SWARM_SSH_COMMAND: sshd.sshCommand, SWARM_REMOTE_ROOT: 'mnt/claude', SWARM_TEAMMATE_COMMAND: process.execPath })).findings;
    expect(relative).toEqual([
      {
        check: 'ssh_host_root',
        severity: 'problem',
        problem: `host ${SSH_TEST_HOST}: SWARM_REMOTE_ROOT="mnt/claude" is not an absolute path`,
        fix: 'set it to where the hosts mount the team root (e.g. /mnt/claude)',
      },
    ]);
    const unknown = (await check({ SWARM_SSH_COMMAND: quote(['ssh', '-F', sshd.unknownKeyConfig]) })).findings;
    expect(unknown).toEqual([
      {
        check: 'ssh_host',
        severity: 'problem',
        problem: expect.stringMatching(new RegExp(`^ssh ${SSH_TEST_HOST}: its host key is not known here`)),
        fix: `run \`ssh ${SSH_TEST_HOST}\` once to check and accept it, then spawn again`,
      },
    ]);
  });
});
