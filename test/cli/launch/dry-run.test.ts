// `swarm launch --dry-run` prints what launch really runs: its tmux lines, parsed back, equal the
// argv that createPane and the console's runConsole execute (recorded by a fake exec), token for
// token, except the <placeholders> for what exists only at run time. Secrets are <redacted> in the
// dry run, and in the real run they go to the private env file, never onto tmux's command line.
import { Team } from '../../../src/team/team.js';
import { teamPaths } from '../../../src/team/paths.js';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'shell-quote';
import { afterEach, describe, expect, it } from 'vitest';
import type { Exec } from '../../../src/backends/process.js';
import { backendForType } from '../../../src/backends/registry.js';
import { ENV_LOADER } from '../../../src/backends/env-file.js';
import { STDERR_TEE } from '../../../src/backends/stderr-log.js';
import { dryRunLines, type DryRunInput } from '../../../src/cli/launch/dry-run.js';
import { leadArgv } from '../../../src/cli/launch/start-team.js';
import type { TeamFile } from '../../../src/cli/launch/team-file.js';
import { colorForIndex } from '../../../src/protocol/colors.js';
import { buildTeammateCommand, forwardedEnv } from '../../../src/teammates/command-line.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { tempRoot } from '../../support/tmp-root.js';

const SECRET = 'sk-pin-secret';
const ENV = { SWARM_TMUX_SOCKET: 'swarm-test-pin', CLAUDE_CONFIG_DIR: '/tmp/pin-root', ANTHROPIC_API_KEY: SECRET };
const CWD = '/work dir';
const READS = new Set(['has-session', 'list-panes', 'display-message']);

/** A tmux stand-in that records every call and answers like a fresh server with one session. */
function recordingTmux(): { exec: Exec; calls: string[][] } {
  const calls: string[][] = [];
  let session = false;
  let split = false;
  const exec: Exec = async (file, args) => {
    calls.push([file, ...args]);
    const a = args[0] === '-L' ? args.slice(2) : [...args];
    const ok = (stdout = ''): { exitCode: number; stdout: string; stderr: string } => ({ exitCode: 0, stdout, stderr: '' });
    switch (a[0]) {
      case 'has-session':
        return session ? ok() : { exitCode: 1, stdout: '', stderr: "can't find session: swarm-sq" };
      case 'new-session':
        session = true;
        return ok('%0 100 @0\n');
      case 'display-message':
        if (a.includes('#{socket_path}')) return ok('/tmp/tmux-0/swarm-test-pin\n');
        return ok('$0 @0 %0 swarm-sq\n');
      case 'list-panes':
        if (a.includes('-s')) return ok(split ? '%0 100 50\n%1 100 50\n' : '%0 100 50\n');
        return ok('%0 100 0 @0 200 50 200 50\n'); // a wide window: the split goes side by side (-h)
      case 'split-window':
        split = true;
        return ok('%1 101 @0\n');
      default:
        return ok();
    }
  };
  return { exec, calls };
}

/** The dry run of team sq with `members` (no console unless `extra` says so) against a fresh recording tmux. */
function tmuxDryRun(members: TeamFile['members'], extra: Partial<DryRunInput> = {}) {
  const rec = recordingTmux();
  const backend = backendForType('tmux', new Team('/tmp/root', 'sq'), { env: ENV, exec: rec.exec });
  const lines = dryRunLines({ file: { name: 'sq', members }, team: 'sq', taken: false, root: '/tmp/pin-root', env: ENV, cwd: CWD, backend, console: false, ...extra });
  return { rec, backend, lines };
}

/** A planned token matches a run one when equal, or when it is a whole <placeholder>. */
function expectSameCommand(planned: string[], ran: string[]): void {
  expect(planned.length, `${planned.join(' ')}\nvs\n${ran.join(' ')}`).toBe(ran.length);
  planned.forEach((p, i) => {
    if (/^<.+>$/.test(p)) expect(ran[i]!.length).toBeGreaterThan(0);
    else expect(ran[i], `token ${i} of ${planned[0]} ${planned[3] ?? ''}`).toBe(p);
  });
}

