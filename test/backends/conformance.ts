// The conformance suite every pane backend passes (tmux for real, iTerm2 through the fake it2,
// in-process through its request files and inside its host): `runBackendConformance(name,
// makeBackend)` inside a test file. It covers createPane, isAlive, probe (many panes at once),
// kill, capture, and plan (what a dry run prints: the teammate's argv, no secret on a command line).
//
// Each test runs a small node "probe" script (written to a temp dir) as the pane's command; the
// probe records its argv, one env var, cwd and pid in a JSON file and prints a `PROBE` line.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, realpath, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Backend, PaneRef, PaneSpec, PlanLine } from '../../src/backends/backend.js';
import { isProcessAlive } from '../../src/backends/process.js';
import { tempRoot, afterThisTest } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

export const PROBE_ENV = 'SWARM_PROBE_VALUE';
/**
 * How long a conformance check waits for what a pane did (its exit, its output, its stderr log): a
 * deadline, not a wait, so generous for a loaded machine. Over ssh the log comes back through sshfs,
 * and beside two CPU hogs and the rest of the suite 5 s was once too short.
 */
const DEADLINE_MS = 15_000;

const PROBE_SCRIPT = `
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
const [outFile, mode, ...rest] = process.argv.slice(2);
if (mode === 'stubborn') { process.on('SIGHUP', () => {}); process.on('SIGTERM', () => {}); }
const info = { argv: process.argv.slice(2), value: process.env.${PROBE_ENV} ?? null, cwd: process.cwd(), pid: process.pid };
console.log('PROBE ' + JSON.stringify(info));
writeFileSync(outFile + '.tmp', JSON.stringify(info));
renameSync(outFile + '.tmp', outFile);
if (mode === 'exit') process.exit(Number(rest[0] ?? 0));
if (mode === 'fail') {
  const words = rest.join(' ');
  process.stderr.write(words + '\\n');
  // tee copies to the pane before the log: once the log has the words, the pane had them while its terminal was open.
  const log = process.env.PROBE_STDERR_LOG;
  for (let waited = 0; log && waited < 10000 && !(existsSync(log) && readFileSync(log, 'utf8').includes(words)); waited += 20) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  process.exit(5);
}
setInterval(() => {}, 1 << 30);
`;

export interface ProbeInfo {
  argv: string[];
  value: string | null;
  cwd: string;
  pid: number;
}

/** A temp dir (support/tmp-root, removed after the test) holding the probe script; `pids` collects every probe pid seen, for cleanup. */
export class ProbeKit {
  readonly pids = new Set<number>();
  private constructor(
    readonly dir: string,
    readonly script: string,
  ) {}

  static async create(): Promise<ProbeKit> {
    const dir = await realpath(await tempRoot('swarm-probe-'));
    const script = path.join(dir, 'probe.mjs');
    await writeFile(script, PROBE_SCRIPT);
    return new ProbeKit(dir, script);
  }

  /** argv running the probe: it writes `outFile`, then waits (`wait`), exits (`exit <code>`), prints its words to stderr and exits 5 (`fail`) or ignores signals. */
  argv(outFile: string, mode: 'wait' | 'exit' | 'fail' | 'stubborn', ...rest: string[]): string[] {
    return [process.execPath, this.script, outFile, mode, ...rest];
  }

  outFile(): string {
    return path.join(this.dir, `out-${randomBytes(4).toString('hex')}.json`);
  }

  async read(outFile: string, ms = 8000): Promise<ProbeInfo> {
    const info = await waitFor(
      async () => JSON.parse(await readFile(outFile, 'utf8')) as ProbeInfo,
      ms,
      `probe output ${path.basename(outFile)}`,
    );
    this.pids.add(info.pid);
    return info;
  }

