// `swarm demo` in a real tmux pane (private server, reaped afterwards; TMPDIR points into the
// test's temp dir so the demo's private root is ours): it says the model is scripted, reaches the
// permission question, completes after `y` (every teammate idle), and Ctrl-C → y shuts the team
// down, leaves only its own pane, and removes its root.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { SWARM_BIN } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { privateSocket, reapServer } from '../../support/tmux.js';
import { waitFor } from '../../support/wait.js';

let tmp: string;
let socket: string;
let tmux: TmuxServer;

useTempRoot((dir) => (tmp = dir), 'swarm-demo-test-');
beforeEach(async () => {
  socket = privateSocket();
  tmux = new TmuxServer({ socket });
});

afterEach(async (ctx) => {
  const errors: unknown[] = [];
  await reapServer(socket).catch((e: unknown) => errors.push(e));
  if (errors.length > 0 && ctx.task.result?.state !== 'fail') throw errors[0];
});

describe('swarm demo', () => {
  it('reaches the approval question, completes after y, and shuts down cleanly on Ctrl-C → y', async () => {
    const env = { SWARM_TMUX_SOCKET: socket, TMPDIR: tmp, SWARM_POLL_MS: '250', SWARM_HEARTBEAT_MS: '500' };
    const flags = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
    const cmd = `${quote([process.execPath, SWARM_BIN, 'demo'])}; echo DEMO-EXIT=$?`;
    await execa('tmux', ['-L', socket, 'new-session', '-d', '-s', 'main', '-x', '200', '-y', '50', ...flags, '-c', tmp, cmd], {
      env: { ...process.env, TMUX: '', SWARM_TEAM: '', ANTHROPIC_API_KEY: '', CLAUDE_CONFIG_DIR: path.join(tmp, 'never-used') },
    });
    const pane = (await listAllPanes(tmux))[0]!.paneId;
    const screen = (): Promise<string> => capturePane(tmux, pane, 300);

    await waitFor(async () => (await screen()).includes('scripted stand-in model'), 10_000, 'the scripted-model notice');
    await waitFor(async () => (await screen()).includes('[y] allow once  [a] always  [n] deny'), 30_000, 'the approval question');
    expect(await screen()).toContain('$ node test/greet.test.js');
    expect((await listAllPanes(tmux)).length).toBe(4); // the console and three teammates
    const demoRoot = /demo root (\S+)/.exec(await screen())?.[1];
    expect(demoRoot?.startsWith(tmp)).toBe(true);

    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('both tests pass'), 15_000, "tester's report");
    await waitFor(async () => (await screen()).includes('all 3 teammates are idle'), 15_000, 'every teammate idle');
    expect(await screen()).toContain('type /shutdown --all, or press Ctrl-C');

    await tmux.run(['send-keys', '-t', pane, 'C-c']);
    await waitFor(async () => (await screen()).includes('shut the team down?'), 5000, 'the Ctrl-C question');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 30_000, 'the demo to exit 0');
    expect(await screen()).toContain('demo cleaned up');
    expect((await listAllPanes(tmux)).map((p) => p.paneId)).toEqual([pane]);
    await expect(fs.access(demoRoot!)).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
