// `swarm doctor --host <h>`: the machines teammates run on over ssh (the ssh backend), each checked
// through backends/ssh/host-check.ts: reachable by ssh without a prompt, tmux and swarm installed
// there (their versions listed), and the team root shared with it. One finding per failure, its
// fix the remedy the check named.
import { checkHost, type HostReport } from '../../backends/ssh/host-check.js';
import type { CheckResult, DoctorContext, Finding } from './machine-checks.js';

/** "what is wrong; what to do" → the two halves (the whole line twice when there is no `; `). */
function split(line: string): { problem: string; fix: string } {
  const at = line.indexOf('; ');
  return at < 0 ? { problem: line, fix: line } : { problem: line.slice(0, at), fix: line.slice(at + 2) };
}

function judge(r: HostReport): CheckResult {
  const findings: Finding[] = [];
  const passed: string[] = [];
  const problem = (check: string, line: string): void => {
    const { problem: p, fix } = split(line);
    findings.push({ check, severity: 'problem', problem: p.startsWith(`ssh ${r.host}`) ? p : `host ${r.host}: ${p}`, fix });
  };
  if (r.reach !== undefined) {
    problem('ssh_host', r.reach.error);
    return { findings, passed };
  }
  passed.push(`host ${r.host}: reachable over ssh (no prompt)`);
  if (r.tmux !== undefined) {
    if ('error' in r.tmux) problem('ssh_host_tmux', r.tmux.error);
    else passed.push(`host ${r.host}: ${r.tmux.version}`);
  }
  if (r.swarm !== undefined) {
    if ('error' in r.swarm) problem('ssh_host_swarm', r.swarm.error);
    else passed.push(`host ${r.host}: ${r.swarm.command} ${r.swarm.version}`);
  }
  if (r.sharedRoot !== undefined) {
    if ('error' in r.sharedRoot) problem('ssh_host_root', r.sharedRoot.error);
    else passed.push(`host ${r.host}: the team root is shared (${r.sharedRoot.path} there)`);
  }
  return { findings, passed };
}

export async function checkHosts(ctx: DoctorContext): Promise<CheckResult> {
  const results = await Promise.all(
    (ctx.hosts ?? []).map(async (host) => judge(await checkHost({ host, root: ctx.root, remoteRoot: ctx.env.SWARM_REMOTE_ROOT, env: ctx.env, exec: ctx.exec }))),
  );
  return { findings: results.flatMap((r) => r.findings), passed: results.flatMap((r) => r.passed) };
}
