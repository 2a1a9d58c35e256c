// Which file system a path is on (Linux: the longest mount point in /proc/mounts that holds it),
// and whether that is one where inotify misses other machines' writes (a network or FUSE file
// system: NFS, sshfs, CIFS, ...). Watchers poll every second on those (watch.ts), and that
// poll is what carries changes made on other machines; `swarm doctor --host` says which applies.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface Filesystem {
  type: string;
  mountPoint: string;
  /** inotify does not see other machines' writes on it: only the watchers' poll does. */
  remote: boolean;
}

const REMOTE_TYPES = /^(nfs4?|cifs|smb3?|smbfs|9p|ceph|glusterfs|lustre|afs|davfs|fuse(\..*)?|fuseblk)$/;

/** /proc/mounts escapes spaces and the like as octal (`\040`). */
function unescapeMount(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));
}

/** The file system holding `file` (an absolute path), or undefined where /proc/mounts cannot be read. */
export async function filesystemOf(file: string, mountsText?: string): Promise<Filesystem | undefined> {
  const text = mountsText ?? (await readFile('/proc/mounts', 'utf8').catch(() => undefined));
  if (text === undefined) return undefined;
  let best: { type: string; mountPoint: string } | undefined;
  for (const line of text.split('\n')) {
    const [, rawPoint, type] = line.split(' ');
    if (rawPoint === undefined || type === undefined) continue;
    const mountPoint = unescapeMount(rawPoint);
    const inside = mountPoint === '/' || file === mountPoint || file.startsWith(mountPoint + path.sep);
    if (inside && (best === undefined || mountPoint.length >= best.mountPoint.length)) best = { type, mountPoint };
  }
  return best === undefined ? undefined : { ...best, remote: REMOTE_TYPES.test(best.type) };
}
