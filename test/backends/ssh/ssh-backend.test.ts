// The ssh backend against a REAL sshd on 127.0.0.1 (support/sshd.ts: its own keys and config, a
// free port) and a private tmux server "over there" (the same machine, SWARM_TMUX_SOCKET), reaped
// afterwards. The conformance suite, then what only ssh has: the shared root refused when the
// host's path holds something else, the root mounted elsewhere with sshfs (skipped where FUSE is not
// permitted) and every path mapped, the unknown host key, the attach line.
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { SshBackend } from '../../../src/backends/ssh/ssh-backend.js';
import { waitFor } from '../../support/wait.js';
import { privateSocket, reapServer } from '../../support/tmux.js';
import { mountSshfs, SSH_SKIP, startSshd, SSH_TEST_HOST, type TestSshd } from '../../support/sshd.js';
import { tempRoot } from '../../support/tmp-root.js';
import { PROBE_ENV, ProbeKit, runBackendConformance } from '../conformance.js';
import { quote } from 'shell-quote';

async function sshBackend(o: { sshd?: TestSshd; remoteRoot?: string; sshCommand?: string } = {}): Promise<{ backend: SshBackend; socket: string; root: string; sshd: TestSshd }> {
  const sshd = o.sshd ?? (await startSshd());
  const root = await tempRoot('swarm-ssh-root-');
  sshd.closeMastersUnder(root);
  const socket = privateSocket();
  const backend = new SshBackend({
    host: SSH_TEST_HOST,
    root,
    remoteRoot: o.remoteRoot,
    sessionName: 'swarm-conf',
    socket,
    env: { SWARM_SSH_COMMAND: o.sshCommand ?? sshd.sshCommand },
    killTimeoutMs: 1500,
  });
  return { backend, socket, root, sshd };
}

runBackendConformance('ssh', async () => {
  const { backend, socket } = await sshBackend();
  return { backend, cleanup: () => reapServer(socket) };
}, { exitStatus: 'sometimes' });

