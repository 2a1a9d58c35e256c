// The ssh tests on a machine without sshd, ssh or sshfs: skipped with one line naming the Debian
// packages, except under CI=true, where .ci/run installs them and a missing one is a failure.
import { describe, expect, it } from 'vitest';
import { sshPackagesMissing, sshSkip } from '../../support/sshd.js';

describe('the ssh tests where the packages are missing', () => {
  it('one line names what is missing and the Debian packages; nothing missing, nothing said', () => {
    const none = { sshd: () => false, command: () => false };
    expect(sshPackagesMissing(none)).toBe(
      "no sshd, ssh, ssh-keygen, sshfs here: the ssh backend's tests are skipped (apt-get install -y openssh-server sshfs; .ci/run does it)",
    );
    expect(sshPackagesMissing({ sshd: () => true, command: (c) => c !== 'sshfs' })).toMatch(/^no sshfs here/);
    expect(sshPackagesMissing({ sshd: () => true, command: () => true })).toBeUndefined();
  });

  it('skip and say so, unless CI=true: then the run fails', () => {
    const said: string[] = [];
    expect(sshSkip('no sshd here', {}, (l) => said.push(l))).toBe('no sshd here');
    expect(said).toEqual(['no sshd here']);
    expect(() => sshSkip('no sshd here', { CI: 'true' }, (l) => said.push(l))).toThrow('CI=true, but no sshd here');
    expect(sshSkip(undefined, { CI: 'true' }, (l) => said.push(l))).toBeUndefined();
    expect(said).toHaveLength(1);
  });
});
