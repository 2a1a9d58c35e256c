// The ssh connection's pure parts: `[user@]host[:port]`, the ssh argv (one shared connection,
// BatchMode, SWARM_SSH_COMMAND's words), the socket path kept short, and ssh's own failures turned
// into one line saying what to do (a password prompt refused by BatchMode, an unknown host key).
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import { SshConnection, controlPathFor, parseDestination, sshCommandWords, sshFailure } from '../../../src/backends/ssh/connection.js';
import { rootMapOf } from '../../../src/backends/ssh/remote-host.js';

describe('ssh destinations and argv', () => {
  it('parses [user@]host[:port]; anything else is one line with the form', () => {
    expect(parseDestination('build1')).toEqual({ user: undefined, host: 'build1', port: undefined, text: 'build1' });
    expect(parseDestination('ci@build-2.lan:2222')).toEqual({ user: 'ci', host: 'build-2.lan', port: 2222, text: 'ci@build-2.lan:2222' });
    expect(parseDestination(' me@[::1]:1 ')).toEqual({ user: 'me', host: '::1', port: 1, text: 'me@[::1]:1' });
    expect(parseDestination('h:65535').port).toBe(65535);
    // A leading '-' anywhere would be an ssh option: -F reads a config file (a ProxyCommand), -o sets one.
    for (const bad of ['', 'a b', 'x@', 'h:0', 'h:70000', '-oProxyCommand=x', '-Fevil', 'u@-Fevil', '-lroot@h', '[::1', 'h;rm', 'h/x', 'h:22x']) {
      expect(() => parseDestination(bad)).toThrow(/^--host: expected \[user@\]host\[:port\]/);
    }
  });

  it('every command goes over one shared connection in BatchMode; SWARM_SSH_COMMAND replaces ssh', () => {
    const conn = new SshConnection({ dest: parseDestination('ci@b1:2200'), root: '/r', env: { SWARM_SSH_COMMAND: 'ssh -F "/etc/my config"' } });
    expect(conn.argv("tmux list-panes -a")).toEqual([
      'ssh', '-F', '/etc/my config',
      '-o', 'ControlMaster=auto', '-o', `ControlPath=${conn.controlPath}`, '-o', 'ControlPersist=300', '-o', 'BatchMode=yes',
      '-p', '2200', '-l', 'ci', 'b1', '--', 'tmux list-panes -a',
    ]);
    expect(conn.controlPath).toMatch(/^\/r\/swarm\/ssh\/[0-9a-f]{16}$/);
    expect(sshCommandWords({})).toEqual(['ssh']);
    expect(() => sshCommandWords({ SWARM_SSH_COMMAND: 'ssh | tee x' })).toThrow(/SWARM_SSH_COMMAND must be a plain command line/);
  });

  it('a root too deep for a unix socket path puts the socket in the temp dir', () => {
    expect(controlPathFor(`/${'d'.repeat(120)}`, 'k').length).toBeLessThan(100);
  });

  it('the socket stays under the root up to 90 characters, past that in a per-user directory of the temp dir', () => {
    const root = `/${'d'.repeat(62)}`; // + /swarm/ssh/ + 16 hex digits = 90
    expect(controlPathFor(root, 'k')).toMatch(new RegExp(`^${root}/swarm/ssh/[0-9a-f]{16}$`));
    expect(controlPathFor(`${root}d`, 'k')).toMatch(new RegExp(`^${os.tmpdir()}/swarm-ssh-${process.getuid!()}/[0-9a-f]{16}$`));
  });

  it('one shared connection per destination and ssh command: another host, user or SWARM_SSH_COMMAND gets its own socket', () => {
    const socket = (host: string, command?: string) =>
      new SshConnection({ dest: parseDestination(host), root: '/r', env: command === undefined ? {} : { SWARM_SSH_COMMAND: command } }).controlPath;
    expect(socket('b1')).toBe(socket('b1'));
    expect(new Set([socket('b1'), socket('b2'), socket('ci@b1'), socket('b1', 'ssh -F a'), socket('b1', 'ssh -Fa')]).size).toBe(5);
  });

  it('a user name of any length; a blank SWARM_SSH_COMMAND is plain ssh; refusals are invalid input (exit code 2)', () => {
    expect(parseDestination('alice@build1').user).toBe('alice');
    expect(sshCommandWords({ SWARM_SSH_COMMAND: '   ' })).toEqual(['ssh']);
    const kindOf = (f: () => unknown): unknown => {
      try {
        f();
      } catch (e) {
        return (e as { kind?: unknown }).kind;
      }
      return undefined;
    };
    expect(kindOf(() => parseDestination('-Fevil'))).toBe('invalid_input');
    expect(kindOf(() => sshCommandWords({ SWARM_SSH_COMMAND: 'ssh | tee x' }))).toBe('invalid_input');
    expect(kindOf(() => rootMapOf('/a', 'mnt/r'))).toBe('invalid_input');
  });
});

describe('sshFailure', () => {
  const r = (exitCode: number, stderr: string) => ({ exitCode, stdout: '', stderr });

  it("the remote command's own exit codes are not ssh's failures", () => {
    expect(sshFailure('b1', r(1, 'no such session'))).toBeUndefined();
    expect(sshFailure('b1', r(127, 'sh: 1: tmux: not found'))).toBeUndefined(); // "not found" over there
    expect(sshFailure('b1', r(1, "Error: ENOENT: no such file or directory, open 'x'"))).toBeUndefined(); // a remote program's ENOENT
  });

  it('a host asking for a password (refused by BatchMode): set up a key', () => {
    const e = sshFailure('b1', r(255, 'ci@b1: Permission denied (publickey,password).'));
    expect(e?.message).toBe(
      'ssh b1: login needs a password or a key ssh does not have (ci@b1: Permission denied (publickey,password).); swarm never types passwords (BatchMode): set up key login (ssh-copy-id b1) or add the key to ssh-agent',
    );
  });

  it('an unknown host key, an unreachable host, and no ssh at all: one line each', () => {
    expect(sshFailure('b1', r(255, 'No ED25519 host key is known for b1 and you have requested strict checking.\nHost key verification failed.'))?.message).toMatch(
      /^ssh b1: its host key is not known here \(Host key verification failed\.\); run `ssh b1` once to check and accept it/,
    );
    expect(sshFailure('b1', r(255, 'ssh: connect to host b1 port 22: Connection refused'))?.message).toBe(
      'ssh b1 failed: ssh: connect to host b1 port 22: Connection refused; check that `ssh b1 true` works from here',
    );
    expect(sshFailure('b1', r(255, ''))?.message).toBe('ssh b1 failed: exit code 255; check that `ssh b1 true` works from here');
    expect(sshFailure('b1', r(127, 'spawn ssh ENOENT'))?.message).toMatch(/^ssh could not be run \(spawn ssh ENOENT\); install the OpenSSH client/);
  });
});
