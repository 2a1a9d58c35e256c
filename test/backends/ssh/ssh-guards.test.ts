// The ssh backend's guards of data and trust, each seen red with its guard removed (issue 30):
// - the shared-root proof needs a write seen in BOTH directions: a host holding a one-way copy of
//   the root (it sees swarm's nonce, but what it writes never comes back) is refused;
// - a failed proof is not remembered: once the root is shared, the next spawn proves it again;
// - host validation: a destination that would be an ssh option (`-oProxyCommand=…`), given or
//   recorded in config.json, never reaches ssh: not for a spawn, a kill, a probe, an attach line
//   or `doctor --host`;
// - quoting: values travel to the host as positional arguments, intact, never run as shell text;
// - the pane's environment (API key included) goes over stdin into a 0600 file in a 0700 dir there,
//   never onto an ssh command line, and a file that cannot be made there is an error;
// - a kill there is verified, a zombie counting as gone.
// - a proof leaves no file behind and runs once per host; a host without tmux is refused for that;
// - no env: the argv as is; a stderr log: its own 0700 dir there; no host: said, nothing run.
// A REAL sshd on 127.0.0.1 (support/sshd.ts) where ssh runs; a recording exec where it must not.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import type { PaneRef } from '../../../src/backends/backend.js';
import { type Exec, execaExec } from '../../../src/backends/process.js';
import { SshConnection, parseDestination } from '../../../src/backends/ssh/connection.js';
import { checkHost } from '../../../src/backends/ssh/host-check.js';
import { RemoteHost, rootMapOf } from '../../../src/backends/ssh/remote-host.js';
import { SshBackend } from '../../../src/backends/ssh/ssh-backend.js';
import { SSH_SKIP, startSshd, SSH_TEST_HOST, type TestSshd } from '../../support/sshd.js';
import { privateSocket, reapServer } from '../../support/tmux.js';
import { tempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

/** An exec that records every call and runs none (what must never reach ssh). */
function recording(): { exec: Exec; calls: string[][] } {
  const calls: string[][] = [];
  return { calls, exec: async (file, args) => (calls.push([file, ...args]), { exitCode: 0, stdout: '', stderr: '' }) };
}

/** A team root for `sshd`, its shared connections closed when the test ends. */
async function rootFor(sshd: TestSshd): Promise<string> {
  const root = await tempRoot('swarm-ssh-guard-root-');
  sshd.closeMastersUnder(root);
  return root;
}

const BAD_HOST = (marker: string): string => `-oProxyCommand=touch ${marker}`;
const HOST_ERROR = (host: string): string => `--host: expected [user@]host[:port] (e.g. alice@build1:2222), got ${JSON.stringify(host)}`;

describe.skipIf(SSH_SKIP !== undefined)('the shared-root proof', () => {
  it('needs a write seen in both directions: a host with a one-way copy of the root (it sees the nonce, its write never comes back) is refused', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const copy = await tempRoot('swarm-ssh-guard-copy-');
    await mkdir(path.join(root, 'swarm'), { recursive: true });
    await mkdir(path.join(copy, 'swarm'));
    // Like a host whose "mount" is an rsync of the root: before every ssh command, what is here is
    // copied there; nothing written there ever comes back.
    const wrapper = path.join(copy, 'ssh-after-sync');
    await writeFile(wrapper, `#!/bin/sh\ncp -R ${quote([path.join(root, 'swarm')])}/. ${quote([path.join(copy, 'swarm')])}/ 2>/dev/null\nexec ssh -F ${quote([sshd.config])} "$@"\n`, { mode: 0o755 });
    const socket = privateSocket();
    const backend = new SshBackend({ host: SSH_TEST_HOST, root, remoteRoot: copy, sessionName: 'swarm-guard', socket, env: { SWARM_SSH_COMMAND: quote([wrapper]) }, killTimeoutMs: 1500 });
    try {
      const err = await backend.createPane({ team: 'guard', name: 'alpha', color: 'blue', argv: ['sleep', '60'], env: {}, cwd: root }).then(
        () => undefined,
        (e: unknown) => e as Error,
      );
      expect(err?.message).toMatch(
        new RegExp(
          `^the team root ${root} is not shared with ${SSH_TEST_HOST} at SWARM_REMOTE_ROOT=${copy} \\(the file ${SSH_TEST_HOST} wrote at ${copy}/swarm/ssh-proof-[0-9a-f]{16}\\.back is not seen here at ${root}/swarm/ssh-proof-[0-9a-f]{16}\\.back\\); mount it there \\(NFS or sshfs\\), or set SWARM_REMOTE_ROOT to where ${SSH_TEST_HOST} mounts it$`,
        ),
      );
      expect(await backend.probe([{ paneId: '%1', backendType: 'ssh', host: SSH_TEST_HOST }])).toEqual(['gone']); // no pane was made
      expect((await readFile(path.join(copy, 'swarm', (err!.message.match(/ssh-proof-[0-9a-f]{16}\.back/) ?? [''])[0]), 'utf8')).length).toBe(32); // it did write, over there
    } finally {
      await reapServer(socket);
    }
  });

  it('is not remembered when it fails: once the root is shared, the next proof passes', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const elsewhere = await tempRoot('swarm-ssh-guard-elsewhere-');
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand } }), rootMapOf(root, path.join(elsewhere, 'mnt')));
    await expect(remote.prove()).rejects.toThrow(/is not shared with/);
    await symlink(root, path.join(elsewhere, 'mnt')); // now mounted there
    await expect(remote.prove()).resolves.toBeUndefined();
  });

  it('leaves no proof file behind, and a host proven once is not asked again', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const calls: string[][] = [];
    const spy: Exec = (file, args, opts) => (calls.push([file, ...args]), execaExec(file, args, opts));
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand }, exec: spy }), rootMapOf(root, undefined));
    await remote.prove();
    await remote.prove();
    expect(calls).toHaveLength(1);
    expect((await readdir(path.join(root, 'swarm'))).filter((n) => n.startsWith('ssh-proof'))).toEqual([]);
  });

  it('a host without tmux is refused for that, in one line saying what to install', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    // A host whose PATH has a shell and cat but no tmux: the wrapper sets it for the remote command.
    const bin = path.join(root, 'bin-without-tmux');
    await mkdir(bin);
    for (const tool of ['/bin/sh', '/bin/cat']) await symlink(tool, path.join(bin, path.basename(tool)));
    const wrapper = path.join(root, 'ssh-no-tmux');
    await writeFile(wrapper, `#!/bin/bash\nexec ssh -F ${quote([sshd.config])} "\${@:1:$#-1}" "PATH=${bin}; export PATH; \${@: -1}"\n`, { mode: 0o755 });
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: quote([wrapper]) } }), rootMapOf(root, undefined));
    await expect(remote.prove()).rejects.toMatchObject({
      kind: 'backend',
      message: `tmux is not installed on ${SSH_TEST_HOST} (command -v tmux failed there); install tmux 3.2 or newer on it`,
    });
  });
});

