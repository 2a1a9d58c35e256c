// Which Claude Code a `--runtime claude` spawn used (teammates/claude-version.ts), with scripted
// `claude`s: its first `--version` line, asked with only the environment it is given; nothing when
// it fails; and one that never answers costs the spawn at most two seconds and is ended, as is one
// whose spawn failed (cancel): no process of ours outlives the question.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/storage/pid.js';
import { askClaudeVersion, describeClaudeUsed } from '../../src/teammates/claude-version.js';
import { tempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

async function claude(body: string): Promise<string> {
  const file = path.join(await tempRoot('swarm-cv-'), 'claude');
  await fs.writeFile(file, `#!/bin/sh\n[ "$*" = --version ] || { echo "asked $*"; exit 0; }\n${body}\n`, { mode: 0o755 });
  return file;
}

describe('askClaudeVersion', () => {
  it('its first --version line, with only the environment given', async () => {
    const file = await claude('[ -z "$SWARM_CV_LEAK" ] || { echo leaked; exit 0; }; echo "$FOO (Claude Code)"; echo second line');
    process.env.SWARM_CV_LEAK = '1';
    try {
      const used = await askClaudeVersion(file, { FOO: '9.9.9', PATH: process.env.PATH }).answer();
      expect(used).toEqual({ path: file, version: '9.9.9 (Claude Code)' });
      expect(describeClaudeUsed(used)).toBe(`claude 9.9.9 (Claude Code) at ${file}`);
    } finally {
      delete process.env.SWARM_CV_LEAK;
    }
  });

  it('nothing when it fails or prints nothing: the version is unknown, said so', async () => {
    for (const body of ['echo 1.0.0; exit 3', 'exit 0', 'echo "   "']) {
      const used = await askClaudeVersion(await claude(body), {}).answer();
      expect(used.version, body).toBeUndefined();
      expect(describeClaudeUsed(used)).toBe(`claude (version unknown) at ${used.path}`);
    }
  });

  it('one that never answers: the answer comes within about two seconds, and the process is ended; so is a cancelled one', async () => {
    const dir = await tempRoot('swarm-cv-');
    const pidFile = (n: string): string => path.join(dir, n);
    const hang = async (n: string): Promise<string> => claude(`echo $$ > '${pidFile(n)}'; exec sleep 600`);
    const pidOf = async (n: string): Promise<number> => waitFor(async () => Number((await fs.readFile(pidFile(n), 'utf8').catch(() => '')).trim()) || undefined, 10_000, `${n}'s pid`);

    const slow = askClaudeVersion(await hang('slow'), {});
    const slowPid = await pidOf('slow');
    const started = Date.now();
    expect((await slow.answer()).version).toBeUndefined();
    expect(Date.now() - started).toBeLessThan(5000);
    await waitFor(() => !isProcessAlive(slowPid) || undefined, 10_000, 'the unanswered claude --version to be ended');

    const cancelled = askClaudeVersion(await hang('cancelled'), {});
    const cancelledPid = await pidOf('cancelled');
    cancelled.cancel();
    await waitFor(() => !isProcessAlive(cancelledPid) || undefined, 10_000, 'the cancelled claude --version to be ended');
  });
});
