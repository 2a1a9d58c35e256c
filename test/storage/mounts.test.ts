// filesystemOf: the longest mount point holding a path, from /proc/mounts' text; network and FUSE
// file systems (where inotify misses other machines' writes) are told apart from local ones.
import { describe, expect, it } from 'vitest';
import { filesystemOf } from '../../src/storage/mounts.js';

const MOUNTS = [
  '/dev/vda1 / ext4 rw,relatime 0 0',
  'tmpfs /tmp tmpfs rw 0 0',
  'build1:/home/me/.claude /home/me/.claude nfs4 rw,relatime 0 0',
  'me@leader:/srv/swarm /mnt/swarm\\040root fuse.sshfs rw,nosuid 0 0',
  '',
].join('\n');

describe('filesystemOf', () => {
  it('the longest mount point wins; nfs and sshfs are remote, local disks and tmpfs are not', async () => {
    expect(await filesystemOf('/home/me/.claude/teams/t', MOUNTS)).toEqual({ type: 'nfs4', mountPoint: '/home/me/.claude', remote: true });
    expect(await filesystemOf('/mnt/swarm root/teams', MOUNTS)).toEqual({ type: 'fuse.sshfs', mountPoint: '/mnt/swarm root', remote: true });
    expect(await filesystemOf('/tmp/x', MOUNTS)).toEqual({ type: 'tmpfs', mountPoint: '/tmp', remote: false });
    expect(await filesystemOf('/home/me/.claudette', MOUNTS)).toEqual({ type: 'ext4', mountPoint: '/', remote: false });
  });

  it('a mount over a mount (listed later, same point) wins; a path equal to the mount point is on it; a shorter later mount does not', async () => {
    const text = ['/dev/vda1 / ext4 rw 0 0', 'tmpfs /srv tmpfs rw 0 0', 'server:/x /srv nfs rw 0 0', 'tmpfs /srv/a\\011b tmpfs rw 0 0', 'overlay / overlay rw 0 0'].join('\n');
    expect(await filesystemOf('/srv', text)).toEqual({ type: 'nfs', mountPoint: '/srv', remote: true });
    expect(await filesystemOf('/srv/a\tb/c', text)).toEqual({ type: 'tmpfs', mountPoint: '/srv/a\tb', remote: false });
    expect(await filesystemOf('/srvx', text)).toEqual({ type: 'overlay', mountPoint: '/', remote: false });
    expect(await filesystemOf('/a', 'junk line\n\n')).toBeUndefined();
  });

  it('names every network and FUSE type remote, and local ones not', async () => {
    for (const type of ['nfs', 'nfs4', 'cifs', 'smb3', 'smbfs', '9p', 'ceph', 'glusterfs', 'lustre', 'afs', 'davfs', 'fuse', 'fuse.sshfs', 'fuseblk']) {
      expect((await filesystemOf('/m/x', `d /m ${type} rw 0 0`))?.remote, type).toBe(true);
    }
    for (const type of ['ext4', 'xfs', 'btrfs', 'tmpfs', 'overlay', 'fusectl', 'nfsd', 'xnfs']) {
      expect((await filesystemOf('/m/x', `d /m ${type} rw 0 0`))?.remote, type).toBe(false);
    }
  });

  it("reads this machine's /proc/mounts when given no text", async () => {
    expect((await filesystemOf('/'))?.mountPoint).toBe('/');
  });
});