describe.skipIf(SSH_SKIP !== undefined)('SshBackend (real sshd on 127.0.0.1)', () => {
  it('refuses a root that is not shared: SWARM_REMOTE_ROOT naming a directory without the nonce', async () => {
    const elsewhere = await tempRoot('swarm-ssh-elsewhere-');
    await mkdir(path.join(elsewhere, 'swarm'));
    const { backend, socket, root } = await sshBackend({ remoteRoot: elsewhere });
    const kit = await ProbeKit.create();
    const out = kit.outFile();
    try {
      await expect(
        backend.createPane({ team: 'conf', name: 'alpha', color: 'blue', argv: kit.argv(out, 'wait'), env: {}, cwd: kit.dir }),
      ).rejects.toThrow(
        new RegExp(
          `^the team root ${root} is not shared with ${SSH_TEST_HOST} at SWARM_REMOTE_ROOT=${elsewhere} \\(${elsewhere}/swarm/ssh-proof-[0-9a-f]{16} there does not hold the file swarm just wrote here\\); mount it there \\(NFS or sshfs\\), or set SWARM_REMOTE_ROOT`,
        ),
      );
    } finally {
      await reapServer(socket);
      await kit.dispose();
    }
  });

  it('a command not on the host\'s PATH, or a cwd missing there: refused with what to do, no pane left', async () => {
    const { backend, socket } = await sshBackend();
    const kit = await ProbeKit.create();
    const spec = { team: 'conf', name: 'alpha', color: 'blue', env: { [PROBE_ENV]: 'x' }, cwd: kit.dir };
    try {
      await expect(backend.createPane({ ...spec, argv: ['swarm-not-installed-here', 'teammate'] })).rejects.toMatchObject({
        kind: 'not_found',
        message: `swarm-not-installed-here is not on ${SSH_TEST_HOST}'s PATH (command -v failed there): install swarm on ${SSH_TEST_HOST} (npm install -g swarm-launcher), or set SWARM_TEAMMATE_COMMAND to the command that runs it there`,
      });
      const gone = path.join(kit.dir, 'not-here');
      await expect(backend.createPane({ ...spec, argv: kit.argv(kit.outFile(), 'wait'), cwd: gone })).rejects.toMatchObject({
        kind: 'invalid_input', // exit code 2: the input is wrong
        message: `the working directory ${gone} does not exist on ${SSH_TEST_HOST}; create it there, or pass --cwd a directory that exists there`,
      });
      expect(await backend.probe([{ paneId: '%1', backendType: 'ssh', host: SSH_TEST_HOST }])).toEqual(['gone']);
    } finally {
      await reapServer(socket);
      await kit.dispose();
    }
  });

  it('an unknown host key, or a login without a key (a password prompt under BatchMode): one line saying what to do', async () => {
    const sshd = await startSshd();
    const kit = await ProbeKit.create();
    const spec = { team: 'conf', name: 'alpha', color: 'blue', argv: kit.argv(kit.outFile(), 'wait'), env: {}, cwd: kit.dir };
    const failure = async (config: string): Promise<string | undefined> => {
      const { backend } = await sshBackend({ sshd, sshCommand: quote(['ssh', '-F', config]) });
      return backend.createPane(spec).then(() => undefined, (e: unknown) => (e as Error).message);
    };
    const unknown = await failure(sshd.unknownKeyConfig);
    expect(unknown).toMatch(new RegExp(`^ssh ${SSH_TEST_HOST}: its host key is not known here .*run \`ssh ${SSH_TEST_HOST}\` once to check and accept it`));
    const noKey = await failure(sshd.noKeyConfig);
    expect(noKey).toMatch(new RegExp(`^ssh ${SSH_TEST_HOST}: login needs a password or a key ssh does not have .*Permission denied.*set up key login \\(ssh-copy-id ${SSH_TEST_HOST}\\) or add the key to ssh-agent$`));
    for (const m of [unknown, noKey]) expect(m).not.toContain('\n');
  });

  it('sshfs mounts the root at a second path: SWARM_REMOTE_ROOT maps every path handed to the pane', async (ctx) => {
    const sshd = await startSshd();
    const { root } = await sshBackend({ sshd });
    const mount = await tempRoot('swarm-sshfs-');
    const why = await mountSshfs(sshd, root, mount);
    if (why !== undefined) {
      process.stderr.write(`skipping the sshfs test: ${why}\n`);
      ctx.skip(why);
    }
    const socket = privateSocket();
    const backend = new SshBackend({ host: SSH_TEST_HOST, root, remoteRoot: mount, sessionName: 'swarm-conf', socket, env: { SWARM_SSH_COMMAND: sshd.sshCommand }, killTimeoutMs: 1500 });
    const kit = await ProbeKit.create();
    const out = kit.outFile();
    try {
      const pane = await backend.createPane({
        team: 'conf', name: 'alpha', color: 'blue',
        argv: kit.argv(out, 'wait', path.join(root, 'teams', 'conf')),
        env: { [PROBE_ENV]: root },
        cwd: root,
        stderrLog: path.join(root, 'alpha.stderr'),
      });
      const info = await kit.read(out);
      expect(info).toMatchObject({ argv: [out, 'wait', path.join(mount, 'teams', 'conf')], value: mount, cwd: mount });
      await backend.kill(pane);
    } finally {
      await reapServer(socket);
      await kit.dispose();
    }
  });

  it('kill also ends what the pane\'s process started over there, even a child that ignores the hangup', async () => {
    const { backend, socket } = await sshBackend();
    const kit = await ProbeKit.create();
    const pidFile = path.join(kit.dir, 'child.pid');
    let child = 0;
    try {
      const pane = await backend.createPane({ team: 'conf', name: 'tree', color: 'blue', argv: ['sh', '-c', `nohup sleep 600 >/dev/null 2>&1 & echo $! > ${pidFile}; wait`], env: {}, cwd: kit.dir });
      child = Number(await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim(), 10_000, 'the child pid'));
      expect(isProcessAlive(child)).toBe(true); // "over there" is this machine: checkable here
      await backend.kill(pane);
      expect(isProcessAlive(child)).toBe(false);
    } finally {
      if (child > 0 && isProcessAlive(child)) process.kill(child, 'SIGKILL'); // nohup: reaping the server would not end it
      await reapServer(socket);
      await kit.dispose();
    }
  });

  it('describe and howToReach print the exact ssh -t ... tmux attach line', async () => {
    const { backend, socket, sshd } = await sshBackend();
    const line = `ssh -F ${sshd.config} -t ${SSH_TEST_HOST} tmux -L ${socket} attach -t swarm-conf`;
    expect(backend.describe()).toBe(line);
    expect(backend.howToReach({ paneId: '%1', backendType: 'ssh', host: SSH_TEST_HOST })).toBe(line);
  });
});
