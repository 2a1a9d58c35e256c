// A private sshd for the current test (support/sshd-server.ts: its own keys and config in a temp
// dir, a free port on 127.0.0.1, the client config naming `swarm-test`), killed by its pid when the
// test finishes; ssh's shared connections under the roots given are asked to exit first.
import which from 'which';
import type { PrivateSshd } from './sshd-server.js';
import { mountSshfsAt, sshdBinary, startSshdIn, unmountSshfs } from './sshd-server.js';
import { afterThisTest, tempRoot } from './tmp-root.js';

export { SSH_TEST_HOST, sshdBinary } from './sshd-server.js';

/** What the ssh tests need that this machine lacks, as one line naming the Debian packages; else undefined. */
export function sshPackagesMissing(
  has: { sshd(): boolean; command(name: string): boolean } = {
    sshd: () => { try { sshdBinary(); return true; } catch { return false; } },
    command: (name) => which.sync(name, { nothrow: true }) !== null,
  },
): string | undefined {
  const missing = [...(has.sshd() ? [] : ['sshd']), ...['ssh', 'ssh-keygen', 'sshfs'].filter((c) => !has.command(c))];
  if (missing.length === 0) return undefined;
  return `no ${missing.join(', ')} here: the ssh backend's tests are skipped (apt-get install -y openssh-server sshfs; .ci/run does it)`;
}

/**
 * Why the ssh tests skip, given what is missing (`why`): said once on stderr; undefined where they
 * run. Under CI=true a missing package is a failure: .ci/run installs them, so CI never skips them.
 */
export function sshSkip(why: string | undefined, env: NodeJS.ProcessEnv, say: (line: string) => void): string | undefined {
  if (why !== undefined && env.CI === 'true') throw new Error(`CI=true, but ${why}`);
  if (why !== undefined) say(why);
  return why;
}

/** This machine's answer: the ssh tests' `describe.skipIf(SSH_SKIP !== undefined)`. */
export const SSH_SKIP = sshSkip(sshPackagesMissing(), process.env, (line) => process.stderr.write(`${line}\n`));

export interface TestSshd extends Omit<PrivateSshd, 'closeMastersUnder' | 'stop'> {
  /** Ask ssh's shared connections under `root` to exit when the test ends; call it after making `root`. */
  closeMastersUnder(root: string): void;
}

/** Start a private sshd for the current test; it is killed when the test finishes. */
export async function startSshd(): Promise<TestSshd> {
  const sshd = await startSshdIn(await tempRoot('swarm-sshd-'));
  afterThisTest(() => sshd.stop());
  return {
    ...sshd,
    // Registered after the root's own removal, so it runs before it (while the sockets exist).
    closeMastersUnder: (root) => afterThisTest(() => sshd.closeMastersUnder(root)),
  };
}

/**
 * Mount `remoteDir` of the test host at `mountPoint` with sshfs, unmounted when the test finishes
 * (call it after making both dirs). Resolves to undefined when mounted, else why it cannot be here
 * (no sshfs, no FUSE, or FUSE not permitted), for the test to skip with.
 */
export async function mountSshfs(sshd: TestSshd, remoteDir: string, mountPoint: string): Promise<string | undefined> {
  const why = await mountSshfsAt(sshd.config, remoteDir, mountPoint);
  if (why === undefined) afterThisTest(() => unmountSshfs(mountPoint));
  return why;
}
