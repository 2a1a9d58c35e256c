// Real git repositories for tests: `makeRepo` inits one in a directory (branch main, a local
// user.name/email so commits work anywhere) with the given files in its first commit; `git` runs
// a command in it and returns its trimmed stdout, throwing on a non-zero exit.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';

export async function git(repo: string, ...args: string[]): Promise<string> {
  const r = await execa('git', ['-C', repo, ...args], { reject: false, stdin: 'ignore' });
  if (r.exitCode !== 0) throw new Error(`git ${args.join(' ')} failed in ${repo}: ${r.stderr}`);
  return r.stdout.trim();
}

/** A repository at `dir` (created) whose first commit holds `files` (path → content). */
export async function makeRepo(dir: string, files: Record<string, string> = { 'README.md': 'hello\n' }): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  await git(dir, 'init', '-q', '-b', 'main');
  await git(dir, 'config', 'user.name', 'Swarm Test');
  await git(dir, 'config', 'user.email', 'swarm-test@example.invalid');
  await git(dir, 'config', 'commit.gpgsign', 'false');
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  }
  await git(dir, 'add', '-A');
  await git(dir, 'commit', '-q', '-m', 'first commit');
  return fs.realpath(dir);
}
