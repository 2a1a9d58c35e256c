// The team's scratchpad end to end (docs/scratchpad.md), with the teammate runtime in this process
// against the stand-in Messages API: w1 in default mode writes its findings there and w2 reads them,
// and nobody is asked (no pending request, no audit line, no permission in either transcript); in
// plan mode the write is refused like every write while reading works; both teammates' and both
// leads' system prompts name the scratchpad.
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeLeadPrompt } from '../../src/cli/run/claude-lead.js';
import type { TeamSettings } from '../../src/cli/run/options.js';
import { PLAN_MODE_REFUSAL } from '../../src/runtime/permission-gate.js';
import { SCRATCHPAD_LIMITS } from '../../src/runtime/tools/scratchpad.js';
import { systemText } from '../../src/standin/request.js';
import { Team } from '../../src/team/team.js';
import {
  logLines,
  pendingIds,
  runInProcess,
  setupRuntime,
  toolResults,
  waitForControl,
  type RuntimeEnv,
} from '../support/runtime-harness.js';

const FINDINGS = '# Findings\nThe parser drops the last line when the file has no trailing newline.\n';

/** What the team asked anyone: pending requests, audit lines, permission entries in the transcripts. */
async function questions(e: RuntimeEnv): Promise<unknown[]> {
  const audit = await fs.readFile(e.paths.audit, 'utf8').catch(() => '');
  const asked = [...(await logLines(e, 'w1')), ...(await logLines(e, 'w2'))].filter((l) => l.kind === 'permission');
  return [...(await pendingIds(e)), ...audit.split('\n').filter((l) => l.trim() !== ''), ...asked];
}

describe('the scratchpad', () => {
  it('w1 (default mode) writes its findings there and w2 reads them, and nobody is asked', async () => {
    let e!: RuntimeEnv;
    const file = (): string => path.join(e.paths.scratchpad, 'w1-parser.md');
    e = await setupRuntime({
      turns: [
        { match: { agent: 'w1', lastUser: 'look into the parser' }, respond: () => ({ reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: file(), content: FINDINGS } }] } }) },
        { match: { agent: 'w1', toolResult: 'Write' }, reply: 'Findings are in the scratchpad.' },
        { match: { agent: 'w2', lastUser: "read w1's findings" }, respond: () => ({ reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: file() } }] } }) },
        { match: { agent: 'w2', toolResult: 'Read' }, reply: 'Read them.' },
      ],
    });
    await e.lead.append('w1', { from: 'team-lead', text: 'Please look into the parser' });
    runInProcess(e, 'w1');
    await waitForControl(e, 'team-lead', 'idle_notification');
    expect(await fs.readFile(file(), 'utf8')).toBe(FINDINGS);

    await e.lead.append('w2', { from: 'team-lead', text: "Please read w1's findings" });
    runInProcess(e, 'w2');
    await waitForControl(e, 'team-lead', 'idle_notification', 2);
    const w2 = e.server.requests.filter((r) => r.agent === 'w2');
    expect(toolResults(w2.at(-1))).toEqual([{ content: '     1\t# Findings\n     2\tThe parser drops the last line when the file has no trailing newline.' }]);
    expect(await questions(e)).toEqual([]);

    // Both system prompts name the scratchpad, what it is for, and its limits.
    for (const agent of ['w1', 'w2']) {
      const prompt = systemText(e.server.requests.find((r) => r.agent === agent)!.body!);
      expect(prompt).toContain(`${e.paths.scratchpad} is the team's shared scratchpad`);
      expect(prompt).toContain(`at most ${SCRATCHPAD_LIMITS}`);
      expect(prompt).toContain('never put secrets there');
    }
  });

  it('in plan mode a write there is refused like every write, and reading it works', async () => {
    let e!: RuntimeEnv;
    const at = (name: string): string => path.join(e.paths.scratchpad, name);
    e = await setupRuntime(
      {
        turns: [
          {
            match: { agent: 'w1', lastUser: 'plan the fix' },
            respond: () => ({
              reply: {
                content: [
                  { type: 'tool_use', name: 'Read', input: { file_path: at('notes.md') } },
                  { type: 'tool_use', name: 'Write', input: { file_path: at('plan.md'), content: 'my plan' } },
                ],
              },
            }),
          },
          { match: { agent: 'w1', toolResult: 'Write' }, reply: 'Planning only.' },
        ],
      },
      { members: [{ name: 'w1', mode: 'plan' }] },
    );
    await fs.writeFile(at('notes.md'), 'left by w2\n');
    await e.lead.append('w1', { from: 'team-lead', text: 'Please plan the fix' });
    runInProcess(e, 'w1');
    await waitForControl(e, 'team-lead', 'idle_notification');
    expect(toolResults(e.server.requests.at(-1))).toEqual([{ content: '     1\tleft by w2' }, { content: PLAN_MODE_REFUSAL, is_error: true }]);
    expect(existsSync(at('plan.md'))).toBe(false);
    expect(await questions(e)).toEqual([]);
  });

  it("both leads' prompts name the scratchpad (the Claude Code lead's here; the built-in lead's in lead.test.ts)", async () => {
    const e = await setupRuntime({ turns: [] });
    const settings: TeamSettings = { limits: { maxTeammates: 3 }, backend: undefined, model: undefined, permissionMode: undefined, runtime: 'swarm', cwd: e.work };
    const prompt = await claudeLeadPrompt(new Team(e.root, 't'), settings);
    expect(prompt).toContain(`- ${e.paths.scratchpad} is the team's scratchpad: every teammate reads and writes files there without asking anyone.`);
    expect(prompt).toContain('(you can read them with Read, Glob and Grep).');
  });
});