describe('host validation: an ssh option in place of a host never reaches ssh', () => {
  it('given for new panes: refused when the backend is made, nothing run', async () => {
    const marker = path.join(await tempRoot(), 'proxy-ran');
    const rec = recording();
    expect(() => new SshBackend({ host: BAD_HOST(marker), root: '/r', sessionName: 's', env: {}, exec: rec.exec })).toThrow(HOST_ERROR(BAD_HOST(marker)));
    expect(() => new SshBackend({ host: '-lroot@h', root: '/r', sessionName: 's', env: {}, exec: rec.exec })).toThrow(HOST_ERROR('-lroot@h'));
    expect(rec.calls).toEqual([]);
  });

  it('recorded in config.json (edited by hand): kill, probe, capture, attach line and doctor --host refuse it, nothing run', async () => {
    const marker = path.join(await tempRoot(), 'proxy-ran');
    const host = BAD_HOST(marker);
    const rec = recording();
    const backend = new SshBackend({ root: '/r', sessionName: 's', env: {}, exec: rec.exec });
    const pane: PaneRef = { paneId: '%1', backendType: 'ssh', pid: process.pid, host };
    await expect(backend.kill(pane)).rejects.toThrow(HOST_ERROR(host));
    await expect(backend.probe([pane])).rejects.toThrow(HOST_ERROR(host));
    await expect(backend.capture(pane, 5)).rejects.toThrow(HOST_ERROR(host));
    expect(() => backend.howToReach(pane)).toThrow(HOST_ERROR(host));
    expect(await checkHost({ host, root: '/r', env: {}, exec: rec.exec })).toEqual({ host, reach: { error: HOST_ERROR(host) } });
    expect(rec.calls).toEqual([]);
    await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('a pane with no host recorded is never looked for on this machine: kill refuses, probe says unknown', async () => {
    const rec = recording();
    const backend = new SshBackend({ host: SSH_TEST_HOST, root: '/r', sessionName: 's', env: {}, exec: rec.exec });
    const local: PaneRef = { paneId: '%1', backendType: 'ssh', pid: process.pid };
    await expect(backend.kill(local)).rejects.toThrow('ssh pane %1 has no host recorded; stop its process on its machine by hand');
    expect(await backend.probe([local])).toEqual(['unknown']);
    expect(rec.calls).toEqual([]);
  });
});

describe('a backend with no host given, or a pane with none recorded', () => {
  it('says so in its description and reach line, and refuses to attach', async () => {
    const backend = new SshBackend({ root: '/r', sessionName: 'swarm-t', env: {} });
    const pane: PaneRef = { paneId: '%1', backendType: 'ssh' };
    expect(backend.describe()).toBe('ssh: teammates on other machines');
    expect(backend.howToReach(pane)).toBe('%1 (no host recorded)');
    await expect(backend.attach(pane)).rejects.toThrow('ssh pane %1 has no host recorded: there is nowhere to attach');
    expect(new SshBackend({ host: 'ci@b1', root: '/r', sessionName: 'swarm-t', env: {} }).describe()).toBe('ssh -t -l ci b1 tmux attach -t swarm-t');
  });

  it("attach runs the person's own ssh (no BatchMode) to the pane's host, and returns when it ends, whatever its exit code", async () => {
    const root = await tempRoot('swarm-ssh-guard-attach-');
    const said = path.join(root, 'argv');
    const fakeSsh = path.join(root, 'fake-ssh');
    await writeFile(fakeSsh, `#!/bin/sh\nprintf '%s\\n' "$@" > ${quote([said])}\nexit 1\n`, { mode: 0o755 });
    const backend = new SshBackend({ root, sessionName: 'swarm-t', socket: 'priv', env: { SWARM_SSH_COMMAND: quote([fakeSsh]) } });
    await backend.attach({ paneId: '%7', backendType: 'ssh', host: 'ci@b1' });
    expect((await readFile(said, 'utf8')).split('\n')).toEqual(['-t', '-l', 'ci', 'b1', 'tmux', '-L', 'priv', 'attach', '-t', '%7', '']);
  });

  it('the exec given runs every command; a host ssh cannot reach leaves its panes unknown', async () => {
    const root = await tempRoot('swarm-ssh-guard-exec-');
    const rec = recording();
    const pane: PaneRef = { paneId: '%1', backendType: 'ssh', host: 'b1' };
    await new SshBackend({ host: 'b1', root, sessionName: 's', env: {}, exec: rec.exec }).probe([pane]);
    expect(rec.calls.map((c) => c[0])).toEqual(['ssh']);
    const noSsh = new SshBackend({ root, sessionName: 's', env: { SWARM_SSH_COMMAND: path.join(root, 'no-such-ssh') } });
    expect(await noSsh.probe([pane])).toEqual(['unknown']);
  });
});

describe('what the backend refuses before anything runs', () => {
  it('a new pane with no --host, and a relative SWARM_REMOTE_ROOT: one line each, nothing run', async () => {
    const rec = recording();
    const noHost = new SshBackend({ root: '/r', sessionName: 's', env: {}, exec: rec.exec });
    await expect(noHost.createPane({ team: 't', name: 'w1', color: 'blue', argv: ['true'], env: {}, cwd: '/r' })).rejects.toMatchObject({
      kind: 'invalid_input',
      message: '--backend ssh needs --host [user@]host[:port] (or host:/hosts: in the team file)',
    });
    expect(() => new SshBackend({ host: 'h', root: '/r', remoteRoot: 'mnt/r', sessionName: 's', env: {}, exec: rec.exec })).toThrow(/^SWARM_REMOTE_ROOT="mnt\/r" is not an absolute path; /);
    expect(rec.calls).toEqual([]);
  });
});

describe('quoting: what swarm hands a host arrives as data', () => {
  it('the attach line a person copies is shell-quoted word by word', () => {
    const backend = new SshBackend({ host: 'ci@b1', root: '/r', sessionName: 'swarm-t', socket: 'priv', env: { SWARM_SSH_COMMAND: quote(['ssh', '-F', '/etc/my config']) } });
    expect(backend.describe()).toBe("ssh -F '/etc/my config' -t -l ci b1 tmux -L priv attach -t swarm-t");
  });

  it.skipIf(SSH_SKIP !== undefined)('run() passes values as positional arguments, intact; exec() quotes every word; none is run as shell text', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const marker = path.join(root, 'pwned');
    const conn = new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand } });
    const hostile = ['a b', `$(touch ${marker})`, `'; touch ${marker}; '`, '`touch x`', '--', '-n', '*', 'line\nbreak', ''];
    const r = await conn.run('for a in "$@"; do printf "[%s]\\n" "$a"; done', hostile);
    expect(r.stdout).toBe(hostile.map((v) => `[${v}]`).join('\n')); // (the last newline is stripped)
    const e = await conn.exec('printf', ['%s|', ...hostile]);
    expect(e.stdout).toBe(hostile.map((v) => `${v}|`).join(''));
    await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe.skipIf(SSH_SKIP !== undefined)('a kill over there is verified', () => {
  it('a zombie (exited, its parent not reaping it) counts as gone: kill -0 alone would call it alive for ever', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    // sh starts `sleep 1` in the background, then becomes `sleep 600`, which never reaps it. (A
    // `sleep 0` could end before the exec on a loaded machine, and sh would reap it: no zombie.)
    const parent = spawn('sh', ['-c', 'sleep 1 & echo $!; exec sleep 600'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const [line] = (await once(parent.stdout!, 'data')) as [Buffer];
      const zombie = Number(line.toString().trim());
      await waitFor(async () => / Z /.test(await readFile(`/proc/${zombie}/stat`, 'utf8').catch(() => '')), 10_000, 'the child to be a zombie');
      const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand } }), rootMapOf(root, undefined));
      expect(await remote.terminate(zombie, { waitMs: 50, termMs: 100, killMs: 100 })).toBe(true);
    } finally {
      const exited = once(parent, 'exit');
      parent.kill('SIGKILL');
      await exited;
    }
  });
});

