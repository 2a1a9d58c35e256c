// A private sshd for the current test (support/sshd-server.ts: its own keys and config in a temp
// dir, a free port on 127.0.0.1, the client config naming `swarm-test`), killed by its pid when the
// test finishes; ssh's shared connections under the roots given are asked to exit first.
import type { PrivateSshd } from './sshd-server.js';
import { mountSshfsAt, startSshdIn, unmountSshfs } from './sshd-server.js';
import { afterThisTest, tempRoot } from './tmp-root.js';

export { SSH_TEST_HOST, sshdBinary } from './sshd-server.js';

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
