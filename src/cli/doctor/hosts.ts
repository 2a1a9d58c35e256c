// `swarm doctor --host <h>`: the machines teammates run on over ssh (the ssh backend), each checked
// through backends/ssh/host-check.ts: reachable by ssh without a prompt, tmux and swarm installed
// there (their versions listed), and the team root shared with it. One finding per failure, its
// fix the remedy the check named. It also says what file system the root is on here, and so that
// other machines' changes reach the watchers by their poll (storage/mounts.ts).
import { checkHost, type HostReport } from '../../backends/ssh/host-check.js';
import { TMUX_MIN_VERSION, parseTmuxVersion, tmuxTooOld } from '../../backends/tmux/version.js';
import { filesystemOf } from '../../storage/mounts.js';
import { SWARM_VERSION } from '../version.js';
import type { CheckResult, DoctorContext, Finding } from './machine-checks.js';

/** "what is wrong; what to do" → the two halves (the whole line twice when there is no `; `). */
function split(line: string): { problem: string; fix: string } {
  const at = line.indexOf('; ');
  return at < 0 ? { problem: line, fix: line } : { problem: line.slice(0, at), fix: line.slice(at + 2) };
}

/**
 * The findings and passed lines of one host's report. A swarm there of another version than this
 * one (`local`) is a warning: both sides read and write the same files.
 */
export function judgeHost(r: HostReport, local = SWARM_VERSION): CheckResult {
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
    else if (tmuxTooOld(parseTmuxVersion(r.tmux.version))) problem('ssh_host_tmux', `${r.tmux.version} there is older than ${TMUX_MIN_VERSION}; upgrade tmux on it to ${TMUX_MIN_VERSION} or newer`);
    else passed.push(`host ${r.host}: ${r.tmux.version}`);
  }
  if (r.swarm !== undefined) {
    if ('error' in r.swarm) problem('ssh_host_swarm', r.swarm.error);
    else {
      passed.push(`host ${r.host}: ${r.swarm.command} ${r.swarm.shown}`);
      const there = r.swarm.version === undefined ? undefined : /\d+\.\d+\.\d+\S*/.exec(r.swarm.version)?.[0];
      if (there !== undefined && there !== local) {
        findings.push({
          check: 'ssh_host_swarm_version',
          severity: 'warning',
          problem: `host ${r.host}: swarm ${there} there, ${local} here; both sides read and write the team's files, so a difference can break them`,
          fix: `install the same version there: npm install -g swarm-launcher@${local}`,
        });
      }
    }
  }
  if (r.sharedRoot !== undefined) {
    if ('error' in r.sharedRoot) problem('ssh_host_root', r.sharedRoot.error);
    else passed.push(`host ${r.host}: the team root is shared (${r.sharedRoot.path} there)`);
  }
  return { findings, passed };
}

/** Where the root is, and so how teammates on other machines' changes reach the watchers here. */
async function rootFilesystemLine(root: string): Promise<string> {
  const fs = await filesystemOf(root);
  if (fs === undefined) return `the team root ${root}: its file system could not be told; changes from other machines reach watchers by their poll (every second at most)`;
  return fs.remote
    ? `the team root ${root} is on ${fs.type} (${fs.mountPoint}): changes made on other machines reach watchers by their poll (every second at most), not inotify`
    : `the team root ${root} is on local ${fs.type} (${fs.mountPoint}): hosts mount it over NFS or sshfs; their changes reach watchers here by the poll (every second at most), not inotify`;
}

export async function checkHosts(ctx: DoctorContext): Promise<CheckResult> {
  if ((ctx.hosts ?? []).length === 0) return { findings: [], passed: [] };
  const results = await Promise.all(
    (ctx.hosts ?? []).map(async (host) => judgeHost(await checkHost({ host, root: ctx.root, remoteRoot: ctx.env.SWARM_REMOTE_ROOT, env: ctx.env, exec: ctx.exec }))),
  );
  return { findings: results.flatMap((r) => r.findings), passed: [await rootFilesystemLine(ctx.root), ...results.flatMap((r) => r.passed)] };
}
