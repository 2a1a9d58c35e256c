// `swarm doctor [--fix]`, in-process (main(argv, io)) but for a healthy root and a FIFO's deadline
// (the real executable): stale lock dirs found and removed (a fresh one left
// alone), loose permissions fixed, corrupt files listed and never deleted, dead members flagged and
// only marked inactive, orphaned requests cleared, leader leases no live holder proves reported and
// cleared, orphaned `swarm-<team>` tmux sessions (private socket) killed while another root's
// session is left alone, a task list's odd entries named (and its locks and kept-aside files
// found). Plus the pure tmux/it2 checks with a scripted exec.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { parseTmuxVersion } from '../../../src/backends/registry.js';
import { checkIt2, checkTmux, type DoctorContext } from '../../../src/cli/doctor/machine-checks.js';
import { checkLeases } from '../../../src/cli/doctor/lease.js';
import type { DoctorReport } from '../../../src/cli/handlers/doctor.js';
import { makeDemoRoot } from '../../../src/cli/demo/root.js';
import type { Exec } from '../../../src/backends/process.js';
import { TmuxServer, listAllPanes, newSession } from '../../../src/backends/tmux/commands.js';
import { ensureLeadKey, leadKeyPath } from '../../../src/permissions/keys.js';
import { appendAudit, readAudit } from '../../../src/permissions/audit.js';
import { addMember, createTeam, readTeam, teamPaths, updateMember, updateTeam } from '../../../src/team/index.js';
import type { LeadLease } from '../../../src/protocol/config.js';
import { forgedLeases } from '../../support/forged-leases.js';
import { writePending } from '../../../src/permissions/pending.js';
import { encodeControl } from '../../../src/protocol/control.js';
import { pendingRecord } from '../../support/pending-record.js';
import { swarm, swarmInProcess, type CliResult } from '../../support/cli.js';
import { modeOf } from '../../support/fs-tree.js';
import { tmuxForThisTest } from '../../support/tmux.js';
import { deadPid, startSleeper, writePendingFor } from '../../support/team-fixture.js';
import { afterThisTest, useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';
import { Team } from '../../../src/team/team.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { TaskList } from '../../../src/tasks/index.js';
import { writeDamaged } from '../../support/damaged-file.js';

const TEAM = 't';
let root: string;
let socket: string;

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  socket = tmuxForThisTest(); // doctor never looks at the default tmux server in these tests
  await createTeam(root, { name: TEAM, cwd: '/work/project' });
});

async function doctor(...args: string[]): Promise<CliResult & { report: DoctorReport }> {
  // TMPDIR: the demo check looks for demo roots there, never in the machine's /tmp.
  const r = await swarmInProcess(root, ['doctor', '--json', ...args], { SWARM_TMUX_SOCKET: socket, TMUX: '', TERM_PROGRAM: '', ITERM_SESSION_ID: '', TMPDIR: root });
  try {
    return { ...r, report: JSON.parse(r.stdout) as DoctorReport };
  } catch {
    throw new Error(`swarm doctor ${args.join(' ')} printed no JSON (exit ${r.exitCode}): ${r.stderr}`);
  }
}

const of = (r: DoctorReport, check: string): DoctorReport['findings'] => r.findings.filter((f) => f.check === check);

