// Test runner settings: real processes and real tmux make some tests take seconds, never minutes.
import { accessSync, constants, statfsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { CLAUDE_CODE_QUIET } from './test/support/claude-code.js';

const TMPFS_MAGIC = 0x01021994;

/**
 * Where the tests' files go: TMPDIR if it is set, else /dev/shm when it is a writable tmpfs with
 * 2 GB free, else the system's default (/tmp). Every test writes real files through the same code
 * (atomic renames, locks, fsync); on a tmpfs an fsync returns at once instead of waiting for the
 * disk's journal, and the suite ran 248 → 206 s on two cores (468 → 389 CPU-s). What an fsync
 * costs on a disk is the benchmarks' business (`npm run bench`, on /tmp); a power cut, the only
 * thing an fsync guards against, no test here can make.
 */
function testTmpDir(): string | undefined {
  if (process.env.TMPDIR) return process.env.TMPDIR;
  try {
    const fs = statfsSync('/dev/shm');
    accessSync('/dev/shm', constants.W_OK);
    if (fs.type === TMPFS_MAGIC && fs.bavail * fs.bsize >= 2 ** 31) return '/dev/shm';
  } catch {
    // no /dev/shm here: the default
  }
  return undefined;
}
const tmpDir = testTmpDir();

// NODE_EXTRA_CA_CERTS (set on this machine, as wherever a proxy must be trusted) makes every Node
// process read and parse that file of certificates as it starts: 50 of a bare `node -e 0`'s 80
// CPU-ms, and the suite starts some 750 Node processes (the workers, swarm's CLI and teammates,
// Claude Code 2.1.112). The tests make no TLS connection (the stand-in, the registry and sshd are
// all on 127.0.0.1 without it), so the workers, and everything they start, run without it.
delete process.env.NODE_EXTRA_CA_CERTS;

/**
 * vitest's order (failed first, then the longest, or with no record of a run, as on CI, the
 * largest files first), with test/lint/checks.test.ts ahead of all: the typecheck and lint then
 * run while the first files mostly wait on the processes they start, instead of alone before the
 * suite (`pretest`), or last, where a small file goes when there is no record.
 */
class ChecksFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const checks = (f: TestSpecification): boolean => f.moduleId.endsWith('/test/lint/checks.test.ts');
    return [...sorted.filter(checks), ...sorted.filter((f) => !checks(f))];
  }
}

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Six workers on two cores: much of a test waits (grace periods, panes starting, deadlines), so
    // two workers kept the CPU only ~60 % busy; a third cut the wall time 301 → 254 s, a fourth (as
    // the suite grew) 291 → 253 s, a fifth 202–211 → 184–187 s and a sixth → 177 s (CI's order),
    // each filling time where the files that wait meet, until the CPU is busy throughout (~340 CPU-s
    // a run: 170 s is the floor). More contention brought out one race: Claude Code 2.1.332 as a
    // lead sending its first request before it had swarm's tools, which the --wait-ready hook now
    // waits out (cli/mcp/ready.ts). Beside two busy processes the suite is green in 212 s.
    maxWorkers: 6,
    // Each worker runs its test files one after another in one process instead of a fresh process
    // per file: ~90 s less CPU over the suite (its wall time 315 → 281 s on 2 cores). Every test
    // makes its own temp root, tmux socket and processes, so nothing leaks between files.
    isolate: false,
    // A tmux server takes its default shell from $SHELL, and a pane started without a command runs
    // it as a login shell, which reads the machine's ~/.profile and ~/.bashrc. On this machine those
    // run `pyenv init` and `pyenv rehash`, whose lock a killed pane leaves behind: each later login
    // bash then waited 60 s in a `sleep 0.1` loop, 1.6 CPU-s each, about 60 of them a run. The
    // suite's panes get /bin/sh (dash; ~/.profile reads ~/.bashrc only under bash), never anyone's rc files.
    //
    // CLAUDE_CODE_QUIET: every Claude Code the tests start, a teammate in a pane of a test's tmux
    // server too (its panes take the server's env), leaves its auto-updater and non-essential traffic
    // off: it ran `npm view` and `npm install -g` (offline, failing) and opened 9 TLS connections at
    // each start, some 0.7 CPU-s a start and 25 starts a run.
    //
    // SWARM_TEST_RUN marks every process the tests start (children inherit it), so that the summary
    // reporter finds any a test left running when the run ends (test/support/leftover-processes.ts).
    env: { SHELL: '/bin/sh', SWARM_TEST_RUN: String(process.pid), ...CLAUDE_CODE_QUIET, ...(tmpDir ? { TMPDIR: tmpDir } : {}) },
    sequence: { sequencer: ChecksFirst },
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Bundles the built modules the fake teammates and worker scripts load (SWARM_FAKE_LIB).
    globalSetup: ['./test/support/global-setup.ts'],
  },
});
