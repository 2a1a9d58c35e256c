// The real Claude Code CLI (devDependency @anthropic-ai/claude-code, run with node) in tests, offline
// against the stand-in Messages API: where it is, the test API key, and its state file seeded as the
// README says, so no first-run dialog stops it (onboarding done, the key approved, the cwd trusted).
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { quote } from 'shell-quote';
import { API_KEY_SUFFIX_LENGTH } from '../../src/teammates/claude-dialogs.js';

export const CLAUDE_CODE = fileURLToPath(new URL('../../node_modules/@anthropic-ai/claude-code/cli.js', import.meta.url));
export const CLAUDE_CODE_API_KEY = 'sk-ant-api03-test0000000000000000000000';

/** Throws, saying what to run, when the devDependency is not installed. */
export function requireClaudeCode(): void {
  if (!existsSync(CLAUDE_CODE)) throw new Error(`${CLAUDE_CODE} is missing: run npm install (devDependency @anthropic-ai/claude-code)`);
}

/** `<root>/.claude.json` with no first-run dialog left for Claude Code started in `cwd` (a real path). */
export async function seedClaudeCodeState(root: string, cwd: string): Promise<void> {
  await fs.writeFile(
    path.join(root, '.claude.json'),
    JSON.stringify({ hasCompletedOnboarding: true, customApiKeyResponses: { approved: [CLAUDE_CODE_API_KEY.slice(-API_KEY_SUFFIX_LENGTH)] }, projects: { [cwd]: { hasTrustDialogAccepted: true } } }),
  );
}

/** A `claude` script for a bin/ directory on PATH that runs the devDependency 2.1.112 (throws when it is not installed). */
export function claudeCodeScript(): string {
  return claudeBuildScript(CLAUDE_CODE_BUILDS[0]);
}

/** The newest native build (devDependency @anthropic-ai/claude-code-linux-x64), its `claude` binary. */
export const CLAUDE_CODE_NATIVE = fileURLToPath(new URL('../../node_modules/@anthropic-ai/claude-code-linux-x64/claude', import.meta.url));

/** The Claude Code builds interop tests run against: the devDependency run with node, and the native binary. */
export const CLAUDE_CODE_BUILDS = [
  { version: '2.1.112', argv: [process.execPath, CLAUDE_CODE], path: CLAUDE_CODE },
  { version: '2.1.332', argv: [CLAUDE_CODE_NATIVE], path: CLAUDE_CODE_NATIVE },
] as const;

/** A `claude` script for a bin/ directory on PATH that runs `build` (throws, saying what to install, when it is missing). */
export function claudeBuildScript(build: (typeof CLAUDE_CODE_BUILDS)[number]): string {
  if (!existsSync(build.path)) throw new Error(`${build.path} is missing: run npm install (Claude Code ${build.version} is a devDependency)`);
  return `#!/bin/sh\nexec ${quote([...build.argv])} "$@"\n`;
}

/**
 * What a test of the real Claude Code needs in its root: a work directory (a real path, trusted in
 * the seeded state) and `<root>/bin/claude` running `build` (put `bin` first on PATH).
 */
export async function claudeCodeWorkspace(root: string, build: (typeof CLAUDE_CODE_BUILDS)[number], tempDir: (prefix: string) => Promise<string>): Promise<{ work: string; bin: string }> {
  const script = claudeBuildScript(build);
  const work = await fs.realpath(await tempDir('swarm-work-'));
  const bin = path.join(root, 'bin');
  await fs.mkdir(bin, { recursive: true });
  await fs.writeFile(path.join(bin, 'claude'), script, { mode: 0o755 });
  await seedClaudeCodeState(root, work);
  return { work, bin };
}

/**
 * What Claude Code does at start beside its session, switched off for the tests, offline as they
 * are. Its auto-updater runs npm (`config get prefix`, `view`, `install -g`: about 9 CPU-seconds a
 * test file, failing) and its installation checks `npm config get prefix` again (two of the three
 * each start of 2.1.112 made, counted with strace); its non-essential traffic (the changelog from
 * raw.githubusercontent.com, telemetry to api.anthropic.com: 9 TLS connections a start, 7 of them
 * gone with it) costs each start some 0.4 CPU-s, most of it loading the CA certificates. No test
 * depends on any of it. vitest.config.ts sets these for every test process (and so for a test's
 * tmux server and its panes); spread them too into an env a test builds from nothing to start
 * `claude` with.
 */
export const CLAUDE_CODE_QUIET = { DISABLE_AUTOUPDATER: '1', DISABLE_INSTALLATION_CHECKS: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' } as const;

/**
 * The env that runs `claude` from `bin` (first on PATH, see claudeCodeWorkspace) offline against the
 * stand-in at `standinUrl`, with `root` as its CLAUDE_CONFIG_DIR and its panes on the private tmux
 * server `socket`.
 */
export function claudeCodeEnv(o: { root: string; bin: string; standinUrl: string; socket: string }): Record<string, string> {
  return {
    PATH: `${o.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: o.root, // not this machine's dotfiles: Claude Code's Bash snapshots a login shell
    CLAUDE_CONFIG_DIR: o.root,
    ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY,
    ANTHROPIC_BASE_URL: o.standinUrl,
    SWARM_TMUX_SOCKET: o.socket,
    ...CLAUDE_CODE_QUIET,
  };
}

/**
 * The settings files Claude Code left in its temp directory since `since` (ms) that mention `text`
 * (a test's root or team): it copies settings given as JSON on its command line to
 * `claude-settings-<hash>.json` there and never removes them, so swarm passes a file of its own.
 */
export async function claudeSettingsLeftBehind(text: string, since: number): Promise<string[]> {
  const dir = os.tmpdir();
  const names = (await fs.readdir(dir)).filter((n) => /^claude-settings-.*\.json$/.test(n));
  const found = await Promise.all(
    names.map(async (n) => {
      const file = path.join(dir, n);
      const st = await fs.stat(file).catch(() => undefined);
      return st !== undefined && st.mtimeMs >= since && (await fs.readFile(file, 'utf8').catch(() => '')).includes(text) ? [n] : [];
    }),
  );
  return found.flat();
}
