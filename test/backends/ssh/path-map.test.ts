// The ssh backend's path mapping (remote-host.ts), pure: SWARM_REMOTE_ROOT is where the hosts mount
// the team root, and every path under the root handed to a remote pane is moved there. Only paths
// under the root move: not a sibling that shares its prefix (root /a/b, path /a/bc), not text that
// merely contains it; a relative SWARM_REMOTE_ROOT is refused, a trailing slash ignored.
import { describe, expect, it } from 'vitest';
import { mapPath, mapSpec, rootMapOf } from '../../../src/backends/ssh/remote-host.js';

const map = rootMapOf('/a/b', '/mnt/r');

describe('mapPath', () => {
  it('maps the root itself and paths under it', () => {
    expect(mapPath(map, '/a/b')).toBe('/mnt/r');
    expect(mapPath(map, '/a/b/teams/t/inboxes/w1.json')).toBe('/mnt/r/teams/t/inboxes/w1.json');
  });

  it('leaves a sibling that shares the prefix, a parent, another path, and text that only contains the root', () => {
    for (const other of ['/a/bc', '/a/bc/x', '/a/b.bak/x', '/a', '/', '/x/a/b/y', 'a/b/x', '--root=/a/b/x', '']) expect(mapPath(map, other)).toBe(other);
  });

  it('maps nothing when the host sees the root at the same path', () => {
    const same = rootMapOf('/a/b', undefined);
    expect(same).toEqual({ local: '/a/b', remote: '/a/b' });
    expect(mapPath(same, '/a/b/x')).toBe('/a/b/x');
    expect(rootMapOf('/a/b', '')).toEqual({ local: '/a/b', remote: '/a/b' });
  });
});

describe('rootMapOf: SWARM_REMOTE_ROOT', () => {
  it('drops trailing slashes, so /mnt/r/ maps like /mnt/r (never /mnt/r//x)', () => {
    const slashed = rootMapOf('/a/b', '/mnt/r//');
    expect(slashed).toEqual({ local: '/a/b', remote: '/mnt/r' });
    expect(mapPath(slashed, '/a/b/x')).toBe('/mnt/r/x');
    expect(rootMapOf('/a/b', '/')).toEqual({ local: '/a/b', remote: '/' });
  });

  it('refuses a relative path in one line saying what to set', () => {
    for (const bad of ['mnt/r', './r', '~/r', 'r']) {
      expect(() => rootMapOf('/a/b', bad)).toThrow(
        `SWARM_REMOTE_ROOT=${JSON.stringify(bad)} is not an absolute path; set it to where the hosts mount the team root (e.g. /mnt/claude)`,
      );
    }
  });
});

describe('mapSpec', () => {
  it('maps every path a pane gets: argv words, env values, cwd and stderr log; nothing else', () => {
    const spec = {
      team: 't',
      name: 'w1',
      color: 'blue',
      argv: ['swarm', 'teammate', '/a/b/teams/t', '/a/bc/t', 'plain'],
      env: { CLAUDE_CONFIG_DIR: '/a/b', OTHER: '/a/bc', KEY: 'secret' },
      cwd: '/a/b/work',
      stderrLog: '/a/b/teams/t/logs/w1.stderr',
    };
    expect(mapSpec(map, spec)).toEqual({
      ...spec,
      argv: ['swarm', 'teammate', '/mnt/r/teams/t', '/a/bc/t', 'plain'],
      env: { CLAUDE_CONFIG_DIR: '/mnt/r', OTHER: '/a/bc', KEY: 'secret' },
      cwd: '/mnt/r/work',
      stderrLog: '/mnt/r/teams/t/logs/w1.stderr',
    });
    const { stderrLog: _none, ...noLog } = spec;
    expect(mapSpec(map, noLog).stderrLog).toBeUndefined();
  });
});
