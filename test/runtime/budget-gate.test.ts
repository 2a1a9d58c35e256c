// The budget gate in process (runtime/budget-gate.ts) with real files: its own step's cost, still
// being written in the background, is in the sum it judges (the status file is flushed first);
// held, it tells team-lead once per wait and waits; a raised budget lets the step go; a signed
// shutdown request while held stops the teammate (onShutdown) instead of a model step.
import { describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import type { ShutdownRequest } from '../../src/protocol/control.js';
import { BudgetGate } from '../../src/runtime/budget-gate.js';
import { ShutdownCoordinator } from '../../src/runtime/shutdown.js';
import { StatusReporter } from '../../src/runtime/status.js';
import { Transcript } from '../../src/runtime/transcript.js';
import { PaneView } from '../../src/runtime/view.js';
import { raiseTeamBudget, setTeamBudget } from '../../src/team/spend.js';
import { addMember, createTeam } from '../../src/team/team-store.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-gate-');

describe('BudgetGate', () => {
  it("judges its own last step too; held, it tells team-lead and waits; a raise lets the step go; a shutdown request stops it", async () => {
    const { team } = await createTeam(root, { name: 't', cwd: root });
    await addMember(team, { name: 'w1', cwd: root });
    await setTeamBudget(team, { usd: 1 });
    const status = new StatusReporter({ file: team.paths.status('w1'), name: 'w1', agentId: 'w1@t', pid: process.pid, heartbeatMs: 60_000 });
    await status.start();
    status.setState('working');
    const shutdown = new ShutdownCoordinator({ graceMs: 60_000, onGraceExpired: () => undefined });
    const stop = new AbortController();
    const stopped: ShutdownRequest[] = [];
    let pane = '';
    const mailbox = new Mailbox({ team });
    const gate = new BudgetGate({
      team,
      name: 'w1',
      mailbox,
      status,
      view: new PaneView((t) => (pane += t), undefined),
      transcript: new Transcript(team.paths.log('w1')),
      shutdown,
      onShutdown: (r) => {
        stopped.push(r);
        stop.abort(new Error('stopped at the budget'));
      },
      stop: stop.signal,
      pollMs: 50,
    });
    const told = async () => (await mailbox.read('team-lead').catch(() => [])).filter((m) => m.from === 'w1' && m.summary === 'waiting at the budget');
    /** Resolves once team-lead has heard `n` times that w1 waits at the budget. */
    const toldTimes = (n: number) => waitFor(async () => (await told()).length >= n, 5000, `${n} message(s) to team-lead`);

    await gate.beforeStep(); // nothing spent: the step goes ahead at once
    // A step costing $1.20: its figures are still on their way to the status file when the gate looks.
    status.usage(400_000, 0, 1.2);
    let went = false;
    const held = gate.beforeStep().then(() => (went = true));
    await waitFor(() => status.state === 'waiting_budget', 5000, 'held at the budget');
    expect(went).toBe(false);
    await toldTimes(1);
    expect((await told())[0]!.text).toBe("[swarm] w1 is waiting: the team's budget is reached ($1.20 spent of --budget-usd 1). It takes no model step until the budget is raised, or it is shut down.");

    await raiseTeamBudget(team, 'budget-usd', 1);
    await held;
    expect(status.state).toBe('working');
    expect(pane).toContain("the team's budget was raised (--budget-usd 2); going on");

    status.usage(400_000, 0, 1.2); // $2.40 of 2
    const again = gate.beforeStep();
    await waitFor(() => status.state === 'waiting_budget', 5000, 'held again');
    await toldTimes(2);
    const request: ShutdownRequest = { type: 'shutdown_request', requestId: 'shutdown-1@w1', from: 'team-lead', timestamp: new Date().toISOString() };
    shutdown.noteSigned(request);
    await expect(again).rejects.toThrow('stopped at the budget');
    expect(stopped).toEqual([request]);
    expect(await told()).toHaveLength(2); // once per wait
    shutdown.dispose();
    await status.stop('exiting');
  });
});
