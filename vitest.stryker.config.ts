// Test runner settings for `npm run mutate` (stryker.config.mjs): only the unit tests of the modules
// Stryker mutates, so a mutant run starts no tmux and no whole-CLI scenario. Their child processes
// (lock holders, concurrent writers) run the unmutated code; only in-process calls can kill a mutant.
import { defineConfig } from 'vitest/config';

export default defineConfig({
  plugins: [
    {
      // Stryker's vitest runner asks for worker threads, where process.umask() cannot be set (the
      // umask-0 file mode tests need it); a forked process works the same for Stryker (it reads
      // coverage and hit counts from the test files' metadata). One fork at a time: concurrency 1.
      name: 'swarm-mutate-forks',
      configureVitest({ vitest }) {
        vitest.config.pool = 'forks';
      },
    },
  ],
  test: {
    // SWARM_MUTATE_TESTS narrows them (comma-separated globs) for a module whose callers' tests are
    // slow and would only re-test it through waits: `watch.ts` against test/storage (TESTING.md).
    include: process.env.SWARM_MUTATE_TESTS?.split(',') ?? [
      'test/storage/**/*.test.ts',
      'test/mailbox/**/*.test.ts',
      'test/permissions/**/*.test.ts',
      'test/tasks/**/*.test.ts',
      'test/runtime/tools/**/*.test.ts',
      'test/runtime/runtime-units.test.ts',
      'test/runtime/permission.test.ts', // the gate in process: decide, addRule, requestPermission
      'test/runtime/restore.test.ts',
      'test/teammates/**/*.test.ts', // spawn, stop and resume in process, over real tmux on private sockets
      'test/team/lead-lease.test.ts',
      'test/team/lease-trust.test.ts',
      'test/backends/ssh/**/*.test.ts', // a real sshd on 127.0.0.1
    ],
    // Left out: the stress tests whose writers and lock holders are child processes (they run the
    // unmutated code, so these tests could only kill a mutant through the parent's last read, which
    // the in-process tests cover), and which take 2.5-10.5 s each: run for every lock mutant, they
    // were most of the time per mutant. `npm test` runs them as always.
    testNamePattern: /^(?!.*(16 writers x 100 appends|a writer SIGKILLed while holding the lock|stalls 5 s|SIGSTOPped while holding|stopped past the stale window))/,
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
