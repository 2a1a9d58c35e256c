// Files a teammate may read only with the leader's say-so: credentials a Claude Code user would not
// expect a model to read unasked (Claude Code's own login token, SSH/cloud/GPG keys, .env files).
// Read, Glob and Grep on such a path ask team-lead in every permission mode (bypassPermissions
// included: it is about edits and commands, not about handing out credentials); team allow/deny
// rules decide first, as for any asked call. Grep searching a wider tree leaves them out and says
// so (grep.ts). Matched on both the path as given and its real path (symlinks resolved), with
// wildcards matching dot files (path-patterns.ts). A hard link to a secret under an innocent name
// is not recognised. Files whose WRITES ask instead (agent configuration) are agent-config.ts.
// The home directory comes in from the caller (team/paths.ts homeDir), never from os here.
import { PathPatterns } from './path-patterns.js';

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

/** The credentials list, matched on every form of a path given (path-patterns.ts). */
export type SecretPaths = PathPatterns;
export const SecretPaths = {
  create: (root: string, home: string): Promise<SecretPaths> =>
    PathPatterns.compile({
      bases: [
        { label: '<root>', dir: root, patterns: ROOT_SECRETS },
        { label: '~', dir: home, patterns: HOME_SECRETS },
      ],
      anywhere: ANYWHERE_SECRETS,
      exempt: NOT_SECRETS,
    }),
};
