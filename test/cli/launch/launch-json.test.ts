// `swarm launch --json` (fake teammates, tmux on a private socket reaped afterwards): with
// --no-console, stdout is one JSON document (team, backend, spawned, failed, the status report)
// while the progress lines go to stderr, exit 1 when a member failed; with --dry-run, the steps as
// argv arrays and notes, nothing written; with the console, --json is refused (exit 2) before
// anything is made. The launch that starts teammates runs the built executable; the dry run and the
// refusal run in-process (main(argv, io)).
import { existsSync } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { FAKE_TEAMMATE, useFakeTeammates, writeTeamFile } from '../../support/fake-team.js';

let root: string;
let socket: string;
let env: Record<string, string>;
let file: string;

useFakeTeammates((t) => ({ root, socket, env } = t), 'swarm-launch-json-');
beforeEach(async () => {
  file = await writeTeamFile(root, ['name: lj', 'members:', '  - name: w1', '    prompt: hi', '  - name: w2', '    prompt: hi']);
});
describe('swarm launch --json', () => {
  it('--no-console: one JSON document on stdout, progress on stderr', async () => {
    const r = await swarm(root, ['launch', file, '--no-console', '--backend', 'tmux', '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown>;
    expect(out).toMatchObject({ team: 'lj', renamedFrom: null, backend: 'tmux', where: `tmux -L ${socket} attach -t swarm-lj`, spawned: ['w1', 'w2'], failed: [] });
    const status = out.status as { team: string; members: { name: string; alive: boolean }[] };
    expect(status.team).toBe('lj');
    expect(status.members.map((m) => [m.name, m.alive])).toEqual([['team-lead', null], ['w1', true], ['w2', true]]);
    expect(r.stderr).toContain('spawned w1 in tmux pane');

    // The name is taken now: a second launch with --rename says so in renamedFrom; its members fail to start.
    const crash = { ...env, SWARM_TEAMMATE_COMMAND: quote(['env', 'FAKE_CRASH=1', process.execPath, FAKE_TEAMMATE]) };
    const failed = await swarm(root, ['launch', file, '--no-console', '--backend', 'tmux', '--json', '--rename'], crash);
    expect(failed.exitCode).toBe(1);
    const second = JSON.parse(failed.stdout) as { team: string; renamedFrom: string; spawned: string[]; failed: { name: string; error: string }[] };
    expect(second).toMatchObject({ renamedFrom: 'lj', spawned: [] });
    expect(second.team).not.toBe('lj');
    expect(second.failed.map((f) => f.name)).toEqual(['w1', 'w2']);
    expect(second.failed[0]!.error).toMatch(/w1 exited before it was ready/);
  }, 60_000);

  it('--dry-run: the steps as argv arrays and notes; nothing written', async () => {
    const r = await swarmInProcess(root, ['launch', file, '--dry-run', '--backend', 'tmux', '--json'], env);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { team: string; nameTaken: boolean; root: string; backend: string; steps: ({ run: string[] } | { note: string })[] };
    expect(out).toMatchObject({ team: 'lj', nameTaken: false, root, backend: 'tmux' });
    const runs = out.steps.flatMap((s) => ('run' in s ? [s.run] : []));
    expect(runs.map((a) => a[3])).toEqual(['new-session', 'set-option', 'split-window', 'set-option', 'split-window', 'set-option', 'set-option', 'respawn-pane', 'attach']);
    expect(out.steps[0]).toEqual({ note: 'swarm launch --dry-run: nothing is written; <placeholders> exist only once the team is created' });
    expect(existsSync(path.join(root, 'teams'))).toBe(false);
  });

  it('with the console, --json is refused before anything is made', async () => {
    const r = await swarmInProcess(root, ['launch', file, '--json'], env);
    expect([r.exitCode, r.stderr, r.stdout]).toEqual([2, 'swarm: --json needs --no-console or --dry-run (the console is interactive)', '']);
    expect(existsSync(path.join(root, 'teams'))).toBe(false);
  });
});
