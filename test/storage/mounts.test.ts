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
});