describe.skipIf(SSH_SKIP !== undefined)('doctor --host in process (checkHost)', () => {
  /** An ssh whose remote command runs with `dir` first on its PATH (`replace`: as its whole PATH). */
  async function sshWithPath(sshd: TestSshd, root: string, dir: string, replace = false): Promise<string> {
    const wrapper = path.join(root, `ssh-path-${path.basename(dir)}`);
    const pathValue = replace ? dir : `${dir}:\\$PATH`;
    await writeFile(wrapper, `#!/bin/bash\nexec ssh -F ${quote([sshd.config])} "\${@:1:$#-1}" "PATH=${pathValue}; export PATH; \${@: -1}"\n`, { mode: 0o755 });
    return quote([wrapper]);
  }
  async function fakeSwarm(root: string, name: string, version: string): Promise<string> {
    const dir = path.join(root, name);
    await mkdir(dir);
    await writeFile(path.join(dir, 'swarm'), `#!/bin/sh\n[ "$1" = --version ] && printf '%s\\n' ${quote([version])}\nexit 0\n`, { mode: 0o755 });
    return dir;
  }

  it("a healthy host: tmux's and swarm's versions and the shared root; SWARM_TEAMMATE_COMMAND is only located", async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const bin = await fakeSwarm(root, 'host-bin', '  9.9.9  ');
    const calls: string[][] = [];
    const spy: Exec = (file, args, opts) => (calls.push([file, ...args]), execaExec(file, args, opts));
    const env = { SWARM_SSH_COMMAND: await sshWithPath(sshd, root, bin) };
    expect(await checkHost({ host: SSH_TEST_HOST, root, env, exec: spy })).toEqual({
      host: SSH_TEST_HOST,
      reach: undefined,
      tmux: { version: expect.stringMatching(/^tmux \d\S*$/) },
      swarm: { command: 'swarm', shown: '9.9.9', version: '9.9.9' },
      sharedRoot: { path: root },
    });
    expect(calls.length).toBeGreaterThan(0);
    expect((await checkHost({ host: SSH_TEST_HOST, root, env: { ...env, SWARM_TEAMMATE_COMMAND: '   ' } })).swarm).toEqual({ command: 'swarm', shown: '9.9.9', version: '9.9.9' });
    expect((await checkHost({ host: SSH_TEST_HOST, root, env: { ...env, SWARM_TEAMMATE_COMMAND: 'swarm teammate' } })).swarm).toEqual({
      command: 'swarm',
      shown: `(SWARM_TEAMMATE_COMMAND) at ${path.join(bin, 'swarm')}`,
    });
    const mute = await fakeSwarm(root, 'mute-bin', '');
    expect((await checkHost({ host: SSH_TEST_HOST, root, env: { SWARM_SSH_COMMAND: await sshWithPath(sshd, root, mute) } })).swarm).toEqual({ command: 'swarm', shown: 'version unknown' });
  });

  it('a host without tmux or swarm: each missing one says what to install', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const bin = path.join(root, 'bare-bin');
    await mkdir(bin);
    for (const tool of ['/bin/sh', '/bin/cat']) await symlink(tool, path.join(bin, path.basename(tool)));
    const report = await checkHost({ host: SSH_TEST_HOST, root, env: { SWARM_SSH_COMMAND: await sshWithPath(sshd, root, bin, true) } });
    expect(report).toEqual({
      host: SSH_TEST_HOST,
      reach: undefined,
      tmux: { error: 'tmux is not installed there; install tmux 3.2 or newer on it' },
      swarm: { command: 'swarm', error: 'swarm is not on its PATH; install swarm there (npm install -g swarm-launcher), or set SWARM_TEAMMATE_COMMAND to what runs it there' },
      sharedRoot: { error: `tmux is not installed on ${SSH_TEST_HOST} (command -v tmux failed there); install tmux 3.2 or newer on it` },
    });
  });
});

