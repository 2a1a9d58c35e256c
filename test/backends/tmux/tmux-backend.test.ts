// The tmux backend against a REAL tmux server on a private socket per test (support/tmux.ts:
// `swarm-test-<random>`, killed afterwards, socket file removed). The default server is never touched.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { quote } from 'shell-quote';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PaneRef, PaneSpec } from '../../../src/backends/backend.js';
import { descendantsOf, execaExec, isProcessAlive, type Exec } from '../../../src/backends/process.js';
import { TmuxServer, capturePane, listAllPanes, newSession, setPaneOptionArgs } from '../../../src/backends/tmux/commands.js';
import { PANE_BORDER_FORMAT, TmuxBackend } from '../../../src/backends/tmux/tmux-backend.js';
import { privateSocket, reapServer, tmuxForThisTest } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';
import { PROBE_ENV, ProbeKit, runBackendConformance } from '../conformance.js';
import { afterThisTest } from '../../support/tmp-root.js';

runBackendConformance('tmux', async () => {
  const socket = privateSocket();
  return {
    backend: new TmuxBackend({ socket, sessionName: 'swarm-conf', killTimeoutMs: 1500 }),
    cleanup: () => reapServer(socket),
  };
}, { exitStatus: 'sometimes' });

describe('TmuxBackend (real tmux, private socket)', () => {
  let socket: string;
  let server: TmuxServer;
  let kit: ProbeKit;

  beforeEach(async () => {
    kit = await ProbeKit.create();
    afterThisTest(() => kit.dispose());
    socket = tmuxForThisTest();
    server = new TmuxServer({ socket });
  });

  const backendFor = (team: string, extra: { insideTmux?: { paneId: string } } = {}): TmuxBackend =>
    new TmuxBackend({ socket, sessionName: `swarm-${team}`, killTimeoutMs: 1500, ...extra });

  const spec = (name: string, argv: string[], extra: Partial<PaneSpec> = {}): PaneSpec => ({
    team: 'alpha',
    name,
    color: 'blue',
    argv,
    env: { [PROBE_ENV]: `value of ${name}` },
    cwd: kit.dir,
    ...extra,
  });

  const show = async (target: string, format: string): Promise<string> =>
    (await server.run(['display-message', '-p', '-t', target, format])).trim();

  it("a teammate's last stderr lines reach its log though the log's tee starts late: tmux closes a dead pane's terminal at once, and the tee ignores the SIGHUP that sends", async () => {
    // A `tee` first on PATH that starts a second late: what a loaded machine once did to the real one.
    const bin = path.join(kit.dir, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'tee'), `#!/bin/sh\nsleep 1\nPATH=${quote([process.env.PATH ?? '/usr/bin:/bin'])} exec tee "$@"\n`);
    await chmod(path.join(bin, 'tee'), 0o755);
    // tmux gives a new pane the PATH of the command that made it.
    const PATH = `${bin}:${process.env.PATH ?? ''}`;
    const exec: Exec = (file, args, opts) => execaExec(file, args, { ...opts, env: { ...(opts?.env ?? process.env), PATH } });
    const out = kit.outFile();
    const log = path.join(kit.dir, 'late.stderr');
    const backend = new TmuxBackend({ socket, sessionName: 'swarm-alpha', killTimeoutMs: 1500, exec });
    const pane = await backend.createPane(spec('late', kit.argv(out, 'fail', 'LAST', 'WORDS'), { stderrLog: log }));
    await kit.read(out);
    await waitFor(async () => !(await backend.isAlive(pane)), 15_000, 'the failure');
    await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('LAST WORDS'), 5000, 'the last words in the log');
    await backend.kill(pane);
  });

  it("a pane closed between the listing and the split (a sleeper's exited pane closed by the leader): listed again, split elsewhere", async () => {
    let closeFirstTarget = false;
    // Before the first split-window, its target pane is killed: what a waker closing an exited pane at that moment does.
    const exec: Exec = async (file, args, opts) => {
      const at = args.indexOf('split-window');
      if (at >= 0 && closeFirstTarget) {
        closeFirstTarget = false;
        const target = args[args.indexOf('-t', at) + 1]!;
        await execaExec(file, ['-L', socket, 'kill-pane', '-t', target]);
      }
      return execaExec(file, args, opts);
    };
    const backend = new TmuxBackend({ socket, sessionName: 'swarm-race', killTimeoutMs: 1500, exec });
    const a = await backend.createPane(spec('ann', kit.argv(kit.outFile(), 'wait', 'ann')));
    closeFirstTarget = true;
    const b = await backend.createPane(spec('bob', kit.argv(kit.outFile(), 'wait', 'bob')));
    expect(closeFirstTarget).toBe(false);
    const panes = (await listAllPanes(server)).map((p) => p.paneId);
    expect(panes).toContain(b.paneId);
    expect(panes).not.toContain(a.paneId); // the one closed under the first try of bob's split
  });

  it('outside tmux: session swarm-<team>, 3 labelled panes beside the leader, main-vertical', async () => {
    const backend = backendFor('alpha');
    expect(backend.describe()).toBe(`tmux -L ${socket} attach -t swarm-alpha`);
    const colors = ['blue', 'green', 'orange'];
    const panes: PaneRef[] = [];
    for (const [i, name] of ['ann', 'bob', 'cy'].entries()) {
      const out = kit.outFile();
      const pane = await backend.createPane(spec(name, kit.argv(out, 'wait', name), { color: colors[i]! }));
      const info = await kit.read(out);
      expect(info).toMatchObject({ argv: [out, 'wait', name], value: `value of ${name}`, cwd: kit.dir, pid: pane.pid });
      panes.push(pane);
    }
    const place = await backend.ensureSession();
    const listed = (await listAllPanes(server)).filter((p) => p.paneId !== place.leaderPaneId);
    expect(listed.map((p) => p.paneId).sort()).toEqual(panes.map((p) => p.paneId).sort());
    expect(new Set(listed.map((p) => p.sessionName))).toEqual(new Set(['swarm-alpha']));
    for (const p of panes) expect(listed.find((l) => l.paneId === p.paneId)?.pid).toBe(p.pid);

    expect(await show(panes[0]!.paneId, '#{pane_title}|#{@agent_name}|#{@agent_color}')).toBe('ann|ann|blue');
    expect(await show(panes[2]!.paneId, '#{pane_title}|#{@agent_name}|#{@agent_color}')).toBe('cy|cy|colour208');
    const w = place.windowId;
    expect(await show(w, '#{remain-on-exit}|#{pane-border-status}')).toBe('on|top');
    expect(await show(w, '#{pane-border-format}')).toBe(PANE_BORDER_FORMAT);
    // main-vertical: the leader fills the left column (below its border line), teammates stack right.
    expect(await show(place.leaderPaneId, '#{pane_left} #{pane_top} #{e|-:#{window_height},#{pane_height}}')).toBe('0 1 1');
    for (const p of panes) {
      expect(Number(await show(p.paneId, '#{pane_left}'))).toBeGreaterThan(0);
      expect(Number(await show(p.paneId, '#{pane_height}'))).toBeLessThan(Number(await show(w, '#{window_height}')) - 1);
    }
  });

  it('past 4 teammates the window is tiled; with no room left a new window opens in the session', async () => {
    const backend = backendFor('many');
    const place = await backend.ensureSession();
    const make = async (name: string): Promise<PaneRef> => {
      const out = kit.outFile();
      const pane = await backend.createPane(spec(name, kit.argv(out, 'wait')));
      await kit.read(out);
      return pane;
    };
    for (const n of ['t1', 't2', 't3', 't4', 't5']) await make(n);
    // tiled: the leader no longer spans the full height (window minus its border line).
    expect(Number(await show(place.leaderPaneId, '#{e|-:#{window_height},#{pane_height}}'))).toBeGreaterThan(1);

    await server.run(['resize-window', '-t', place.windowId, '-x', '30', '-y', '10']);
    let overflow: PaneRef | undefined;
    for (let i = 0; i < 3 && overflow === undefined; i++) {
      const out = kit.outFile();
      const pane = await backend.createPane(spec(`o${i}`, kit.argv(out, 'wait', `o${i}`)));
      const info = await kit.read(out);
      if ((await show(pane.paneId, '#{window_id}')) !== place.windowId) {
        overflow = pane;
        // respawned into the new window: still the teammate's argv, env and cwd, and its pid.
        expect(info).toMatchObject({ argv: [out, 'wait', `o${i}`], value: `value of o${i}`, cwd: kit.dir, pid: pane.pid });
      }
    }
    expect(overflow).toBeDefined();
    const ow = await show(overflow!.paneId, '#{window_id}');
    expect(await show(ow, '#{session_name}|#{window_name}|#{remain-on-exit}|#{@agent_name}')).toBe(
      `swarm-many|swarm-many|on|${await show(overflow!.paneId, '#{@agent_name}')}`,
    );
    expect(await backend.isAlive(overflow!)).toBe(true);
  }, 30000);

  it('remain-on-exit keeps a crashing command and its output; isAlive is false', async () => {
    const backend = backendFor('crash');
    const out = kit.outFile();
    const pane = await backend.createPane(spec('crashy', kit.argv(out, 'exit', '7')));
    await kit.read(out);
    const dead = await waitFor(
      async () => (await listAllPanes(server)).find((p) => p.paneId === pane.paneId && p.dead),
      5000,
      'dead pane',
    );
    // tmux 3.3a marks the pane dead on the pty's EOF; the exit status follows from SIGCHLD, which
    // this tmux sometimes never processes (the child stays an unreaped zombie), so it may be missing.
    if (dead.deadStatus !== undefined) expect(dead.deadStatus).toBe(7);
    expect(await backend.isAlive(pane)).toBe(false);
    const shown = await backend.capture(pane, 20);
    expect(shown.lines.join('\n')).toContain('PROBE ');
    if (shown.exit !== undefined) expect(shown.exit).toEqual({ code: 7 });
    expect(shown.lines.some((l) => l.startsWith('Pane is dead'))).toBe(false); // tmux's own line is left out
    await backend.kill(pane);
    expect((await listAllPanes(server)).some((p) => p.paneId === pane.paneId)).toBe(false);
  });

  it('kill removes the pane and its process, verified', async () => {
    const backend = backendFor('kill');
    const out = kit.outFile();
    const pane = await backend.createPane(spec('victim', kit.argv(out, 'wait')));
    const info = await kit.read(out);
    await backend.kill(pane);
    expect((await listAllPanes(server)).some((p) => p.paneId === pane.paneId)).toBe(false);
    expect(isProcessAlive(info.pid)).toBe(false);
    await expect(backend.kill(pane)).resolves.toBeUndefined(); // already gone: still verified
  });

  it('kill also ends what the pane\'s process started, even a child that ignores the hangup (a Claude Code teammate under its pane\'s shell)', async () => {
    const backend = backendFor('kill-tree');
    const pidFile = path.join(kit.dir, 'child.pid');
    const pane = await backend.createPane(spec('shell', ['sh', '-c', `nohup sleep 600 >/dev/null 2>&1 & echo $! > ${pidFile}; wait`]));
    const child = Number(await waitFor(async () => (await readFile(pidFile, 'utf8').catch(() => '')).trim(), 5000, 'the child pid'));
    try {
      expect(isProcessAlive(child)).toBe(true);
      await backend.kill(pane);
      expect((await listAllPanes(server)).some((p) => p.paneId === pane.paneId)).toBe(false);
      expect(isProcessAlive(child)).toBe(false);
    } finally {
      if (isProcessAlive(child)) process.kill(child, 'SIGKILL'); // nohup: reaping the server would not end it
    }
  });

  it('a pane started with no command (a shell a teammate was typed into, as Claude Code does) is alive while its shell runs something', async () => {
    const backend = backendFor('typed');
    const [paneId, shell] = (
      await server.runChain([['start-server'], ['set-option', '-g', 'default-shell', '/bin/sh'], ['new-session', '-d', '-s', 'cc', '-P', '-F', '#{pane_id} #{pane_pid}']])
    ).trim().split(' ');
    const pane: PaneRef = { paneId: paneId!, backendType: 'tmux' };
    // A login shell runs its profile first (commands of its own, one after another: between two it
    // has no child for a moment, as on a loaded CI machine): wait for its prompt, printed after.
    const atPrompt = async (): Promise<boolean> => /(^|\n)[#$%>] ?$/.test((await capturePane(server, paneId!, 5)).trimEnd()) && (await descendantsOf(Number(shell))).length === 0;
    await waitFor(atPrompt, 5000, 'the shell at its prompt');
    expect(await backend.isAlive(pane)).toBe(false); // a shell prompt: no teammate there
    await server.run(['send-keys', '-t', paneId!, 'sleep 600', 'Enter']);
    const teammate = await waitFor(async () => (await descendantsOf(Number(shell)))[0], 5000, 'the typed command');
    expect(await backend.isAlive(pane)).toBe(true);
    expect(await backend.probe([pane])).toEqual(['alive']);
    process.kill(teammate, 'SIGTERM'); // the teammate exits; its shell and pane stay
    await waitFor(async () => !(await backend.isAlive(pane)), 5000, 'the pane counted as not alive');
    expect(await backend.probe([pane])).toEqual(['dead']);
    expect((await listAllPanes(server)).some((p) => p.paneId === paneId)).toBe(true);
  });

  it("a recorded pane id whose pid differs is someone else's pane (ids restart with a server): never killed", async () => {
    const backend = backendFor('reuse-id');
    const out = kit.outFile();
    const pane = await backend.createPane(spec('mine', kit.argv(out, 'wait')));
    const info = await kit.read(out);
    const stale: PaneRef = { ...pane, pid: 2147483 }; // what config.json recorded before a server restart
    expect(await backend.isAlive(stale)).toBe(false);
    await backend.kill(stale);
    expect(await backend.isAlive(pane)).toBe(true);
    expect(isProcessAlive(info.pid)).toBe(true);
  });

  it('a lone argv element with spaces and odd characters runs as one word', async () => {
    const dir = path.join(kit.dir, 'my dir; $x');
    await mkdir(dir);
    const exe = path.join(dir, "run me 'now'.sh");
    const out = path.join(kit.dir, 'lone.txt');
    await writeFile(exe, `#!/bin/sh\nprintf '%s|%s' "$0" "$${PROBE_ENV}" > '${out}'\nsleep 100\n`);
    await chmod(exe, 0o755);
    const backend = backendFor('lone');
    await backend.createPane(spec('lone', [exe], { env: { [PROBE_ENV]: 'a;b c' } }));
    const text = await waitFor(async () => readFile(out, 'utf8').catch(() => ''), 5000, 'lone output');
    expect(text).toBe(`${exe}|a;b c`);
  });

  it('runChain: one invocation runs the commands in order, stops at the first failure, and keeps a trailing ; literal', async () => {
    const pane = await newSession(server, { name: 'chain', argv: ['sleep', '600'] });
    const show = async (fmt: string): Promise<string> => (await server.run(['display-message', '-p', '-t', pane.paneId, fmt])).trim();
    await server.runChain([setPaneOptionArgs(pane.paneId, '@a', 'one;'), setPaneOptionArgs(pane.paneId, '@b', ';')]);
    expect(await show('#{@a}|#{@b}')).toBe('one;|;');
    await expect(
      server.runChain([setPaneOptionArgs(pane.paneId, '@c', 'ran'), ['kill-pane', '-t', '%999'], setPaneOptionArgs(pane.paneId, '@d', 'ran')]),
    ).rejects.toThrow(/tmux set-option ; kill-pane ; set-option failed: can't find pane/);
    expect(await show('#{@c}|#{@d}')).toBe('ran|');
  });

  it('concurrent createPane calls are serialised and all succeed', async () => {
    const backend = backendFor('conc');
    const outs = [kit.outFile(), kit.outFile(), kit.outFile()];
    const panes = await Promise.all(outs.map((o, i) => backend.createPane(spec(`c${i}`, kit.argv(o, 'wait')))));
    expect(new Set(panes.map((p) => p.paneId)).size).toBe(3);
    for (const o of outs) await kit.read(o);
  });

  it('reuses an existing swarm-<team> session instead of creating another', async () => {
    const first = await backendFor('reuse').ensureSession();
    const second = await backendFor('reuse').ensureSession();
    expect(second).toEqual(first);
    const sessions = (await server.run(['list-sessions', '-F', '#{session_name}'])).trim().split('\n');
    expect(sessions).toEqual(['swarm-reuse']);
  });

  it('re-creates the swarm session when it was closed between spawns', async () => {
    const backend = backendFor('again');
    const out1 = kit.outFile();
    await backend.createPane(spec('one', kit.argv(out1, 'wait')));
    await kit.read(out1);
    await server.run(['kill-session', '-t', '=swarm-again']);
    const out2 = kit.outFile();
    const pane = await backend.createPane(spec('two', kit.argv(out2, 'wait')));
    await kit.read(out2);
    expect(await show(pane.paneId, '#{session_name}|#{@agent_name}')).toBe('swarm-again|two');
  });

  it("inside tmux: splits the leader's own window, leader left", async () => {
    const user = await newSession(server, { name: 'work', argv: ['sleep', '1000'] });
    const backend = backendFor('inside', { insideTmux: { paneId: user.paneId } });
    expect(backend.describe()).toContain(user.paneId);
    const out = kit.outFile();
    const pane = await backend.createPane(spec('mate', kit.argv(out, 'wait')));
    await kit.read(out);
    expect(await show(pane.paneId, '#{window_id}|#{session_name}')).toBe(`${user.windowId}|work`);
    expect(await show(user.paneId, '#{pane_left}')).toBe('0');
    expect(Number(await show(pane.paneId, '#{pane_left}'))).toBeGreaterThan(0);
    const sessions = (await server.run(['list-sessions', '-F', '#{session_name}'])).trim().split('\n');
    expect(sessions).toEqual(['work']);
  });
});
