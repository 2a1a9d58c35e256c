// Mutation testing (`npm run mutate`, not in CI: it takes long; see TESTING.md): the modules where a
// bug loses data or lets someone in, against their unit tests (vitest.stryker.config.ts).
// One mutant at a time (concurrency 1): the machine is shared and the tests start processes.
/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts' },
  coverageAnalysis: 'perTest',
  mutate: [
    'src/storage/**/*.ts',
    'src/mailbox/**/*.ts',
    'src/permissions/**/*.ts',
    'src/tasks/**/*.ts',
    'src/runtime/permission-gate.ts',
    // The guards of the tools, the lifecycle, the lease, ssh hosts and resume (issue 30): every
    // tool's input and path checks, spawn/stop/resume/worktree, who leads, what a host may touch.
    'src/runtime/tools/**/*.ts',
    'src/runtime/restore.ts',
    'src/teammates/**/*.ts',
    'src/team/lead-lease.ts',
    'src/team/lease-trust.ts',
    'src/backends/ssh/**/*.ts',
  ],
  concurrency: 1,
  // A mutant that makes a lock never free or a wait never end is a timeout (counted as killed);
  // the tests spawn processes, so allow well over their normal time before calling it one.
  timeoutMS: 10_000,
  timeoutFactor: 2,
  reporters: ['clear-text', 'progress', 'html', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  tempDirName: '.stryker-tmp',
  cleanTempDir: true,
};