describe.skipIf(SSH_SKIP !== undefined)('a kill over there asks first', () => {
  it('a process that ends on SIGTERM gets it (and its clean-up) before any SIGKILL', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const cleaned = path.join(root, 'cleaned-up');
    const child = spawn('sh', ['-c', `trap 'echo bye > ${quote([cleaned])}; exit 0' TERM; echo ready; while :; do sleep 0.05; done`], { stdio: ['ignore', 'pipe', 'ignore'] });
    await once(child.stdout!, 'data');
    const exited = once(child, 'exit');
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand } }), rootMapOf(root, undefined));
    try {
      expect(await remote.terminate(child.pid!, { waitMs: 50, termMs: 5000, killMs: 2000 })).toBe(true);
      expect(await readFile(cleaned, 'utf8')).toBe('bye\n');
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});

describe.skipIf(SSH_SKIP !== undefined)("the pane's environment on the host", () => {
  it('goes over stdin into a 0600 file in a 0700 directory there, never onto an ssh command line', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const calls: string[][] = [];
    const spy: Exec = (file, args, opts) => (calls.push([file, ...args]), execaExec(file, args, opts));
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand }, exec: spy }), rootMapOf(root, undefined));
    const secret = 'sk-ant-guard-0123456789';
    const argv = await remote.paneArgv({ team: 't', name: 'w1', color: 'blue', argv: ['sh', '-c', 'true'], env: { ANTHROPIC_API_KEY: secret }, cwd: root });
    const envFile = argv[3]!; // ['/bin/sh', '-c', loader, <file>, ...argv]
    try {
      expect(argv.slice(0, 2)).toEqual(['/bin/sh', '-c']);
      expect(((await stat(envFile)).mode & 0o777).toString(8)).toBe('600');
      expect(((await stat(path.dirname(envFile))).mode & 0o777).toString(8)).toBe('700');
      expect(await readFile(envFile, 'utf8')).toContain(secret);
      expect(calls.length).toBeGreaterThan(0);
      expect(calls.flat().join(' ')).not.toContain(secret);
      expect(argv.join(' ')).not.toContain(secret);
    } finally {
      await rm(path.dirname(envFile), { recursive: true, force: true });
    }
  });

  it('no environment: the argv as it is, no file made; a stderr log: its tee gets a private 0700 directory there', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: sshd.sshCommand } }), rootMapOf(root, undefined));
    const spec = { team: 't', name: 'w1', color: 'blue', argv: ['sh', '-c', 'true'], env: {}, cwd: root };
    expect(await remote.paneArgv(spec)).toEqual(['sh', '-c', 'true']);
    const log = path.join(root, 'w1.stderr');
    const teed = await remote.paneArgv({ ...spec, stderrLog: log });
    try {
      expect(teed.slice(4)).toEqual([log, 'sh', '-c', 'true']); // ['/bin/sh', '-c', tee, <dir>, log, ...argv]
      expect(((await stat(teed[3]!)).mode & 0o7777).toString(8)).toBe('700');
    } finally {
      await rm(teed[3]!, { recursive: true, force: true });
    }
  });

  it('a private file that cannot be made there is an error, never a pane loading a file that is not there', async () => {
    const sshd = await startSshd();
    const root = await rootFor(sshd);
    // A host whose temp dir is unusable: the wrapper makes the remote command run with TMPDIR gone.
    const wrapper = path.join(root, 'ssh-no-tmp');
    await writeFile(wrapper, `#!/bin/bash\nexec ssh -F ${quote([sshd.config])} "\${@:1:$#-1}" "export TMPDIR=/nonexistent/tmp; \${@: -1}"\n`, { mode: 0o755 });
    const remote = new RemoteHost(new SshConnection({ dest: parseDestination(SSH_TEST_HOST), root, env: { SWARM_SSH_COMMAND: quote([wrapper]) } }), rootMapOf(root, undefined));
    await expect(remote.paneArgv({ team: 't', name: 'w1', color: 'blue', argv: ['sh', '-c', 'true'], env: { K: 'v' }, cwd: root })).rejects.toThrow(
      new RegExp(`^could not write the pane's private files on ${SSH_TEST_HOST}: .*mktemp`),
    );
  });
});
