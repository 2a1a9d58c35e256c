// swarm's team memory directory is Claude Code's (docs/memory.md#the-project-key), checked with the
// real Claude Code 2.1.112 and the native 2.1.332 offline against the stand-in: started with `-p` in
// a repository's subdirectory and in a linked worktree (as a swarm worktree teammate runs), with none
// of swarm's flags, Claude Code writes a file into memoryDir(root, cwd) without asking — it treats the
// directory as its own project memory — and is refused one under a key that is not its own (2.1.112
// refuses even the cwd's own key: its memory goes by the repository; 2.1.332 also lets a session
// write the cwd's, so a made-up key is its control).
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startMessagesServer } from '../../src/standin/messages-server.js';
import { lastToolResultNames, type IncomingRequest } from '../../src/standin/request.js';
import { memoryDir, projectsDir } from '../../src/team/paths.js';
import { pathKey } from '../../src/team/project-key.js';
import { CLAUDE_CODE_API_KEY, CLAUDE_CODE_QUIET, CLAUDE_CODE_BUILDS, claudeBuildScript, seedClaudeCodeState } from '../support/claude-code.js';
import { git, makeRepo } from '../support/git-repo.js';
import { afterThisTest, tempRoot } from '../support/tmp-root.js';

type Build = (typeof CLAUDE_CODE_BUILDS)[number];

/** Claude Code -p in `cwd` asked (by the scripted model) to Write `file`; whether the file was written. */
async function claudeWrites(build: Build, root: string, cwd: string, file: string): Promise<boolean> {
  claudeBuildScript(build); // says what to install when the build is missing
  await seedClaudeCodeState(root, cwd);
  const main = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'Write');
  const standin = await startMessagesServer({
    script: {
      turns: [
        { match: (r) => main(r) && !lastToolResultNames(r.body).includes('Write'), reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: file, content: 'Build with npm run build.\n' } }] } },
        { match: (r) => main(r) && lastToolResultNames(r.body).includes('Write'), reply: 'Done.' },
        ...Array.from({ length: 20 }, () => ({ match: () => true, reply: 'ok' })),
      ],
    },
  });
  afterThisTest(() => standin.close());
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: root, CLAUDE_CONFIG_DIR: root, ANTHROPIC_API_KEY: CLAUDE_CODE_API_KEY, ANTHROPIC_BASE_URL: standin.url, ...CLAUDE_CODE_QUIET };
  const [exe, ...pre] = build.argv;
  const r = await execa(exe!, [...pre, '-p', '--', 'Save the build memory.'], { cwd, env, extendEnv: false, reject: false, stdin: 'ignore', timeout: 90_000 });
  if (r.exitCode !== 0) throw new Error(`claude -p exited ${r.exitCode}: ${String(r.stderr).slice(0, 500)}`);
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

describe.each(CLAUDE_CODE_BUILDS)('Claude Code $version and swarm name the same team memory directory', (build) => {
  it("from a repository's subdirectory and from a linked worktree: the repository's key, written without a question", async () => {
    const root = await tempRoot('swarm-memcc-');
    const repo = await makeRepo(path.join(root, 'repo'));
    const sub = path.join(repo, 'pkg');
    await fs.mkdir(sub);
    const worktree = path.join(repo, '.claude', 'worktrees', 'sq-w1');
    await git(repo, 'worktree', 'add', '-q', '-b', 'swarm/sq/w1', worktree);
    expect(memoryDir(root, sub)).toBe(memoryDir(root, worktree));

    expect(await claudeWrites(build, root, sub, path.join(memoryDir(root, sub), 'build.md'))).toBe(true);
    expect(await claudeWrites(build, root, worktree, path.join(memoryDir(root, worktree), 'tests.md'))).toBe(true);
    const notItsOwn = build.version === '2.1.112' ? pathKey(worktree) : 'not-the-key';
    expect(await claudeWrites(build, root, worktree, path.join(projectsDir(root), notItsOwn, 'memory', 'team', 'x.md'))).toBe(false);
  }, 120_000); // three Claude Code sessions one after another: 17 s alone, over 30 s on a loaded machine
});
