// `swarm run -p` (runHeadless, in-process, the lead on the stand-in Messages API) on a team whose
// last leader died before answering: the questions still open are shown first, with the commands
// that answer them, each once — one whose frame is still unread is not shown again when the inbox
// delivers it —, an answered plan and a request whose asker is dead never; interrupted, the run
// shuts its teammates down (verified).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../../src/backends/process.js';
import { runHeadless } from '../../../src/cli/run/headless.js';
import { defaultLeadSettings } from '../../../src/cli/run/options.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { newPermissionId } from '../../../src/protocol/ids.js';
import { startMessagesServer, type MessagesServer } from '../../../src/standin/messages-server.js';
import { readTeam, updateMember } from '../../../src/team/team-store.js';
import { permissionFrame, questionsLeftOpen } from '../../support/open-questions.js';
import { setupTeam } from '../../support/perm-harness.js';
import { deadPid, reapChildren, startSleeper, writePendingFor } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root = '';
let server: MessagesServer;
useTempRoot((r) => (root = r), 'swarm-headless-q-');
beforeEach(async () => {
  server = await startMessagesServer({ script: { exhaustedReply: 'Waiting for the team.', turns: [] } });
});
afterEach(async () => {
  await server.close();
  await reapChildren();
});

describe('swarm run -p on a team whose leader died', () => {
  it('shows every question still open first, each once; interrupted, it stops its teammates', async () => {
    const { base } = await setupTeam(root);
    const team = base.team;
    // Both teammates live and work (so the lead waits for them).
    const pids = { w1: await startSleeper(), w2: await startSleeper() };
    for (const [name, pid] of Object.entries(pids)) await updateMember(team, name, { pid, isActive: true });
    const left = await questionsLeftOpen(team);
    // A question asked just now, its frame not read yet: listed at start, then delivered by the inbox.
    const fresh = newPermissionId();
    const mailbox = new Mailbox({ team });
    await mailbox.append('team-lead', { from: 'w2', text: permissionFrame(fresh, 'npm run fresh-check') });
    // One whose asker is gone (its process dead): nobody waits for it, it is not asked (doctor's business).
    const orphaned = await writePendingFor(root, 't', 'w2', { workerPid: await deadPid() });

    const lines: string[] = [];
    const stop = new AbortController();
    const env = { CLAUDE_CONFIG_DIR: root, ANTHROPIC_BASE_URL: server.url, ANTHROPIC_API_KEY: 'sk-test', SWARM_POLL_MS: '250' };
    const done = runHeadless({ ...defaultLeadSettings(env, root), team, goal: 'Carry on.', env, progress: (l) => lines.push(l), answer: () => undefined, signal: stop.signal, shutdownTimeoutMs: 500 });
    await waitFor(async () => (await mailbox.read('team-lead')).every((m) => m.read) && lines.some((l) => l.startsWith('lead › ')), 15_000, 'the inbox taken and the lead at work');
    stop.abort();
    expect(await done).toBe(1);

    expect(lines.filter((l) => /question|waiting for/.test(l))).toEqual([
      '3 questions asked before this run still open:',
      `waiting for plan approval: w2 → swarm plan w2 --approve --team t`,
      `waiting for approval: w1 Bash npm run old-check → swarm approve ${left.permissionId} --team t`,
      `waiting for approval: w2 Bash npm run fresh-check → swarm approve ${fresh} --team t`,
    ]);
    for (const id of [left.answeredPlanId, orphaned]) expect(lines.join('\n')).not.toContain(id);
    // Interrupted: both teammates stopped (neither answers a shutdown request: killed), verified.
    expect(Object.values(pids).filter((p) => isProcessAlive(p))).toEqual([]);
    expect((await readTeam(team)).members.map((m) => m.name)).toEqual(['team-lead']);
  }, 30_000);
});
