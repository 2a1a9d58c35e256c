// Files a teammate may read only with the leader's say-so: credentials a Claude Code user would not
// expect a model to read unasked (Claude Code's own login token, SSH/cloud/GPG keys, .env files).
// Read, Glob and Grep on such a path ask team-lead in every permission mode (bypassPermissions
// included: it is about edits and commands, not about handing out credentials); team allow/deny
// rules decide first, as for any asked call. Grep searching a wider tree leaves them out and says
// so (grep.ts). Matched on both the path as given and its real path (symlinks resolved), with
// wildcards matching dot files. A hard link to a secret under an innocent name is not recognised.
// The home directory comes in from the caller (team/paths.ts homeDir), never from os here.
import path from 'node:path';
import { compileGlob } from '../../protocol/glob.js';
import { isInside, realpathLoose } from './paths.js';

/** Under the home directory (shown as `~/…`). */
export const HOME_SECRETS = [
  '.ssh/**',
  '.aws/**',
  '.gnupg/**',
  '.config/gcloud/**',
  '.azure/**',
  '.kube/config',
  '.docker/config.json',
  '.config/gh/hosts.yml',
  '.netrc',
  '.git-credentials',
  '.npmrc',
  '.pypirc',
  '.claude/.credentials.json',
] as const;
/** Under the root ($CLAUDE_CONFIG_DIR, shown as `<root>/…`): Claude Code's login token. */
export const ROOT_SECRETS = ['.credentials.json'] as const;
/** Anywhere (shown as is). */
export const ANYWHERE_SECRETS = ['**/.env', '**/.env.*', '**/.envrc', '**/*.pem', '**/*.key', '**/*.p12', '**/*.pfx', '**/id_rsa*', '**/id_dsa*', '**/id_ecdsa*', '**/id_ed25519*'] as const;
/** Templates that only name the variables: not secrets, read freely. */
export const NOT_SECRETS = ['**/.env.example', '**/.env.sample', '**/.env.template'] as const;

/** What the pane and team-lead see for a call on `shown`: why it is asked, when it is. */
export function protectedSummary(shown: string, secret: string | undefined): string {
  return secret === undefined ? shown : `${shown} (protected: ${secret})`;
}

type Matcher = (p: string) => boolean;

interface Base {
  label: string;
  /** The directory as given and its real form. */
  dirs: readonly string[];
  patterns: readonly { shown: string; match: Matcher }[];
}

function compiled(patterns: readonly string[]): { shown: string; match: Matcher }[] {
  return patterns.map((p) => ({ shown: p, match: compileGlob(p, { dot: true }) }));
}

export class SecretPaths {
  private constructor(
    private readonly bases: readonly Base[],
    private readonly anywhere: readonly { shown: string; match: Matcher }[],
    private readonly exempt: readonly Matcher[],
  ) {}

  static async create(root: string, home: string): Promise<SecretPaths> {
    const forms = async (d: string): Promise<string[]> => [...new Set([path.resolve(d), await realpathLoose(path.resolve(d))])];
    return new SecretPaths(
      [
        { label: '<root>', dirs: await forms(root), patterns: compiled(ROOT_SECRETS) },
        { label: '~', dirs: await forms(home), patterns: compiled(HOME_SECRETS) },
      ],
      compiled(ANYWHERE_SECRETS),
      NOT_SECRETS.map((p) => compileGlob(p, { dot: true })),
    );
  }

  /** The pattern (as shown to people) that makes any of these absolute paths a secret, or undefined. */
  match(...paths: string[]): string | undefined {
    for (const p of paths) {
      const found = this.matchOne(p);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private matchOne(p: string): string | undefined {
    const fromSlash = p.slice(1);
    if (this.exempt.some((m) => m(fromSlash))) return undefined;
    for (const base of this.bases) {
      for (const dir of base.dirs) {
        if (!isInside(dir, p)) continue;
        const rel = path.relative(dir, p);
        const hit = base.patterns.find((x) => rel !== '' && x.match(rel));
        if (hit) return `${base.label}/${hit.shown}`;
      }
    }
    return this.anywhere.find((x) => x.match(fromSlash))?.shown;
  }
}