describe('launch --dry-run is what launch runs (tmux, outside tmux)', () => {
  const envDirs: string[] = [];
  afterEach(async () => {
    for (const d of envDirs.splice(0)) await rm(d, { recursive: true, force: true });
  });

  it('every tmux line equals the recorded argv of createPane and runConsole, placeholders aside', async () => {
    const { rec, backend, lines } = tmuxDryRun([{ name: 'ann', prompt: 'review it', model: 'claude-x' }], { console: true });
    expect(rec.calls).toEqual([]); // the dry run runs nothing

    // The real launch of the same member, then its console.
    const built = buildTeammateCommand({ runtime: 'swarm', team: 'sq', name: 'ann', color: colorForIndex(1), leadSessionId: 'sess-1', leadVerifyKey: 'key-1', model: 'claude-x', cwd: CWD, env: ENV });
    const stderrLog = teamPaths('/tmp/pin-root', 'sq').stderrLog('ann');
    await backend.createPane({ team: 'sq', name: 'ann', color: colorForIndex(1), argv: built.argv, env: built.env, cwd: CWD, stderrLog });
    const inSession = await backend.sessions!.runConsole('sq', { argv: leadArgv('sq'), cwd: CWD, env: forwardedEnv(ENV) });

    const ran = rec.calls.filter((c) => !READS.has(c[c[1] === '-L' ? 3 : 1]!));
    const planned = lines.filter((l) => l.startsWith('tmux ')).map((l) => parse(l).map(String));
    // The attach line is run only from a terminal: it is the console's attach command.
    expect(planned.at(-1)).toEqual(inSession.attach);
    expect(planned.slice(0, -1).map((p) => p[3])).toEqual(['new-session', 'set-option', 'split-window', 'set-option', 'set-option', 'respawn-pane']);
    expect(ran).toHaveLength(planned.length - 1);
    planned.slice(0, -1).forEach((p, i) => expectSameCommand(p, ran[i]!));

    // The teammate's stderr goes to its log through a fifo in a private dir (made, not yet used: nothing ran).
    const teed = ran.find((c) => c.includes(STDERR_TEE))!;
    expect(teed.slice(teed.indexOf(STDERR_TEE) + 2, teed.indexOf(STDERR_TEE) + 3)).toEqual([stderrLog]);
    const fifoDir = teed[teed.indexOf(STDERR_TEE) + 1]!;

    // Both env files hold the real values; the dry run shows them redacted and nowhere else.
    for (const call of ran.filter((c) => c.includes(ENV_LOADER))) {
      const file = call[call.indexOf(ENV_LOADER) + 1]!;
      envDirs.push(path.dirname(file));
      expect(await readFile(file, 'utf8')).toContain(`export ANTHROPIC_API_KEY=${SECRET}\n`);
      expect(call.join(' ')).not.toContain(SECRET);
    }
    expect(envDirs).toHaveLength(2);
    envDirs.push(fifoDir);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(lines.filter((l) => l.includes('export ANTHROPIC_API_KEY=\\<redacted\\>;'))).toHaveLength(2);
  });

  it('--no-console: the first pane is closed, as dropConsolePane closes it, so the session ends with its last teammate', async () => {
    const { rec, backend, lines } = tmuxDryRun([{ name: 'ann', prompt: 'review it' }]);
    const built = buildTeammateCommand({ runtime: 'swarm', team: 'sq', name: 'ann', color: colorForIndex(1), leadSessionId: 'sess-1', leadVerifyKey: 'key-1', cwd: CWD, env: ENV });
    await backend.createPane({ team: 'sq', name: 'ann', color: colorForIndex(1), argv: built.argv, env: built.env, cwd: CWD, stderrLog: teamPaths('/tmp/pin-root', 'sq').stderrLog('ann') });
    await backend.sessions!.dropConsolePane('sq');
    for (const c of rec.calls) if (c.includes(ENV_LOADER)) envDirs.push(path.dirname(c[c.indexOf(ENV_LOADER) + 1]!));
    for (const c of rec.calls) if (c.includes(STDERR_TEE)) envDirs.push(c[c.indexOf(STDERR_TEE) + 1]!);

    const ran = rec.calls.filter((c) => !READS.has(c[c[1] === '-L' ? 3 : 1]!));
    const planned = lines.filter((l) => l.startsWith('tmux ')).map((l) => parse(l).map(String));
    expect(planned.map((p) => p[3])).toEqual(['new-session', 'set-option', 'split-window', 'set-option', 'kill-pane']);
    expect(ran).toHaveLength(planned.length);
    planned.forEach((p, i) => expectSameCommand(p, ran[i]!));
    expect(ran.at(-1)).toEqual(['tmux', '-L', 'swarm-test-pin', 'kill-pane', '-t', '%0']);
  });
});

