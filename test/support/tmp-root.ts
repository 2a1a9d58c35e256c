// Temp dirs for tests: a fresh private root (CLAUDE_CONFIG_DIR) per test (`useTempRoot`), or one
// more dir inside a test (`tempRoot`), each removed when its test finishes. Removal runs after every
// afterEach hook, even one that threw, and a failed removal fails only a test that passed: it
// never hides the test's own failure (libtmux's pytest plugin does the same for its servers).
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, onTestFinished, type TestContext } from 'vitest';

/** A fresh temp dir, removed when the current test finishes. Call it in a test or a beforeEach. */
export async function tempRoot(prefix = 'swarm-test-'): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), prefix));
  afterThisTest(() => rm(root, { recursive: true, force: true, maxRetries: 3 }));
  return root;
}

/**
 * Registers a beforeEach (call it before the file's own) that gives every test its own root,
 * passed to `set` (which may also build the test's team on it). The root is handed to the code
 * and the CLIs under test explicitly (CLAUDE_CONFIG_DIR in their env), never put in this
 * process's env: a tmux server started from here would pass it on to every pane and hide a
 * backend that forgets to forward it.
 */
export function useTempRoot(set: (root: string) => unknown, prefix?: string): void {
  beforeEach(async () => {
    await set(await tempRoot(prefix));
  });
}

/**
 * Run `step` when the current test finishes, after its afterEach hooks (steps registered later run
 * first). Its error fails a passing test, and is only reported for a failing one.
 */
export function afterThisTest(step: () => Promise<void>): void {
  onTestFinished(async (ctx: TestContext) => {
    try {
      await step();
    } catch (e) {
      if (ctx.task.result?.state !== 'fail') throw e;
      process.stderr.write(`cleanup after the failed test "${ctx.task.name}" failed too: ${String(e)}\n`);
    }
  });
}