describe('swarm doctor', () => {
  it('a healthy root: exit 0, every check passed', async () => {
    const r = await doctor();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.report).toMatchObject({ root, healthy: true, findings: [] });
    expect(r.report.passed).toEqual(
      expect.arrayContaining([expect.stringMatching(/^tmux \d/), expect.stringMatching(/^permissions: /), 'no stale locks', 'no corrupt files kept aside', 'task lists hold only task files']),
    );
    const human = await swarm(root, ['doctor'], { SWARM_TMUX_SOCKET: socket, TMPDIR: root });
    expect(human.stdout.split('\n').at(-1)).toBe('healthy');
  });

  it('a stale lock dir is found and removed by --fix; a fresh one is left alone', async () => {
    const p = teamPaths(root, TEAM);
    const stale = `${p.inbox('alice')}.lock`;
    const fresh = `${p.config}.lock`;
    await fs.mkdir(stale);
    await fs.mkdir(fresh);
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(stale, old, old);

    // A live holder refreshes its lock's mtime every second; so does this test before each run.
    const touch = async (): Promise<void> => {
      const now = new Date();
      await fs.utimes(fresh, now, now);
    };
    await touch();
    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'stale_lock')).toEqual([
      expect.objectContaining({ severity: 'problem', path: stale, fixable: true, problem: expect.stringMatching(/^stale lock teams\/t\/inboxes\/alice\.json\.lock: untouched for 2m/) }),
    ]);

    await touch();
    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect(of(fixed.report, 'stale_lock')[0]).toMatchObject({ fixed: true, fixResult: 'removed stale lock teams/t/inboxes/alice.json.lock' });
    await expect(fs.stat(stale)).rejects.toThrow(/ENOENT/);
    expect((await fs.stat(fresh)).isDirectory()).toBe(true);
    await touch();
    expect((await doctor()).report.passed).toContain('no stale locks (1 touched within 10 s: in use, or a holder that died since; rerun later to tell)');
  });

  it('a lock path that is a symlink is a problem; --fix removes the link and never what it points to', async () => {
    const p = teamPaths(root, TEAM);
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    const link = `${p.inbox('alice')}.lock`;
    await fs.symlink(elsewhere, link);
    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'linked_lock')).toEqual([expect.objectContaining({ severity: 'problem', path: link, fixable: true, problem: expect.stringMatching(/^lock teams\/t\/inboxes\/alice\.json\.lock is a symlink/) })]);
    expect(r.report.passed).not.toContain('no stale locks');
    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    await expect(fs.lstat(link)).rejects.toThrow(/ENOENT/);
    expect((await fs.stat(elsewhere)).isDirectory()).toBe(true);
  });

  it("odd entries of a team's task list are problems named with their fix, read by name only (no hang on a FIFO); its kept-aside files and stale locks are found too", async () => {
    const tasks = new TaskList(new Team(root, TEAM));
    await tasks.create({ subject: 'real', description: '' }, 'team-lead');
    const dir = path.join(root, 'tasks', TEAM);
    const fifo = path.join(dir, '2.json');
    execFileSync('mkfifo', [fifo]); // no writer: a blocking open would hang doctor for good
    await fs.writeFile(path.join(root, 'secret.txt'), 'SECRET-BYTES');
    await fs.symlink(path.join(root, 'secret.txt'), path.join(dir, '3.json'));
    await fs.writeFile(path.join(dir, '1234567890123456.json'), '{}');
    await fs.writeFile(path.join(dir, '.highwatermark'), 'seven');
    await fs.writeFile(path.join(dir, '5.json.corrupt-1700000000000'), 'kept');
    const lock = path.join(dir, '1.json.lock');
    await fs.mkdir(lock);
    const old = new Date(Date.now() - 120_000);
    await fs.utimes(lock, old, old);

    const r = await swarm(root, ['doctor', '--json'], { SWARM_TMUX_SOCKET: socket, TMUX: '', TERM_PROGRAM: '', ITERM_SESSION_ID: '', TMPDIR: root }, { deadlineMs: 60_000 });
    expect(r.timedOut, 'swarm doctor hung on the FIFO').toBe(false);
    expect(r.exitCode, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as DoctorReport;
    const entries = of(report, 'task_entry').sort((a, b) => (a.path ?? '').localeCompare(b.path ?? ''));
    expect(entries.map((f) => [f.severity, f.path, f.problem, f.fix])).toEqual([
      ['problem', path.join(dir, '.highwatermark'), expect.stringMatching(/\.highwatermark is not a whole number: not counted when numbering new tasks/), expect.stringMatching(/^put the highest id ever issued in it/)],
      ['problem', path.join(dir, '1234567890123456.json'), expect.stringMatching(/is past the highest task id \(999999999999999\)/), 'rename it to a free id and set its "id" to match, or remove it'],
      ['problem', fifo, `${fifo} is a FIFO (named pipe), not a regular file: skipped, never read`, `remove it (rm '${fifo}')`],
      ['problem', path.join(dir, '3.json'), `${path.join(dir, '3.json')} is a symbolic link, not a regular file: skipped, never read`, `remove it (rm '${path.join(dir, '3.json')}')`],
    ]);
    expect(r.stdout).not.toContain('SECRET');
    expect(of(report, 'corrupt_file').map((f) => f.path)).toEqual([path.join(dir, '5.json.corrupt-1700000000000')]);
    expect(of(report, 'stale_lock').map((f) => f.path)).toEqual([lock]);
    expect(report.passed).not.toContain('task lists hold only task files');
    expect((await fs.lstat(fifo)).isFIFO()).toBe(true); // doctor removes none of them
  });

  it('a symlinked inboxes/ or permissions/ directory is a problem with a by-hand fix (doctor never moves team files)', async () => {
    const p = teamPaths(root, TEAM);
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    // A question in team-lead's inbox, so the checks that look for one meet the link too.
    await addMember(new Team(root, TEAM), { name: 'worker', cwd: '/work/project' });
    const frame = encodeControl({ type: 'permission_request', request_id: 'perm-1-linked', agent_id: 'worker', tool_name: 'Bash', tool_use_id: 'toolu_1', description: '', input: {}, permission_suggestions: [] });
    await new Mailbox({ team: new Team(root, TEAM) }).append('team-lead', { from: 'worker', text: frame });
    await fs.rm(p.permissions, { recursive: true });
    await fs.symlink(elsewhere, p.permissions);
    for (const args of [[], ['--fix']]) {
      const r = await doctor(...args);
      expect(r.exitCode, r.stdout).toBe(1);
      expect(of(r.report, 'linked_dir')).toEqual([
        expect.objectContaining({ severity: 'problem', path: p.permissions, fixable: false, problem: `teams/t/permissions is a symlink (to ${elsewhere}); swarm refuses to read or write team files through it, so every command that needs it fails` }),
      ]);
      expect(of(r.report, 'linked_dir')[0]!.fix).toBe(`replace it with a real directory: rm '${p.permissions}' && mkdir -m 700 '${p.permissions}' (first copy in what you need from ${elsewhere})`);
    }
    expect((await fs.lstat(p.permissions)).isSymbolicLink()).toBe(true);
  });

  it('an audit log whose chain is broken is a problem; --fix never touches the log', async () => {
    const p = teamPaths(root, TEAM);
    for (const id of ['perm-1-a', 'perm-2-b', 'perm-3-c']) await appendAudit(p, { event: 'request', id, at: 1, worker: 'w1' });
    expect((await doctor()).report.passed).toContain('audit logs unbroken');
    const lines = (await fs.readFile(p.audit, 'utf8')).split('\n');
    const edited = [lines[0], lines[1]!.replace('perm-2-b', 'perm-2-x'), ...lines.slice(2)].join('\n');
    await fs.writeFile(p.audit, edited);
    for (const args of [[], ['--fix']]) {
      const r = await doctor(...args);
      expect(r.exitCode, r.stdout).toBe(1);
      const [f] = of(r.report, 'audit_chain');
      expect(f).toMatchObject({ severity: 'problem', path: p.audit, fixable: false, problem: 'teams/t/permissions/audit.jsonl line 3 does not follow line 2 (line 2 was edited, or lines between were removed)' });
      expect(f!.fix).toMatch(new RegExp(`^look at the lines around it: sed -n '2,3p' '${p.audit}'; swarm never rewrites the log`));
    }
    expect(await fs.readFile(p.audit, 'utf8')).toBe(edited);
  });

  it('an empty or corrupt lead key is a problem whose fix is to delete it and respawn; a missing one is fine', async () => {
    const team = new Team(root, TEAM);
    expect((await doctor()).report.passed).toContain('no unreadable lead keys');
    await ensureLeadKey(team);
    await fs.writeFile(leadKeyPath(team), '');
    const r = await doctor();
    expect(r.exitCode).toBe(1);
    const [f] = of(r.report, 'lead_key');
    expect(f).toMatchObject({ severity: 'problem', team: TEAM, fixable: false, problem: "team t's lead key is unusable, so no message from the leader can be signed" });
    expect(f!.fix).toBe(`lead key file ${leadKeyPath(team)} is not JSON; delete ${leadKeyPath(team)} to make a new key (running teammates must then be respawned)`);
  });

  it('loose permissions on the root, a team dir and a key file are reported and chmod-ed by --fix', async () => {
    await ensureLeadKey(new Team(root, TEAM));
    const key = leadKeyPath(new Team(root, TEAM));
    const teamDir = teamPaths(root, TEAM).dir;
    await fs.chmod(root, 0o755);
    await fs.chmod(teamDir, 0o750);
    await fs.chmod(key, 0o644);

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'permissions').map((f) => [f.path, f.fix])).toEqual([
      [root, `chmod 700 ${root}  (swarm doctor --fix does it)`],
      [teamDir, `chmod 700 ${teamDir}  (swarm doctor --fix does it)`],
      [key, `chmod 600 ${key}  (swarm doctor --fix does it)`],
    ]);
    expect(of(r.report, 'permissions')[0]!.problem).toBe(`the swarm root ${root} is open to other users (mode 0755, expected 0700)`);

    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect([await modeOf(root), await modeOf(teamDir), await modeOf(key)]).toEqual([0o700, 0o700, 0o600]);
  });

  it("a root shared with Claude Code (its settings.json there) is reported, never chmod-ed; swarm's own dirs still are", async () => {
    await fs.writeFile(path.join(root, 'settings.json'), '{}\n');
    const teamDir = teamPaths(root, TEAM).dir;
    await fs.chmod(root, 0o755);
    await fs.chmod(teamDir, 0o750);
    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0); // a warning is left, no problem
    const [rootFinding, dirFinding] = of(fixed.report, 'permissions');
    expect(rootFinding).toMatchObject({ severity: 'warning', path: root, fixable: false, problem: `the swarm root ${root} is open to other users (mode 0755); it is Claude Code's directory too, so doctor leaves it alone` });
    expect(dirFinding).toMatchObject({ path: teamDir, fixed: true });
    expect([await modeOf(root), await modeOf(teamDir)]).toEqual([0o755, 0o700]);
  });

  it('a corrupt file kept aside is listed with its size and never deleted (a warning: exit 0)', async () => {
    const kept = `${teamPaths(root, TEAM).inbox('alice')}.corrupt-1733140000000`;
    await fs.writeFile(kept, '[{"from": ', { mode: 0o600 });
    for (const args of [[], ['--fix']]) {
      const r = await doctor(...args);
      expect(r.exitCode, r.stdout).toBe(0);
      expect(of(r.report, 'corrupt_file')).toEqual([
        expect.objectContaining({ severity: 'warning', path: kept, fixable: false, problem: expect.stringMatching(/^kept aside: teams\/t\/inboxes\/alice\.json\.corrupt-1733140000000 \(10 B, /) }),
      ]);
      expect(await fs.readFile(kept, 'utf8')).toBe('[{"from": ');
    }
    const human = await swarmInProcess(root, ['doctor'], { SWARM_TMUX_SOCKET: socket, TMPDIR: root });
    expect(human.stdout).toMatch(/^! kept aside: teams\/t\/inboxes\/alice\.json\.corrupt-1733140000000 \(10 B, .*\n {4}fix: inspect it .* swarm never does$/m);
  });

  it('a corrupt config.json is a problem whose fix mends it by hand, never "team delete"; the file is left untouched', async () => {
    const config = teamPaths(root, TEAM).config;
    await writeDamaged(config, '{ "name": "t", ', { mode: 0o600 });
    for (const args of [[], ['--fix']]) {
      const r = await doctor(...args);
      expect(r.exitCode, r.stdout).toBe(1);
      const [f] = of(r.report, 'team_config');
      expect(f).toMatchObject({ severity: 'problem', team: TEAM, problem: "team t's config.json is broken" });
      expect(f!.fix).toContain(`jq . '${config}'`);
      expect(f!.fix).not.toMatch(/delete/);
      expect(await fs.readFile(config, 'utf8')).toBe('{ "name": "t", ');
    }
    const list = await swarmInProcess(root, ['team', 'list']);
    expect(list.stdout).toContain('t'); // still listed
  });

  it('a dead member marked active is a problem: --fix marks it inactive (kept), its orphaned request is cleared', async () => {
    const live = await startSleeper();
    const dead = await deadPid();
    for (const [name, pid] of [['ghost', dead], ['worker', live]] as const) {
      await addMember(new Team(root, TEAM), { name, cwd: '/work/project' });
      await updateMember(new Team(root, TEAM), name, { backendType: 'in-process', tmuxPaneId: 'in-process', pid, isActive: true });
    }
    const orphan = await writePendingFor(root, TEAM, 'ghost');
    const kept = await writePendingFor(root, TEAM, 'worker');

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'dead_member')).toEqual([
      expect.objectContaining({
        severity: 'problem',
        team: TEAM,
        problem: `member ghost (team t) is marked active but its process ${dead} is dead`,
        fix: 'resume it with: swarm resume ghost --team t, or remove it with: swarm kill ghost --team t  (swarm doctor --fix only marks it inactive)',
      }),
    ]);
    expect(of(r.report, 'orphan_permission').map((f) => f.fix)).toEqual([`swarm permissions clear ${orphan} --team t  (swarm doctor --fix does it)`]);

    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    const ghost = (await readTeam(new Team(root, TEAM))).members.find((m) => m.name === 'ghost');
    expect(ghost?.isActive).toBe(false);
    const pending = await fs.readdir(teamPaths(root, TEAM).pending);
    expect(pending).toEqual([`${kept}.json`]);
    expect((await readAudit(teamPaths(root, TEAM))).filter((e) => e.id === orphan).map((e) => e.event)).toEqual(['cleared']);

    const again = await doctor();
    expect(again.exitCode).toBe(0);
    expect(of(again.report, 'dead_member')).toEqual([
      expect.objectContaining({ severity: 'warning', fixable: false, fix: 'resume it with: swarm resume ghost --team t, or remove it with: swarm kill ghost --team t' }),
    ]);
  });

  it('a leader lease no live holder proves is a problem saying why; --fix clears it, and leaves a live Claude Code leader alone', async () => {
    const forged = await forgedLeases(os.hostname());
    const gone = await deadPid();
    const leases: LeadLease[] = [
      ...forged.map(([, lease]) => lease),
      { pid: gone, claimedAt: Date.now(), renewedAt: Date.now(), host: os.hostname(), kind: 'console' },
      { pid: await startSleeper(), claimedAt: 1 }, // Claude Code's, the last: its live pid is all there is
    ];
    const names = leases.map((_, i) => `lease-${i}`);
    for (const [i, lease] of leases.entries()) {
      const name = names[i]!;
      const { team } = await createTeam(root, { name });
      await updateTeam(team, (c) => void (c.leadProcess = lease));
    }

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    const found = of(r.report, 'dead_lease');
    expect(found.map((f) => [f.team, f.severity, f.fixable])).toEqual(names.slice(0, -1).map((name) => [name, 'problem', true]));
    expect(found[0]!.problem).toBe("team lease-0's leader lease names pid 1 (an agent lead in a console), which is not believed: it was claimed before this machine last booted (pid 1 is another process now)");
    expect(found.map((f) => f.problem.split('which is not believed: ')[1])).toEqual([
      'it was claimed before this machine last booted (pid 1 is another process now)',
      expect.stringMatching(/^it was last renewed 36\d\d s ago \(a live holder renews every 10 s\)$/),
      expect.stringMatching(/^pid \d+ is another process now \(it started at another time than the holder\)$/),
      'it says it was renewed at 2100-01-01T00:00:00.000Z, in the future (a clock far ahead, or a forged record)',
      'it says it was renewed at 2100-01-01T00:00:00.000Z, in the future (a clock far ahead, or a forged record)',
      `its process ${gone} has exited`,
    ]);
    expect(found[4]!.problem).toMatch(/names pid 4242 on elsewhere \(an agent lead in a console\)/);
    expect(found[0]!.fix).toBe('swarm doctor --fix clears it (swarm already ignores it: the next swarm lead or swarm run --team lease-0 claims the lease)');

    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect(of(fixed.report, 'dead_lease').map((f) => [f.fixed, f.fixResult])).toEqual(found.map((f) => [true, `cleared team ${f.team}'s leader lease (${f.problem.split(' names ')[1]!.split(', which')[0]})`]));
    for (const name of names.slice(0, -1)) expect((await readTeam(new Team(root, name))).leadProcess, name).toBeUndefined();
    expect((await readTeam(new Team(root, names.at(-1)!))).leadProcess).toEqual(leases.at(-1));
    const again = await doctor();
    expect(of(again.report, 'dead_lease')).toEqual([]);
    expect(again.report.passed).toContain('no leader leases left by a dead or unproven holder');
  });

  it('--fix leaves a leader lease alone that was renewed after the report (in-process: the report, then the fix)', async () => {
    const team = new Team(root, TEAM);
    const t = Date.now();
    await updateTeam(team, (c) => void (c.leadProcess = { pid: 4242, claimedAt: t - 120_000, renewedAt: t - 60_000, host: 'elsewhere', kind: 'console' }));
    const ctx: DoctorContext = { root, env: {}, exec: () => Promise.reject(new Error('no exec here')), now: t, isAlive: () => false };
    const [finding, ...more] = (await checkLeases(ctx)).findings;
    expect(more).toEqual([]);
    await updateTeam(team, (c) => void (c.leadProcess!.renewedAt = Date.now())); // its holder on elsewhere renewed meanwhile
    await expect(finding!.apply!()).rejects.toThrow("team t's leader lease: it changed meanwhile (now pid 4242 on elsewhere (a console)); left alone");
    expect((await readTeam(team)).leadProcess?.pid).toBe(4242);
  });

  it('a process carrying a member\'s --agent-id that config.json does not record is a problem (the topmost of its tree, not its children); the recorded one, its child, another root\'s and a pid-less member\'s are not', async () => {
    const started: ChildProcess[] = [];
    afterThisTest(async () => {
      for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    });
    // A node process carrying `args`, with CLAUDE_CONFIG_DIR=`at`; with a child, the child carries
    // `--agent-id w1@t` too and exits when its parent goes. Resolves with both pids.
    const carrier = async (at: string, args: string[], withChild = false): Promise<{ pid: number; child?: number }> => {
      const childCode = "process.stdin.on('end', () => process.exit()).resume()";
      const code = withChild
        ? `const c = require('child_process').spawn(process.execPath, ['-e', ${JSON.stringify(childCode)}, '--', '--agent-id', 'w1@t'], { stdio: ['pipe', 'ignore', 'ignore'] }); console.log(c.pid); setInterval(() => {}, 1 << 30);`
        : 'console.log(0); setInterval(() => {}, 1 << 30);';
      const c = spawn(process.execPath, ['-e', code, '--', ...args], { env: { ...process.env, CLAUDE_CONFIG_DIR: at }, stdio: ['ignore', 'pipe', 'inherit'] });
      started.push(c);
      const [line] = (await once(c.stdout!, 'data')) as [Buffer];
      const child = Number(line.toString().trim());
      return { pid: c.pid!, ...(child > 0 ? { child } : {}) };
    };
    const recorded = await carrier(root, ['--agent-id', 'w1@t'], true);
    const stray = await carrier(root, ['--agent-id=w1@t'], true);
    await carrier(path.join(root, 'other-root'), ['--agent-id', 'w1@t']);
    await carrier(root, ['--agent-id', 'cc@t']); // a member Claude Code made records no pid: nothing to compare
    await addMember(new Team(root, TEAM), { name: 'w1', cwd: '/work/project' });
    await updateMember(new Team(root, TEAM), 'w1', { backendType: 'in-process', tmuxPaneId: 'in-process', pid: recorded.pid, isActive: true });
    await addMember(new Team(root, TEAM), { name: 'cc', cwd: '/work/project' });

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'stray_teammate')).toEqual([
      {
        check: 'stray_teammate',
        severity: 'problem',
        team: TEAM,
        fixable: false,
        problem: `process ${stray.pid} runs as w1 (team t: --agent-id w1@t on its command line) but config.json records pid ${recorded.pid} for w1: a second copy or an orphan, reading its inbox, that swarm kill and shutdown never reach`,
        fix: `look at it (ps -o pid,ppid,args -p ${stray.pid}), then end it: kill ${stray.pid}  (swarm doctor --fix leaves it)`,
      },
    ]);
    // The fix works as printed: the stray goes, its child with it, and doctor is content.
    await execa('sh', ['-c', of(r.report, 'stray_teammate')[0]!.fix.replace(/^look at it \((.*)\), then end it: (kill \d+) {2}.*$/, '$1 && $2')]);
    await waitFor(() => !isProcessAlive(stray.pid) && !isProcessAlive(stray.child!), 10_000, 'the stray and its child to exit');
    const again = await doctor();
    expect(of(again.report, 'stray_teammate')).toEqual([]);
    expect(again.report.passed).toContain('no teammate processes unknown to config.json');
  });

  it('a question older than 5 min while no live leader holds the lease is a problem naming the commands that answer it; a young one, or with a live leader, is not', async () => {
    const team = new Team(root, TEAM);
    await addMember(team, { name: 'worker', cwd: '/work/project' });
    await updateMember(team, 'worker', { backendType: 'in-process', tmuxPaneId: 'in-process', pid: await startSleeper(), isActive: true });
    const old = Date.now() - 10 * 60_000;
    // The leader that took these died (a SIGKILLed `swarm run -p`): its lease names a dead pid.
    const deadLeader = await deadPid();
    const leaderPid = await startSleeper();
    await updateTeam(team, (c) => void (c.leadProcess = { pid: deadLeader, claimedAt: old, kind: 'headless' }));
    await writePending(teamPaths(root, TEAM), pendingRecord('perm-1-old', { workerName: 'worker', workerId: 'worker@t', createdAt: old }));
    await writePendingFor(root, TEAM, 'worker'); // asked just now: not yet worth a finding
    // One whose worker is dead is an orphaned request (its own finding), not a question anyone waits on.
    await addMember(team, { name: 'ghost', cwd: '/work/project' });
    await updateMember(team, 'ghost', { backendType: 'in-process', tmuxPaneId: 'in-process', pid: deadLeader, isActive: false });
    await writePending(teamPaths(root, TEAM), pendingRecord('perm-4-ghost', { workerName: 'ghost', workerId: 'ghost@t', createdAt: old }));
    const mailbox = new Mailbox({ team });
    const at = new Date(old).toISOString();
    // A Claude Code teammate's request, only in the inbox (doctor lists it without writing a record).
    await mailbox.append('team-lead', { from: 'worker', text: encodeControl({ type: 'permission_request', request_id: 'perm-2-inbox', agent_id: 'worker', tool_name: 'Edit', tool_use_id: 'toolu_2', description: '', input: {}, permission_suggestions: [] }), timestamp: at, read: true });
    await mailbox.append('team-lead', { from: 'worker', text: encodeControl({ type: 'plan_approval_request', from: 'worker', timestamp: at, planFilePath: '', planContent: '1. x', requestId: 'plan-3@worker' }), timestamp: at, read: true });

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'unanswered_question').map((f) => [f.severity, f.problem, f.fix])).toEqual([
      ['problem', 'worker (team t) has waited 10m for permission to use Bash (request perm-1-old) and no leader is running to answer it', 'swarm lead --team t asks it; or answer it here: swarm approve perm-1-old --team t (or swarm deny perm-1-old --team t)'],
      ['problem', 'worker (team t) has waited 10m for permission to use Edit (request perm-2-inbox) and no leader is running to answer it', 'swarm lead --team t asks it; or answer it here: swarm approve perm-2-inbox --team t (or swarm deny perm-2-inbox --team t)'],
      ['problem', 'worker (team t) has waited 10m for its plan to be approved and no leader is running to answer it', 'swarm lead --team t asks it; or answer it here: swarm plan worker --approve --team t (or --reject --feedback "<why>")'],
    ]);
    expect(of(r.report, 'orphan_permission').map((f) => f.path)).toEqual([teamPaths(root, TEAM).pendingFile('perm-4-ghost')]);
    expect(await fs.readdir(teamPaths(root, TEAM).pending)).toHaveLength(3); // the inbox-only one was not written

    // A live leader holds the lease: it asks them (or is asking): nothing to report. (Not this test
    // process: doctor runs in it, and its own pid is no other leader.)
    await updateTeam(team, (c) => void (c.leadProcess = { pid: leaderPid, claimedAt: Date.now(), kind: 'console' }));
    expect(of((await doctor()).report, 'unanswered_question')).toEqual([]);
  });

  it("a stopped member's unfinished tasks wait for it (a warning offering resume); --fix gives them back to the list and tells team-lead once", async () => {
    const dead = await deadPid();
    await addMember(new Team(root, TEAM), { name: 'ghost', cwd: '/work/project' });
    await updateMember(new Team(root, TEAM), 'ghost', { backendType: 'in-process', tmuxPaneId: 'in-process', pid: dead, isActive: false });
    const tasks = new TaskList(new Team(root, TEAM));
    await tasks.create({ subject: 'Left behind', description: 'x' }, 'team-lead');
    await tasks.claim('1', 'ghost');
    await tasks.create({ subject: 'Finished', description: 'x' }, 'team-lead');
    await tasks.claim('2', 'ghost');
    await tasks.update('2', { status: 'completed' }, 'ghost');

    const r = await doctor();
    expect(of(r.report, 'dead_owner')).toEqual([
      expect.objectContaining({
        severity: 'warning',
        team: TEAM,
        problem: 'member ghost (team t) is stopped (its process and pane are gone) and keeps its unfinished task #1 until it is resumed',
        fix: 'swarm resume ghost --team t brings it back with them; swarm doctor --fix gives them back to the list and tells team-lead',
      }),
    ]);
    expect(await tasks.get('1')).toMatchObject({ owner: 'ghost', status: 'in_progress' }); // looking changes nothing

    const fixed = await doctor('--fix');
    expect(fixed.stdout).toContain('released #1 of ghost; team-lead was told');
    expect(await tasks.get('1')).toMatchObject({ status: 'pending' });
    expect(await tasks.get('2')).toMatchObject({ status: 'completed', owner: 'ghost' });
    const notices = (await new Mailbox({ team: new Team(root, TEAM) }).read('team-lead')).filter((m) => m.from === 'system');
    expect(notices.map((m) => m.text)).toEqual([expect.stringMatching(/^ghost has died \(its pane or process is gone\)\. 1 task\(s\) were unassigned: #1 "Left behind"\. /)]);
    expect(of((await doctor()).report, 'dead_owner')).toEqual([]);
  });

  it('an orphaned swarm-<team> session is killed by --fix; its team\'s and another root\'s are left alone', async () => {
    const server = new TmuxServer({ socket });
    await newSession(server, { name: 'swarm-t', argv: ['sleep', '600'] });
    await newSession(server, { name: 'swarm-gone', argv: ['env', `CLAUDE_CONFIG_DIR=${root}`, 'sleep', '600'] });
    await newSession(server, { name: 'swarm-theirs', argv: ['env', `CLAUDE_CONFIG_DIR=${path.join(root, 'elsewhere')}`, 'sleep', '600'] });
    await newSession(server, { name: 'notes', argv: ['sleep', '600'] });

    const r = await doctor();
    expect(r.exitCode).toBe(1);
    expect(of(r.report, 'orphan_session')).toEqual([
      expect.objectContaining({
        problem: `tmux session swarm-gone (1 pane) belongs to no team: there is no team "gone" under ${root}`,
        fix: `tmux -L ${socket} kill-session -t '=swarm-gone'  (swarm doctor --fix does it)`,
      }),
    ]);
    const fixed = await doctor('--fix');
    expect(fixed.exitCode, fixed.stdout).toBe(0);
    expect(of(fixed.report, 'orphan_session')[0]).toMatchObject({ fixed: true, fixResult: 'killed tmux session swarm-gone' });
    const sessions = [...new Set((await listAllPanes(server)).map((p) => p.sessionName))].sort();
    expect(sessions).toEqual(['notes', 'swarm-t', 'swarm-theirs']);
  });

  it("looks at the demos the root its env names recorded (in-process: the command's root, not this process's)", async () => {
    const orphan = await makeDemoRoot(root, root, { pid: await deadPid(), startedAt: Date.now() });
    const found = of((await doctor()).report, 'orphan_demo');
    expect(found.map((f) => f.problem)).toEqual([expect.stringContaining(`demo root ${orphan} is left from a swarm demo`)]);
  });

  it('--team narrows to one team that must exist', async () => {
    const r = await swarmInProcess(root, ['doctor', '--team', 'nope'], { SWARM_TMUX_SOCKET: socket });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/^swarm: no team "nope" under /);
  });
});

