// `swarm demo` (the agent lead's demo) in a real tmux pane (private server, reaped afterwards;
// TMPDIR points into the test's temp dir so the demo's private root is ours):
//   - it says the model is scripted and what to press; the lead makes two tasks, the test blocked by
//     the fix, and spawns coder and tester beside the console; the one permission question comes,
//     on a 100x30 screen with its keys, `y` answers it; the verifier's VERDICT: PASS and the lead's
//     final answer are on the screen, no line twice; the demo ends by itself, exit 0, with only its
//     own pane left and its root removed;
//   - without tmux (no tmux on PATH) the same run goes in-process, in the demo's own console;
//   - Ctrl-C → y at the permission question shuts the team down and cleans up the same way;
//   - SIGHUP with its console (and so the lead, which spawned the teammates) in a `swarm-demo`
//     session: the teammates, the session and the root are gone, exit 129.
// The --manual demo's ends are in demo-end.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { TmuxServer, capturePane, listAllPanes } from '../../../src/backends/tmux/commands.js';
import { LEAD_DEMO_DONE } from '../../../src/cli/demo/lead-scenario.js';
import { listDemoRoots } from '../../../src/cli/demo/root.js';
import { TaskList } from '../../../src/tasks/index.js';
import { readTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { swarmInProcess } from '../../support/cli.js';
import { demoCommand, expectDemoCleanedUp, expectHangUpCleansUp, demoLeftovers, sessionNames, startDemoPane, useDemoPanes, userRoot, type DemoPanes } from '../../support/demo-pane.js';
import { waitFor } from '../../support/wait.js';

let panes: DemoPanes;
let tmp: string;
let tmux: TmuxServer;

useDemoPanes((d) => ({ tmp, tmux } = panes = d));

/**
 * `swarm demo` in the first pane of the private server (startDemoPane). `outsideTmux`: TMUX unset
 * and stdin not a terminal, so its console goes to a `swarm-demo` session and nothing attaches.
 * `pathWithoutTmux`: TMUX unset and PATH only that directory, so the demo finds no tmux.
 */
function startDemo(outsideTmux = false, pathWithoutTmux?: string, size: [number, number] = [200, 50]): Promise<{ pane: string; screen: () => Promise<string> }> {
  const demo = demoCommand([]);
  const run = pathWithoutTmux !== undefined ? `env -u TMUX PATH=${quote([pathWithoutTmux])} ${demo}` : outsideTmux ? `env -u TMUX ${demo} </dev/null` : demo;
  return startDemoPane(panes, `${run}; echo DEMO-EXIT=$?`, size, 400);
}

/** The running demo's root (from its marker). */
const demoRoot = (): Promise<string> => waitFor(async () => (await listDemoRoots(userRoot(panes)))[0]?.root, 10_000, 'the demo root');

describe('swarm demo (the agent lead)', () => {
  // One demo run at 100x30 (the size of a laptop's split terminal) checks both the run and the
  // screen: each demo costs about 6 CPU-s of the suite's two cores.
  it('plans, spawns, asks once (y: the question and its keys on a 100x30 screen), is verified, answers, and ends by itself: cleaned up, exit 0, no line said twice', async () => {
    const { pane, screen } = await startDemo(false, undefined, [100, 30]);
    const visible = async (): Promise<string> => (await capturePane(tmux, pane, 0)).replaceAll('\n', '');
    await waitFor(async () => (await screen()).includes('scripted stand-in model'), 10_000, 'the scripted-model notice');
    expect(await screen()).toContain('press y when tester asks to run node test/greet.test.js');
    const root = await demoRoot();
    expect(root.startsWith(tmp)).toBe(true);

    await waitFor(async () => (await visible()).includes('[y] allow once  [a] always  [n] deny'), 30_000, 'the approval question on the screen');
    expect(await visible()).toContain('$ node test/greet.test.js');
    expect((await listAllPanes(tmux)).length).toBe(3); // the console, coder and tester
    const title = await tmux.run(['display-message', '-p', '-t', pane, '#{pane_title}']);
    expect(title.trim()).toBe('swarm lead · demo');
    // The lead's plan, as the task list has it: the fix done by coder, the test (tester's) blocked by it.
    const { tasks } = await new TaskList(new Team(root, 'demo')).list();
    expect(tasks.map((t) => ({ id: t.id, owner: t.owner, status: t.status, blockedBy: t.blockedBy }))).toEqual([
      { id: '1', owner: 'coder', status: 'completed', blockedBy: [] },
      { id: '2', owner: 'tester', status: 'in_progress', blockedBy: ['1'] },
    ]);
    // The stand-in is no priced model: tokens, never a dollar figure.
    const status = await swarmInProcess(root, ['status', '--team', 'demo']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toMatch(/^total {2}tokens \S+ · \d+ unpriced members$/m);
    expect(status.stdout).not.toContain('$');

    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('both tests pass (ok 1, ok 2)'), 20_000, "tester's real test run");
    await waitFor(async () => (await screen()).includes('VERDICT: PASS'), 20_000, "the verifier's verdict");
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 40_000, 'the demo to end by itself, exit 0');
    const out = await screen();
    expect(out).toContain('lead › The verifier says PASS'); // each turn's text on its own line, not run on after "Waiting…"
    expect(out).toContain(`lead › ${LEAD_DEMO_DONE}`);
    expect(out).toContain('verifier: approved the shutdown');
    expect(out).toContain('the lead has finished and no teammate is left: the demo ends');
    const lines = (await capturePane(tmux, pane, 1000)).split('\n');
    const count = (re: RegExp): number => lines.filter((l) => re.test(l)).length;
    expect(count(/lead › Waiting for coder and tester\./)).toBe(1); // the lead's same reply to each idle notification
    expect(count(/◆ coder is idle: Task #1 is mine/)).toBe(1); // two turns, the same idle summary
    expect(lines.filter((l) => /^── .*\b(unknown|starting)\b/.test(l))).toEqual([]); // a teammate being spawned is no status news
    await expectDemoCleanedUp(panes, out, pane, root);
  }, 120_000);

  it('without tmux: the lead and its teammates run in-process in the console, and it ends the same way', async () => {
    const bin = path.join(tmp, 'bin-without-tmux');
    await fs.mkdir(bin);
    await fs.symlink(process.execPath, path.join(bin, 'node')); // tester's Bash runs `node test/greet.test.js`
    const { pane, screen } = await startDemo(false, bin);
    await waitFor(async () => (await screen()).includes('[y] allow once'), 30_000, 'the approval question');
    expect(await screen()).toContain('using the in-process backend');
    expect(await listAllPanes(tmux)).toHaveLength(1);
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 40_000, 'the demo to end by itself, exit 0');
    const out = await screen();
    expect(out).toContain('VERDICT: PASS');
    expect(out).toContain(`lead › ${LEAD_DEMO_DONE}`);
    expect(out).toContain('demo cleaned up');
    expect(await demoLeftovers(panes)).toEqual([]);
  }, 60_000);

  it('Ctrl-C → y at the permission question shuts the team down and cleans up', async () => {
    const { pane, screen } = await startDemo();
    const root = await demoRoot();
    await waitFor(async () => (await screen()).includes('[y] allow once'), 30_000, 'the approval question');
    await tmux.run(['send-keys', '-t', pane, 'C-c']);
    await waitFor(async () => (await screen()).includes('shut the team down?'), 5000, 'the Ctrl-C question');
    await tmux.run(['send-keys', '-t', pane, 'y']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 30_000, 'the demo to exit 0');
    await expectDemoCleanedUp(panes, await screen(), pane, root);
  }, 60_000);

  it('outside tmux: the console and lead run in a swarm-demo session; after it ends the lead\'s answer stays in this terminal', async () => {
    const { screen } = await startDemo(true);
    const consolePane = async (): Promise<string | undefined> => (await listAllPanes(tmux)).find((p) => p.sessionName === 'swarm-demo')?.paneId;
    const question = await waitFor(
      async () => {
        const p = await consolePane();
        return p !== undefined && (await capturePane(tmux, p, 400)).includes('[y] allow once') ? p : undefined;
      },
      30_000,
      'the approval question in the session console',
    );
    await tmux.run(['send-keys', '-t', question, 'y']);
    await waitFor(async () => (await screen()).includes('DEMO-EXIT=0'), 60_000, 'the demo to end by itself, exit 0');
    const out = await screen();
    expect(out).toContain("the lead's answer:");
    expect(out).toContain(LEAD_DEMO_DONE);
    expect(out.indexOf("the lead's answer:")).toBeLessThan(out.indexOf('demo cleaned up'));
    expect(await sessionNames(panes)).toEqual(['main']);
  }, 90_000);

  it('on SIGHUP with its console and lead in a swarm-demo session: the teammates, the session and the root are gone, exit 129', async () => {
    const { pane, screen } = await startDemo(true);
    const { root, pid, teammatePids } = await waitFor(
      async () => {
        const [d] = await listDemoRoots(userRoot(panes));
        if (d?.marker === undefined) return undefined;
        const config = await readTeam(new Team(d.root, 'demo')).catch(() => undefined);
        const pids = config?.members.flatMap((m) => (m.name !== 'team-lead' && m.pid !== undefined ? [m.pid] : [])) ?? [];
        return pids.length === 2 ? { root: d.root, pid: d.marker.pid, teammatePids: pids } : undefined;
      },
      30_000,
      'coder and tester spawned by the lead',
    );
    expect(await sessionNames(panes)).toEqual(['main', 'swarm-demo']);

    await expectHangUpCleansUp(panes, { pid, pane, root, teammatePids, screen });
  }, 60_000);
});
