// The protected-read list: which paths a teammate reads only with team-lead's say-so (under the
// root, under the injected home, anywhere), matched on the path as given and on its real path.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { SecretPaths } from '../../../src/runtime/tools/secrets.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
let home: string;
let secrets: SecretPaths;

useTempRoot((dir) => (root = dir), 'swarm-secrets-');
beforeEach(async () => {
  home = path.join(root, 'home');
  await fs.mkdir(home);
  secrets = await SecretPaths.create(path.join(root, 'claude'), home);
});

describe('protected reads', () => {
  it('names the pattern each secret matches, and leaves ordinary files and env templates alone', () => {
    const cases: [string, string | undefined][] = [
      [path.join(root, 'claude/.credentials.json'), '<root>/.credentials.json'],
      [path.join(root, 'claude/settings.json'), undefined],
      [path.join(home, '.ssh'), '~/.ssh/**'],
      [path.join(home, '.ssh/id_rsa'), '~/.ssh/**'],
      [path.join(home, '.aws/config'), '~/.aws/**'],
      [path.join(home, '.gnupg/private-keys-v1.d/x.key'), '~/.gnupg/**'],
      [path.join(home, '.netrc'), '~/.netrc'],
      [path.join(home, '.config/gh/hosts.yml'), '~/.config/gh/hosts.yml'],
      [path.join(home, '.claude/.credentials.json'), '~/.claude/.credentials.json'],
      [path.join(home, 'notes.txt'), undefined],
      ['/srv/app/.env', '**/.env'],
      ['/srv/app/.env.local', '**/.env.*'],
      ['/srv/app/.env.example', undefined],
      ['/srv/app/certs/server.pem', '**/*.pem'],
      ['/srv/app/id_ed25519.pub', '**/id_ed25519*'],
      ['/srv/app/src/env.ts', undefined],
      ['/srv/app/.environment', undefined],
      // Wildcards match dot files and dot directories, for secrets and for templates alike.
      [path.join(home, '.ssh/.old/id_rsa'), '~/.ssh/**'],
      [path.join(home, '.aws/.cache'), '~/.aws/**'],
      ['/srv/.deploy/.env', '**/.env'],
      ['/srv/.deploy/.env.example', undefined],
    ];
    for (const [p, expected] of cases) expect(secrets.match(p), p).toBe(expected);
  });

  it('matches any of several forms (the path as given, its real path)', async () => {
    const real = path.join(home, '.aws/credentials');
    expect(secrets.match(path.join(root, 'work/notes.txt'), real)).toBe('~/.aws/**');
  });

  it('finds the home directory by its real path too', async () => {
    await fs.symlink(home, path.join(root, 'home-link'));
    const viaLink = await SecretPaths.create(path.join(root, 'claude'), path.join(root, 'home-link'));
    expect(viaLink.match(path.join(home, '.ssh/config'))).toBe('~/.ssh/**');
    expect(viaLink.match(path.join(root, 'home-link/.ssh/config'))).toBe('~/.ssh/**');
  });
});