describe('doctor checks with a scripted exec', () => {
  const ctx = (exec: Exec, env: Record<string, string> = {}): DoctorContext => ({
    root: '/nonexistent',
    env,
    exec,
    now: 0,
    isAlive: () => false,
  });
  const answer = (map: Record<string, { exitCode: number; stdout?: string; stderr?: string }>): Exec =>
    async (file, args) => {
      const r = map[[file, ...args].join(' ')] ?? { exitCode: 127, stderr: `${file}: not found` };
      return { exitCode: r.exitCode, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
    };

  it('parses tmux versions', () => {
    expect(parseTmuxVersion('tmux 3.3a')).toEqual({ major: 3, minor: 3 });
    expect(parseTmuxVersion('tmux next-3.6')).toEqual({ major: 3, minor: 6 });
    expect(parseTmuxVersion('tmux 2.9a')).toEqual({ major: 2, minor: 9 });
    expect(parseTmuxVersion('tmux master')).toBeUndefined();
  });

  it('tmux: missing and too old are warnings; 3.2+ passes', async () => {
    expect((await checkTmux(ctx(answer({})))).findings[0]).toMatchObject({ severity: 'warning', problem: expect.stringMatching(/^tmux is not installed/) });
    const old = await checkTmux(ctx(answer({ 'tmux -V': { exitCode: 0, stdout: 'tmux 3.1c\n' } })));
    expect(old.findings[0]).toMatchObject({ severity: 'warning', problem: expect.stringMatching(/^tmux 3\.1c is older than 3\.2/), fix: 'upgrade tmux to 3.2 or newer' });
    expect(await checkTmux(ctx(answer({ 'tmux -V': { exitCode: 0, stdout: 'tmux 3.2\n' } })))).toEqual({ passed: ['tmux 3.2'], findings: [] });
  });

  it('it2: only checked inside iTerm2 and outside tmux; unusable is a warning with the install hint', async () => {
    const none = answer({});
    expect(await checkIt2(ctx(none, {}))).toEqual({ passed: [], findings: [] });
    expect(await checkIt2(ctx(none, { TERM_PROGRAM: 'iTerm.app', TMUX: '/tmp/tmux-1/default,1,0' }))).toEqual({ passed: [], findings: [] });
    const missing = await checkIt2(ctx(none, { ITERM_SESSION_ID: 'w0t0p0:ABC' }));
    expect(missing.findings[0]).toMatchObject({ check: 'it2', severity: 'warning', fix: expect.stringContaining('pipx install it2') });
    const apiOff = answer({ 'it2 --help': { exitCode: 0, stdout: 'Commands:\n  session  Manage sessions\n' }, 'it2 session list': { exitCode: 2 } });
    expect((await checkIt2(ctx(apiOff, { TERM_PROGRAM: 'iTerm.app' }))).findings[0]!.problem).toMatch(/Python API is off/);
    const ok = answer({ 'it2 --help': { exitCode: 0, stdout: '  session  Manage sessions\n' }, 'it2 session list': { exitCode: 0 } });
    expect(await checkIt2(ctx(ok, { TERM_PROGRAM: 'iTerm.app' }))).toEqual({ passed: ['it2 (iTerm2 split panes) is usable'], findings: [] });
  });
});
