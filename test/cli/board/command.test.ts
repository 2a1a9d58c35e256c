// `swarm board` as a user runs it (docs/board.md): the real executable prints its URL with the token
// (stdout only), serves it, and ends on Ctrl-C (SIGINT) with exit 0; bad input is one line and
// nothing listens; without a team it serves the list of teams.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSwarm, swarmInProcess } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

describe('swarm board', () => {
  let root: string;
  useTempRoot((dir) => (root = dir));

  it('prints the URL with its token on stdout, serves it until Ctrl-C, and exits 0', async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'crew'])).exitCode).toBe(0);
    const { proc, output } = startSwarm(root, ['board', '--team', 'crew']);
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\/team\/crew\?token=[A-Za-z0-9_-]{43}/.exec(output())?.[0], 10_000, 'the board URL');
    const token = new URL(url).searchParams.get('token')!;
    const port = new URL(url).port;
    expect((await fetch(`http://127.0.0.1:${port}/api/team/crew/snapshot`)).status).toBe(401);
    const snap = await fetch(`http://127.0.0.1:${port}/api/team/crew/snapshot`, { headers: { Authorization: `Bearer ${token}` } });
    expect(await snap.json()).toMatchObject({ team: 'crew', members: [expect.objectContaining({ name: 'team-lead' })] });
    proc.kill('SIGINT');
    const r = await proc;
    expect(r.exitCode).toBe(0);
    expect(output().split(token)).toHaveLength(2); // printed once
    expect(stderr).not.toContain(token);
  });

  it('--open hands the URL to the browser opener on PATH (xdg-open), and says so where there is none', async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'crew'])).exitCode).toBe(0);
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    const opened = path.join(root, 'opened.txt');
    await fs.writeFile(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s' "$1" > ${opened}\n`, { mode: 0o755 });
    const { proc, output } = startSwarm(root, ['board', '--team', 'crew', '--open'], { PATH: `${bin}:${process.env.PATH ?? ''}` });
    const url = await waitFor(() => /http:\/\/\S+token=\S+/.exec(output())?.[0], 10_000, 'the board URL');
    expect(await waitFor(() => fs.readFile(opened, 'utf8').catch(() => ''), 10_000, 'the opener to run')).toBe(url);
    proc.kill('SIGINT');
    expect((await proc).exitCode).toBe(0);

    const empty = path.join(root, 'empty-bin');
    await fs.mkdir(empty);
    const none = startSwarm(root, ['board', '--team', 'crew', '--open'], { PATH: empty });
    let stderr = '';
    none.proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    await waitFor(() => stderr.includes('no browser opener'), 10_000, 'the note that there is no opener');
    none.proc.kill('SIGINT');
    expect((await none.proc).exitCode).toBe(0);
  });

  it('--host serves another address when asked, and warns to prefer ssh -L', async () => {
    expect((await swarmInProcess(root, ['team', 'create', 'crew'])).exitCode).toBe(0);
    const { proc, output } = startSwarm(root, ['board', '--team', 'crew', '--host', '0.0.0.0']);
    let stderr = '';
    proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const url = new URL(await waitFor(() => /http:\/\/0\.0\.0\.0:\d+\S+/.exec(output())?.[0], 10_000, 'the board URL'));
    const r = await fetch(`http://127.0.0.1:${url.port}/api/team/crew/snapshot`, { headers: { Authorization: `Bearer ${url.searchParams.get('token')!}` } });
    expect(r.status).toBe(200);
    await waitFor(() => stderr.includes('prefer 127.0.0.1 and ssh -L'), 5000, 'the warning');
    proc.kill('SIGINT');
    expect((await proc).exitCode).toBe(0);
  });

  it('without a team, serves the list of every team', async () => {
    for (const t of ['alpha', 'beta']) expect((await swarmInProcess(root, ['team', 'create', t])).exitCode).toBe(0);
    const { proc, output } = startSwarm(root, ['board']);
    const url = await waitFor(() => /http:\/\/127\.0\.0\.1:\d+\/\?token=\S+/.exec(output())?.[0], 10_000, 'the board URL');
    const u = new URL(url);
    const teams = await fetch(`${u.origin}/api/teams`, { headers: { Authorization: `Bearer ${u.searchParams.get('token')!}` } });
    expect(((await teams.json()) as { name: string }[]).map((t) => t.name)).toEqual(['alpha', 'beta']);
    proc.kill('SIGINT');
    expect((await proc).exitCode).toBe(0);
  });

  it.each([
    [['board', '--team', 'nope'], /team "?nope"? (does not exist|not found)|no team/i],
    [['board', '--port', '70000'], /expected --port to be a port number 1-65535, got 70000/],
    [['board', '--json'], /--json is not an option of swarm board/],
  ])('refuses %j in one line', async (args, message) => {
    const r = await swarmInProcess(root, args);
    expect(r.exitCode).not.toBe(0);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stdout).toBe('');
  });
});
