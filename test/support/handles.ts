// What a test process holds open, to show that code under test leaves nothing behind:
// - `activeHandles(kind)`: the handles of one kind that keep the event loop alive ('FSEventWrap' for
//   a persistent fs.watch, 'Timeout' for a timer), from process.getActiveResourcesInfo();
// - `inotifyWatches()`: every inotify watch (Linux: the `inotify wd:` lines of its inotify fds'
//   fdinfo). fs.watch with `persistent: false` keeps no handle alive, so activeHandles cannot see a
//   leaked one; the kernel can.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

export function activeHandles(kind: 'FSEventWrap' | 'Timeout'): number {
  return process.getActiveResourcesInfo().filter((r) => r === kind).length;
}

export function inotifyWatches(): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since the listing (the listing's own fd, say)
    }
    if (target !== 'anon_inode:inotify') continue;
    n += readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8').split('\n').filter((l) => l.startsWith('inotify wd:')).length;
  }
  return n;
}
