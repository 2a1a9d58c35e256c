// CLI start-up benchmark (issue 31 item 5): wall time of one `swarm` process, start to exit, for
// `--version`, `--help`, `team list` and `status --team <t>` (a temp CLAUDE_CONFIG_DIR holding one
// team with no teammates), through two entries measured in the same run, runs interleaved:
//   - before: scripts/bench/full-cli.mjs, every command and what it does loaded before main();
//   - after: bin/swarm.js, each command's handler loaded only when that command runs;
// and a bare `node -e 0` as the floor. Each row also checks that both entries printed the same
// stdout and stderr and exited alike. Where GNU time is installed (/usr/bin/time), each process's
// CPU time (user + system) is reported too: on a shared machine it moves less than wall time.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { summarize, table } from './stats.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SWARM_BIN = path.join(HERE, '../../bin/swarm.js');
const FULL_CLI = path.join(HERE, 'full-cli.mjs');
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
    const rows = [...commands.map((argv) => ({ label: `swarm ${argv.join(' ')}`, before: [FULL_CLI, ...argv], after: [SWARM_BIN, ...argv] })), { label: 'node -e 0 (the floor, in both columns)', before: ['-e', '0'], after: ['-e', '0'] }];
    const seen = rows.map(() => ({ before: [] as Outcome[], after: [] as Outcome[], same: true }));
    for (let i = 0; i < runs; i++) {
      rows.forEach((row, r) => {
        const before = runOnce(row.before, env, cpuFile);
        const after = runOnce(row.after, env, cpuFile);
        seen[r]!.before.push(before);
        seen[r]!.after.push(after);
        if (before.output !== after.output) seen[r]!.same = false;
      });
      process.stderr.write('.');
    }
    const p50 = (outs: Outcome[], f: (o: Outcome) => number | undefined): number => summarize(outs.flatMap((o) => f(o) ?? [])).p50;
    const cells = seen.map((s, r) => {
      const [wb, wa] = [p50(s.before, (o) => o.ms), p50(s.after, (o) => o.ms)];
      const cpu = cpuFile === undefined ? [] : [p50(s.before, (o) => o.cpuMs), p50(s.after, (o) => o.cpuMs)];
      return [rows[r]!.label, wb, wa, `${(wb / wa).toFixed(2)}×`, ...cpu, s.same ? 'yes' : 'NO'];
    });
    const cpuHeaders = cpuFile === undefined ? [] : ['CPU ms before', 'CPU ms after'];
    process.stdout.write(
      `\n### swarm start-up per process, p50 of ${runs} interleaved runs (load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end)\n\n` +
        table(['command', 'wall ms before (all loaded)', 'wall ms after (bin/swarm.js)', 'speed-up', ...cpuHeaders, 'same output'], cells),
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