  /** SIGKILL every probe still alive (only pids this kit saw); the dir goes when the test ends. */
  async dispose(): Promise<void> {
    for (const pid of this.pids) {
      // An in-process backend's probe reports the host's pid: this very process.
      if (pid !== process.pid && isProcessAlive(pid)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    }
  }
}

export interface ConformanceHarness {
  backend: Backend;
  /** Tear down whatever the backend created (server, fake state); runs after every test. */
  cleanup?: () => Promise<void>;
}

export interface ConformanceOptions {
  /** Does the backend run real OS processes that can ignore SIGHUP/SIGTERM? Default true. */
  osProcesses?: boolean;
  /**
   * Does capture say how the command ended? `always`; `sometimes` (tmux 3.3a: the status follows
   * SIGCHLD, which it may never process); `never` (iTerm2: the shell stays). Default `always`.
   */
  exitStatus?: 'always' | 'sometimes' | 'never';
}

export function runBackendConformance(
  name: string,
  makeBackend: () => Promise<ConformanceHarness>,
  opts: ConformanceOptions = {},
): void {
  describe(`Backend conformance: ${name}`, () => {
    let kit: ProbeKit;
    let harness: ConformanceHarness;
    let backend: Backend;

    beforeEach(async () => {
      kit = await ProbeKit.create();
      afterThisTest(() => kit.dispose());
      harness = await makeBackend();
      if (harness.cleanup) afterThisTest(harness.cleanup);
      backend = harness.backend;
    });

    const spec = (argv: string[], extra: Partial<PaneSpec> = {}): PaneSpec => ({
      team: 'conf',
      name: 'alpha',
      color: 'blue',
      argv,
      env: {},
      cwd: kit.dir,
      ...extra,
    });

    it('createPane runs argv directly, with env, in cwd', async () => {
      const cwd = path.join(kit.dir, 'work dir; -n');
      await mkdir(cwd);
      const out = kit.outFile();
      const odd = ['a b', "it's", '"dq"', '$HOME', '`id`', ';', 'x;', '-n', '--', '#{pane_id}', '*', ''];
      const value = `v "q" 'sq' $HOME; #{x} \\ end;`;
      const pane = await backend.createPane(spec(kit.argv(out, 'wait', ...odd), { env: { [PROBE_ENV]: value }, cwd }));
      expect(pane.backendType).toBe(backend.type);
      const info = await kit.read(out);
      expect(info.argv).toEqual([out, 'wait', ...odd]);
      expect(info.value).toBe(value);
      expect(info.cwd).toBe(cwd);
      if (pane.pid !== undefined) expect(pane.pid).toBe(info.pid);
      await backend.kill(pane);
    });

    it('isAlive is true while running, false after a verified kill', async () => {
      const out = kit.outFile();
      const pane = await backend.createPane(spec(kit.argv(out, 'wait')));
      const info = await kit.read(out);
      expect(await backend.isAlive(pane)).toBe(true);
      await backend.kill(pane);
      expect(await backend.isAlive(pane)).toBe(false);
      if (opts.osProcesses !== false) expect(isProcessAlive(info.pid)).toBe(false);
    });

    it('isAlive turns false when the command exits by itself', async () => {
      const out = kit.outFile();
      const pane = await backend.createPane(spec(kit.argv(out, 'exit', '0')));
      await kit.read(out);
      await waitFor(async () => !(await backend.isAlive(pane)), DEADLINE_MS, 'isAlive false after exit');
      await backend.kill(pane);
    });

    it('probe answers for many panes at once: alive, exited (dead or gone), gone after a kill', async () => {
      expect(await backend.probe([])).toEqual([]);
      const outA = kit.outFile();
      const outB = kit.outFile();
      const a = await backend.createPane(spec(kit.argv(outA, 'wait')));
      const b = await backend.createPane(spec(kit.argv(outB, 'exit', '0'), { name: 'beta' }));
      await kit.read(outA);
      await kit.read(outB);
      const [stillA, exitedB] = await waitFor(async () => {
        const states = await backend.probe([a, b]);
        return states[1] !== 'alive' ? states : undefined;
      }, DEADLINE_MS, 'probe sees beta exit');
      expect(stillA).toBe('alive');
      expect(['dead', 'gone']).toContain(exitedB);
      await backend.kill(a);
      await backend.kill(b);
      expect(await backend.probe([a, b])).toEqual(['gone', 'gone']);
    });

    it('plan carries the argv intact, runs nothing, and puts no env value on a command line', async () => {
      // Not `;`: tmux's own escaping (`\\;`) is part of the argv a plan shows.
      const odd = ['a b', "it's", '$HOME', '"dq"', '--'];
      const secret = `sk-${randomBytes(6).toString('hex')}`;
      const out = kit.outFile();
      const s = spec(kit.argv(out, 'wait', ...odd), { env: { [PROBE_ENV]: secret } });
      const lines = backend.plan(s);
      expect(lines.length).toBeGreaterThan(0);
      expect(backend.plan(s)).toEqual(lines); // pure: the same answer twice
      expect(carriesArgv(lines, s.argv)).toBe(true);
      for (const l of lines) if ('run' in l) expect(l.run.join(' ')).not.toContain(secret);
      await expect(readFile(out, 'utf8')).rejects.toThrow(); // nothing ran
    });

    it('capture returns the last non-blank lines and how the command ended, also after it crashed', async () => {
      const out = kit.outFile();
      const pane: PaneRef = await backend.createPane(spec(kit.argv(out, 'exit', '3')));
      await kit.read(out);
      await waitFor(async () => !(await backend.isAlive(pane)), DEADLINE_MS, 'the crash');
      // The PROBE line is the first thing in a pane that is empty below it: 2 lines must still find it.
      const shown = await waitFor(async () => {
        const o = await backend.capture(pane, 2);
        return o.lines.some((l) => l.includes('PROBE ')) ? o : undefined;
      }, DEADLINE_MS, 'PROBE line in capture');
      expect(shown.lines.length).toBeLessThanOrEqual(2);
      expect(shown.lines.join('\n')).toContain(`"argv":["${out}","exit","3"]`);
      expect(shown.lines.every((l) => l.trim() !== '' && !l.startsWith('Pane is dead'))).toBe(true);
      const exitStatus = opts.exitStatus ?? 'always';
      if (exitStatus === 'never') expect(shown.exit).toBeUndefined();
      else if (exitStatus === 'always') expect(shown.exit).toEqual({ code: 3 });
      else if (shown.exit !== undefined) expect(shown.exit).toEqual({ code: 3 });
      await backend.kill(pane);
    });

    it("stderrLog gets the command's error output, and the pane still shows it", async () => {
      const out = kit.outFile();
      const log = path.join(kit.dir, 'alpha.stderr');
      // A process that exits at once may leave the pane without its last lines (tmux closes the
      // terminal as it exits, before a loaded machine schedules tee: the log still gets them); the
      // probe waits until its words are in the log, so the pane's copy is the one checked here.
      const pane = await backend.createPane(spec(kit.argv(out, 'fail', 'PROBE-ERR', 'no', 'key'), { stderrLog: log, env: { PROBE_STDERR_LOG: log } }));
      const info = await kit.read(out);
      expect(info.argv).toEqual([out, 'fail', 'PROBE-ERR', 'no', 'key']); // the wrapper passes argv through intact
      if (pane.pid !== undefined) expect(pane.pid).toBe(info.pid); // and the pane's process is still the command
      await waitFor(async () => !(await backend.isAlive(pane)), DEADLINE_MS, 'the failure');
      expect(await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('PROBE-ERR no key'), DEADLINE_MS, 'the log')).toBe(true);
      await waitFor(async () => (await backend.capture(pane, 5)).lines.some((l) => l.includes('PROBE-ERR no key')), DEADLINE_MS, 'the error in the pane');
      await backend.kill(pane);
    });

    if (opts.osProcesses !== false) {
      it('kill escalates to SIGKILL for a process ignoring SIGHUP and SIGTERM, and verifies it', async () => {
        const out = kit.outFile();
        const pane = await backend.createPane(spec(kit.argv(out, 'stubborn')));
        const info = await kit.read(out);
        await backend.kill(pane);
        expect(isProcessAlive(info.pid)).toBe(false);
        expect(await backend.isAlive(pane)).toBe(false);
      }, 20000);
    }
  });
}

/** Does a plan show `argv` intact: as consecutive arguments of a command, or shell-quoted inside one or a note? */
export function carriesArgv(lines: readonly PlanLine[], argv: readonly string[]): boolean {
  const quoted = quote([...argv]);
  return lines.some((l) => {
    if (!('run' in l)) return l.note.includes(quoted);
    const run = l.run;
    for (let i = 0; i + argv.length <= run.length; i++) if (argv.every((a, j) => run[i + j] === a)) return true;
    return run.some((a) => a.includes(quoted));
  });
}
