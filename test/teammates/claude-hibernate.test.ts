// Hibernation of a real Claude Code teammate (2.1.112 and 2.1.332, offline against the stand-in, on
// a private tmux server): idle past its hibernateAfter after its turn, the leader's waker puts it to
// sleep from outside — SIGKILL, config.json whole, `hibernating` in status — and the next message
// written to its inbox wakes it with `claude --resume <its session>`: it reads the message and its
// request to the model carries the earlier conversation. A teammate in the middle of its turn (no
// idle notification since its transcript last moved) is never put to sleep.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HibernationWaker } from '../../src/cli/hibernation-waker.js';
import { isProcessAlive } from '../../src/backends/process.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { lastUserText, type IncomingRequest } from '../../src/standin/request.js';
import { readTeam } from '../../src/team/index.js';
import { claudeDueToSleep } from '../../src/teammates/claude-sleep.js';
import { spawnTeammate } from '../../src/teammates/spawn.js';
import { collectStatus } from '../../src/teammates/status-report.js';
import { CLAUDE_CODE_BUILDS } from '../support/claude-code.js';
import { useClaudeCodeTeam } from '../support/claude-code-team.js';
import { waitFor } from '../support/wait.js';

const TEAM = 'cch';
const PROMPT = 'Remember the word MARKER-GAMMA.';
const QUESTION = 'Which word did you remember, sleeper?';

/** Claude Code's main conversation (its side requests carry no tools). */
const main = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'Write');

describe.each(CLAUDE_CODE_BUILDS)('a real Claude Code $version teammate hibernates and wakes', (build) => {
  const t = useClaudeCodeTeam(TEAM, build, 'swarm-cch-');

  it('idle past its hibernateAfter: put to sleep (SIGKILL, config.json whole); a message wakes it in its session', async () => {
    // Its first turn is held until the check below has run: it is in its turn then, on any machine.
    let endTurn = (): void => undefined;
    const turnHeld = new Promise<void>((resolve) => (endTurn = resolve));
    const standin = await t.serve({
      script: {
        turns: [
          { match: (r) => main(r) && lastUserText(r.body).includes(PROMPT), respond: async () => (await turnHeld, { reply: 'MARKER-GAMMA noted.' }) },
          { match: (r) => main(r) && lastUserText(r.body).includes(QUESTION), reply: 'It was MARKER-GAMMA.' },
          ...Array.from({ length: 40 }, () => ({ match: () => true, reply: 'ok' })),
        ],
      },
    });
    const { team, backend, work } = t;
    const env = t.env(standin);
    const spawned = await spawnTeammate({ team, name: 'c1', prompt: PROMPT, runtime: 'claude', permissionMode: 'default', cwd: work, backend, env, readyTimeoutMs: 60_000, hibernateAfterMs: 1000 });
    // In its turn (no idle notification yet, or one older than its transcript's last write): not due.
    try {
      expect((await claudeDueToSleep(team, env, Date.now() + 3_600_000)).due).toEqual([]);
    } finally {
      endTurn();
    }

    const lines: string[] = [];
    const waker = await HibernationWaker.start({ team, backends: () => ({ env }), say: (l) => lines.push(l), pollMs: 250 });
    try {
      const state = async (): Promise<string | undefined> => (await collectStatus(team, { env })).report.members.find((m) => m.name === 'c1')?.state;
      await waitFor(async () => (await state()) === 'hibernating', 90_000, 'c1 to be put to sleep');
      expect(isProcessAlive(spawned.pid!)).toBe(false);
      const config = await readTeam(team); // parsed whole: not emptied by the way it was stopped
      expect(config.members[1]).toMatchObject({ name: 'c1', isActive: false, hibernatedAt: expect.any(Number) });
      await waitFor(() => lines.some((l) => l.startsWith('c1 is hibernating: idle')), 10_000, 'the waker to say so');

      const before = standin.requests.length;
      const { mailbox } = await openLeadMailbox({ team });
      await mailbox.append('c1', { from: 'team-lead', text: QUESTION });
      const asked = (): IncomingRequest | undefined =>
        standin.requests.slice(before).find((r): r is typeof r & IncomingRequest => r.body !== undefined && main(r as IncomingRequest) && lastUserText(r.body).includes(QUESTION));
      await waitFor(asked, 90_000, 'the message that woke it sent to the model').catch(async (e: Error) => {
        const m = (await readTeam(team)).members[1];
        throw new Error(`${e.message}\n--- the waker said:\n${lines.join('\n')}\n--- c1 now: ${JSON.stringify(m)}\n--- its stderr: ${await fs.readFile(team.paths.stderrLog('c1'), 'utf8').catch(() => '')}`);
      });
      const sent = JSON.stringify(asked()!.body.messages);
      expect(sent).toContain('MARKER-GAMMA noted.'); // its session went on
      expect(lines.filter((l) => l.startsWith('waking c1 (hibernating): a message for it'))).toHaveLength(1);
    } finally {
      await waker.close();
    }
  }, 240_000);
});
