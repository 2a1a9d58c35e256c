// Both leads follow one method (issue 34 item 1): the system prompt swarm's own lead gets and the
// text a Claude Code lead gets appended (cli/run/claude-lead.ts) are the same words but for each
// lead's tool names and how it waits and ends (its voice), and they carry the method's rules.
import { describe, expect, it } from 'vitest';
import { claudeLeadPrompt } from '../../../src/cli/run/claude-lead.js';
import { MCP_VOICE } from '../../../src/cli/mcp/names.js';
import { LeadLimits } from '../../../src/runtime/lead/limits.js';
import { BUILT_IN_VOICE, buildLeadPrompt, type LeadVoice } from '../../../src/runtime/lead/prompt.js';
import { loadAgentTypes } from '../../../src/team/agent-types.js';
import { readTeamMemory } from '../../../src/team/memory.js';
import { memoryDir } from '../../../src/team/paths.js';
import { readBudgetState } from '../../../src/team/spend.js';
import { createTeam, readTeam } from '../../../src/team/team-store.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-method-');

/** `text` with every phrase of voice `from` in the words of voice `to`. */
function revoice(text: string, from: LeadVoice, to: LeadVoice): string {
  let out = text;
  for (const k of ['wait', 'end', 'spawn', 'send', 'taskCreate', 'taskUpdate', 'readWith'] as const) out = out.split(from[k]).join(to[k]);
  return out;
}

describe("the lead's method", () => {
  it('swarm\'s lead and a Claude Code lead get the same text, each in its own voice', async () => {
    const { team } = await createTeam(root, { name: 'crew', cwd: root });
    const settings = { limits: { maxTeammates: 3, budgetUsd: 2 }, backend: undefined, model: undefined, permissionMode: undefined, runtime: 'claude' as const, cwd: root };
    const forClaude = await claudeLeadPrompt(team, settings);
    const config = await readTeam(team);
    const builtIn = buildLeadPrompt({
      team: 'crew',
      cwd: root,
      config,
      maxTeammates: 3,
      limits: new LeadLimits(settings.limits).describe(await readBudgetState(team, config)),
      readTools: true,
      agentTypes: loadAgentTypes({ cwd: root, root }).types,
      scratchpad: team.paths.scratchpad,
      memory: await readTeamMemory(memoryDir(root, root)),
    });
    expect(forClaude).not.toBe(builtIn); // the voices differ …
    expect(revoice(forClaude, MCP_VOICE, BUILT_IN_VOICE)).toBe(builtIn); // … and nothing else does
    expect(forClaude).toContain('mcp__swarm__wait_for_messages');
    expect(builtIn).not.toContain('mcp__swarm__');
  });

  it('carries the rules, each with its reason, in under 200 lines', () => {
    const text = buildLeadPrompt({ team: 't', cwd: '/w', config: { name: 't', members: [] } as never, maxTeammates: 2, limits: [], readTools: false, agentTypes: [], scratchpad: '/r/scratchpad/t' });
    for (const rule of [
      'Never delegate understanding',
      '"Based on your findings, fix it"',
      'A prompt with no paths',
      '"Do the same for the other files"',
      'Read-only work (research, review, running tests) runs in parallel',
      'Writes are serialised per set of files',
      'Continue (SendMessage) when the next step overlaps heavily',
      'Spawn a fresh teammate when the overlap is low',
      'The verifier is independent and adversarial',
      'It runs the checks',
    ]) expect(text).toContain(rule);
    expect(text.split('\n').length).toBeLessThan(200);
  });
});