describe('launch --dry-run shows a claude member with the task list env (SPEC §8)', () => {
  it('CLAUDE_CODE_TASK_LIST_ID=<team> and CLAUDE_CODE_ENABLE_TODO_TOOLS=1 reach the claude pane', () => {
    const { rec, lines } = tmuxDryRun([{ name: 'cc', prompt: 'list the tasks', runtime: 'claude' }], {
      which: (cmd) => (cmd === 'claude' ? '/opt/claude/bin/claude' : undefined),
    });
    expect(lines.some((l) => l.includes('/opt/claude/bin/claude'))).toBe(true);
    // The env file's contents are printed as the line that writes it.
    const text = lines.join('\n');
    expect(text).toContain('export CLAUDE_CODE_TASK_LIST_ID=sq;');
    expect(text).toMatch(/export CLAUDE_CODE_ENABLE_TODO_TOOLS=1(;|$)/m);
    expect(rec.calls).toEqual([]);
  });
});

describe('launch --dry-run with hosts (the ssh backend)', () => {
  it('a member with a host plans its tmux commands over ssh on that host, with the swarm on its PATH; nothing runs', async () => {
    const root = await tempRoot('swarm-dry-ssh-');
    const file = path.join(root, 'team.yaml');
    await writeFile(
      file,
      ['name: far', 'hosts: [ci@build1:2222]', 'members:', '  - name: w1', '    prompt: hi', '  - name: w2', '    prompt: hi', '    host: gpu1', '  - name: w3', '    prompt: hi', '    host: gpu1', '    runtime: claude', ''].join('\n'),
    );
    // No claude on this machine's PATH: w3's is gpu1's, found on its PATH there.
    const r = await swarm(root, ['launch', file, '--dry-run', '--json'], { SWARM_SSH_COMMAND: 'ssh -F /etc/swarm/ssh_config', SWARM_TMUX_SOCKET: 'farsock', PATH: '/usr/bin:/bin' });
    expect(r.exitCode, r.stderr).toBe(0);
    const runs = (JSON.parse(r.stdout) as { steps: ({ run: string[] } | { note: string })[] }).steps.flatMap((s) => ('run' in s ? [s.run] : []));
    const over = (host: string[]) => runs.filter((run) => run[0] === 'ssh' && host.every((h, i) => run[run.indexOf('--') - host.length + i] === h));
    const build1 = over(['-p', '2222', '-l', 'ci', 'build1']);
    const gpu1 = over(['gpu1']);
    expect(build1.length).toBeGreaterThan(0);
    expect(gpu1.length).toBeGreaterThan(0);
    for (const run of [...build1, ...gpu1]) {
      expect(run.slice(0, 3)).toEqual(['ssh', '-F', '/etc/swarm/ssh_config']);
      expect(run).toContain('BatchMode=yes');
      expect(run.at(-1)).toMatch(/^tmux -L farsock /);
    }
    const split = build1.find((run) => run.at(-1)!.includes('split-window'))!;
    expect(split.at(-1)).toContain('swarm teammate --agent-id w1\\@far'); // shell-quoted: one remote command string
    expect(gpu1.find((run) => run.at(-1)!.includes('split-window'))!.at(-1)).toContain('swarm teammate --agent-id w2\\@far');
    expect(gpu1.find((run) => run.at(-1)!.includes('split-window') && run.at(-1)!.includes('w3'))!.at(-1)).toContain("' claude --agent-id w3\\@far");
    expect(existsSync(path.join(root, 'teams', 'far'))).toBe(false);
  });

  it('backend ssh with no host anywhere: the one line that says to give --host, as a real launch says it; nothing runs', async () => {
    const root = await tempRoot('swarm-dry-ssh-');
    const file = path.join(root, 'team.yaml');
    await writeFile(file, ['name: far', 'members:', '  - name: w1', '    prompt: hi', ''].join('\n'));
    const r = await swarmInProcess(root, ['launch', file, '--dry-run', '--backend', 'ssh'], { PATH: '/usr/bin:/bin' });
    expect(r.stderr).toBe('swarm: --backend ssh needs --host [user@]host[:port] (the machine the teammate runs on)');
    expect(r.exitCode).toBe(2);
    expect(existsSync(path.join(root, 'teams', 'far'))).toBe(false);
  });
});
