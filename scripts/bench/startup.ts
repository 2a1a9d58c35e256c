// CLI start-up benchmark (issue 31 item 5): wall time of one `swarm` process, start to exit, for
// `--version`, `--help`, `team list` and `status --team <t>` (a temp CLAUDE_CONFIG_DIR holding one
// team with no teammates), through three entries measured in the same run, runs interleaved:
//   - all loaded: scripts/bench/full-cli.mjs, every command and what it does loaded before main();
//   - modules: scripts/bench/modules-cli.mjs, the compiled modules of dist/cli/, each command's
//     handler loaded only when that command runs (bin/swarm.js before the bundle);
//   - bundle: bin/swarm.js, which runs dist/bundle/ (scripts/bundle.mjs), lazy in the same places;
// and a bare `node -e 0` as the floor. Each row also checks that all three printed the same stdout
// and stderr and exited alike. Where GNU time is installed (/usr/bin/time), each process's CPU time
// (user + system) is reported too: on a shared machine it moves less than wall time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize, table } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SWARM_BIN = path.join(HERE, '../../bin/swarm.js');
const FULL_CLI = path.join(HERE, 'full-cli.mjs');
const MODULES_CLI = path.join(HERE, 'modules-cli.mjs');
const TEAM = 'bench';
const GNU_TIME = '/usr/bin/time';

interface Outcome {
  ms: number;
  /** User + system CPU ms, when GNU time measured it. */
  cpuMs: number | undefined;
  output: string;
}

/** One `node <nodeArgs>` process, start to exit; `cpuFile` set: through GNU time, which writes the CPU seconds there. */
function runOnce(nodeArgs: string[], env: NodeJS.ProcessEnv, cpuFile?: string): Outcome {
  const [cmd, args] = cpuFile === undefined ? [process.execPath, nodeArgs] : [GNU_TIME, ['-f', '%U %S', '-o', cpuFile, process.execPath, ...nodeArgs]];
  const t0 = performance.now();
  const r = spawnSync(cmd, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const ms = performance.now() - t0;
  if (r.error) throw r.error;
  const cpu = cpuFile === undefined ? undefined : readFileSync(cpuFile, 'utf8').trim().split('\n').at(-1)!.split(' ').map(Number);
  return { ms, cpuMs: cpu === undefined ? undefined : Math.round((cpu[0]! + cpu[1]!) * 1000), output: `${r.stdout}\n--stderr--\n${r.stderr}\n--exit ${r.status}` };
}

export async function startupBench(): Promise<void> {
  const runs = process.env.BENCH_QUICK === '1' ? 5 : 20;
  const root = mkdtempSync(path.join(os.tmpdir(), 'swarm-bench-startup-'));
  const env: NodeJS.ProcessEnv = { ...process.env, CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' };
  const cpuFile = existsSync(GNU_TIME) ? path.join(root, 'cpu.txt') : undefined;
  for (const name of ['SWARM_TEAM', 'TMUX', 'TMUX_PANE', 'FORCE_COLOR']) delete env[name];
  try {
    const created = runOnce([SWARM_BIN, 'team', 'create', TEAM], env);
    if (!created.output.endsWith('--exit 0')) throw new Error(`could not create the bench team:\n${created.output}`);
    const commands = [['--version'], ['--help'], ['team', 'list'], ['status', '--team', TEAM]];
    const entries = [FULL_CLI, MODULES_CLI, SWARM_BIN];
    const rows = [
      ...commands.map((argv) => ({ label: `swarm ${argv.join(' ')}`, argvs: entries.map((e) => [e, ...argv]) })),
      { label: 'node -e 0 (the floor, in every column)', argvs: entries.map(() => ['-e', '0']) },
    ];
    const seen = rows.map(() => ({ outs: entries.map(() => [] as Outcome[]), same: true }));
    for (let i = 0; i < runs; i++) {
      rows.forEach((row, r) => {
        const outs = row.argvs.map((argv) => runOnce(argv, env, cpuFile));
        outs.forEach((o, e) => seen[r]!.outs[e]!.push(o));
        if (outs.some((o) => o.output !== outs[0]!.output)) seen[r]!.same = false;
      });
      process.stderr.write('.');
    }
    const p50 = (outs: Outcome[], f: (o: Outcome) => number | undefined): number => summarize(outs.flatMap((o) => f(o) ?? [])).p50;
    const cells = seen.map((s, r) => {
      const wall = s.outs.map((o) => p50(o, (x) => x.ms));
      const cpu = cpuFile === undefined ? [] : s.outs.map((o) => p50(o, (x) => x.cpuMs));
      return [rows[r]!.label, ...wall, `${(wall[1]! / wall[2]!).toFixed(2)}×`, ...cpu, s.same ? 'yes' : 'NO'];
    });
    const cpuHeaders = cpuFile === undefined ? [] : ['CPU ms all loaded', 'CPU ms modules', 'CPU ms bundle'];
    process.stdout.write(
      `\n### swarm start-up per process, p50 of ${runs} interleaved runs (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end)\n\n` +
        table(['command', 'wall ms all loaded', 'wall ms modules (dist/cli)', 'wall ms bundle (bin/swarm.js)', 'bundle speed-up over modules', ...cpuHeaders, 'same output'], cells),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
