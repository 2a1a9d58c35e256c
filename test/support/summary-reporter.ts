// Vitest reporter that ends the run with one plain line, `tests: N passed, N failed, N skipped`,
// which CI reads as the verdict. Before it, it looks for processes the run left behind
// (leftover-processes.ts): each one is killed and listed, and fails the run.
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { endLeftovers, RUN_MARK } from './leftover-processes.js';

/** How long a process the tests ended may take to exit before it counts as left behind. */
const GRACE_MS = 5_000;

export default class SummaryReporter implements Reporter {
  /** This run's mark (vitest.config.ts sets it in the workers' environment, not in this process's). */
  private run: string | undefined;

  onInit(vitest: Vitest): void {
    this.run = vitest.config.env[RUN_MARK];
  }

  async onTestRunEnd(modules: ReadonlyArray<TestModule>): Promise<void> {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (m.state() === 'failed' && [...m.children.allTests()].length === 0) failed++; // a file that failed to load
    }
    const left = this.run ? await endLeftovers(this.run, GRACE_MS) : [];
    if (left.length > 0) {
      process.exitCode = 1;
      process.stdout.write(`\nprocesses the tests left running (killed now; a test must end what it starts):\n`);
      for (const p of left) process.stdout.write(`  ${p.pid} ${p.command.slice(0, 200)}\n`);
    }
    const leftNote = left.length > 0 ? `, ${left.length} process${left.length === 1 ? '' : 'es'} left running` : '';
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped${leftNote}\n`);
  }
}
