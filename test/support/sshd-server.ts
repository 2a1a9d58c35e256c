// A private sshd on 127.0.0.1 (the ssh backend's "remote" host in tests and benchmarks), with no
// test-runner dependency: its own host key, user key, authorized_keys, config and pid file in a
// given dir, on a free port, and an ssh client config naming it `swarm-test` (known_hosts
// pre-seeded, StrictHostKeyChecking yes) for `SWARM_SSH_COMMAND="ssh -F <file>"`. The machine's
// sshd, ~/.ssh and keys are never touched. `stop` asks ssh's shared connections under the roots
// given to exit, then kills this sshd by its pid. test/support/sshd.ts ties it to a test.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { isProcessAlive, pollUntil } from '../../src/backends/process.js';

export const SSH_TEST_HOST = 'swarm-test';

export interface PrivateSshd {
  dir: string;
  port: number;
  pid: number;
  /** The ssh client config naming `swarm-test`. */
  config: string;
  /** `ssh -F <config>`: the value for SWARM_SSH_COMMAND. */
  sshCommand: string;
  /** A client config for the same host with an empty known_hosts (the unknown-host-key case). */
  unknownKeyConfig: string;
  /** A client config for the same host without the user's key (a login that would need a password). */
  noKeyConfig: string;
  /** Ask ssh's shared connections under `root` (`<root>/swarm/ssh/*`) to exit. */
  closeMastersUnder(root: string): Promise<void>;
  /** Kill this sshd (by its pid) and wait until it is gone. */
  stop(): Promise<void>;
}

export function sshdBinary(): string {
  for (const p of ['/usr/sbin/sshd', '/usr/local/sbin/sshd', '/sbin/sshd']) if (existsSync(p)) return p;
  throw new Error('sshd is not installed: apt-get install -y openssh-server (.ci/run does it)');
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
  });
}

async function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const c = net.connect(port, '127.0.0.1');
    c.once('connect', () => {
      c.destroy();
      resolve(true);
    });
    c.once('error', () => resolve(false));
  });
}

/** sshd refuses to start without its privilege separation dir (/run/sshd, made by the service unit). */
async function ensurePrivsepDir(): Promise<void> {
  if (existsSync('/run/sshd')) return;
  if (process.getuid?.() !== 0) throw new Error('sshd needs /run/sshd: create it (mkdir -p -m 0755 /run/sshd as root)');
  await mkdir('/run/sshd', { mode: 0o755, recursive: true });
}

/** Start a private sshd whose files live in `dir` (an empty private dir the caller removes). */
export async function startSshdIn(dir: string): Promise<PrivateSshd> {
  const hostKey = path.join(dir, 'host');
  const userKey = path.join(dir, 'user');
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', hostKey]);
  await execa('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', userKey]);
  await writeFile(path.join(dir, 'authorized_keys'), await readFile(`${userKey}.pub`), { mode: 0o600 });
  const port = await freePort();
  const sshdConfig = path.join(dir, 'sshd_config');
  await writeFile(
    sshdConfig,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${hostKey}`,
      `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
      `PidFile ${path.join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'UsePAM no',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'PubkeyAuthentication yes',
      'MaxSessions 50',
      'MaxStartups 50',
      'LogLevel ERROR',
      // A login shell's rc files run for every ssh command (Debian's bash reads ~/.bashrc under
      // sshd); one that blocks (e.g. a stale pyenv lock) would stall every test. bash skips its rc
      // file when SHLVL says it is nested, so the test server sets that for its sessions.
      'SetEnv SHLVL=1',
      'Subsystem sftp internal-sftp', // sshfs
      '',
    ].join('\n'),
  );
  const user = os.userInfo().username;
  const hostPub = (await readFile(`${hostKey}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ');
  const knownHosts = path.join(dir, 'known_hosts');
  await writeFile(knownHosts, `[127.0.0.1]:${port} ${hostPub}\n`);
  const clientConfig = (known: string, identity = userKey): string =>
    [
      `Host ${SSH_TEST_HOST}`,
      '  HostName 127.0.0.1',
      `  Port ${port}`,
      `  User ${user}`,
      `  IdentityFile ${identity}`,
      '  IdentitiesOnly yes',
      `  UserKnownHostsFile ${known}`,
      '  StrictHostKeyChecking yes',
      '  LogLevel ERROR',
      '',
    ].join('\n');
  const config = path.join(dir, 'ssh_config');
  await writeFile(config, clientConfig(knownHosts));
  const unknownKeyConfig = path.join(dir, 'ssh_config_unknown');
  await writeFile(path.join(dir, 'known_hosts_empty'), '');
  await writeFile(unknownKeyConfig, clientConfig(path.join(dir, 'known_hosts_empty')));
  const noKeyConfig = path.join(dir, 'ssh_config_nokey');
  await writeFile(noKeyConfig, clientConfig(knownHosts, path.join(dir, 'no-such-key')));

  await ensurePrivsepDir();
  const child = spawn(sshdBinary(), ['-D', '-e', '-f', sshdConfig], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const pid = child.pid;
  if (pid === undefined) throw new Error('sshd did not start');
  const stop = async (): Promise<void> => {
    if (isProcessAlive(pid)) process.kill(pid, 'SIGTERM');
    if (!(await pollUntil(() => !isProcessAlive(pid), 5000))) throw new Error(`sshd ${pid} did not exit`);
  };
  const up = await pollUntil(async () => child.exitCode === null && (await canConnect(port)), 10000);
  if (!up) {
    await stop().catch(() => undefined);
    throw new Error(`sshd on port ${port} did not come up: ${stderr.trim()}`);
  }
  const closeMastersUnder = async (root: string): Promise<void> => {
    const dirOf = path.join(root, 'swarm', 'ssh');
    for (const sock of await readdir(dirOf).catch(() => [])) {
      await execa('ssh', ['-F', config, '-o', `ControlPath=${path.join(dirOf, sock)}`, '-O', 'exit', SSH_TEST_HOST], { reject: false });
    }
  };
  return { dir, port, pid, config, sshCommand: quote(['ssh', '-F', config]), unknownKeyConfig, noKeyConfig, closeMastersUnder, stop };
}

/** Mount `remoteDir` of the test host at `mountPoint`; undefined when mounted, else why it cannot be here. */
export async function mountSshfsAt(config: string, remoteDir: string, mountPoint: string, options: readonly string[] = []): Promise<string | undefined> {
  if (!existsSync('/dev/fuse')) return 'FUSE is not available here (/dev/fuse is missing)';
  const r = await execa('sshfs', ['-F', config, ...options, `${SSH_TEST_HOST}:${remoteDir}`, mountPoint], { reject: false });
  if (r.exitCode === undefined || /ENOENT/.test(r.shortMessage ?? '')) return 'sshfs is not installed (apt-get install sshfs)';
  if (r.exitCode !== 0) return `sshfs could not mount (FUSE not permitted?): ${(r.stderr || r.stdout).trim()}`;
  return undefined;
}

/** Unmount an sshfs mount (lazily: a process still inside it does not block). */
export async function unmountSshfs(mountPoint: string): Promise<void> {
  const u = await execa('fusermount3', ['-u', '-z', mountPoint], { reject: false });
  if (u.exitCode !== 0) await execa('fusermount', ['-u', '-z', mountPoint]);
}
