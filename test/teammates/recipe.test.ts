// The member → pane recipe (teammates/recipe.ts) is one: what `launch --dry-run` prints for a member
// is what a real spawn of the same member runs, colour included. The spawn is real (spawnTeammates
// into a new team, an in-process host in this test process running the fake teammate); the backend
// only records the PaneSpec it is handed.
import { afterEach, describe, expect, it } from 'vitest';
import type { Backend, PaneSpec } from '../../src/backends/backend.js';
import { InProcessBackend } from '../../src/backends/in-process/in-process-backend.js';
import { InProcessHost } from '../../src/backends/in-process/host.js';
import { dryRunPlan, redacted } from '../../src/cli/launch/dry-run.js';
import type { TeamFile } from '../../src/cli/launch/team-file.js';
import { createTeam, readTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { spawnTeammates } from '../../src/teammates/spawn.js';
import { fakeInProcessTeammate } from '../support/fake-teammate-inprocess.js';
import { tempRoot } from '../support/tmp-root.js';

const FILE: TeamFile = {
  name: 'sq',
  members: [
    { name: 'ann', prompt: 'review it', model: 'claude-x' },
    { name: 'bob', prompt: 'test it', planModeRequired: true, permissionMode: 'acceptEdits' },
  ],
};

/** The spec's argv with the two values that exist only once the team does, as the dry run shows them. */
function withPlaceholders(spec: PaneSpec): PaneSpec {
  const placeholder: Record<string, string> = { '--parent-session-id': '<lead-session-id>', '--lead-verify-key': '<lead-verify-key>' };
  const argv = spec.argv.map((word, i) => placeholder[spec.argv[i - 1] ?? ''] ?? word);
  return { ...spec, argv, env: redacted(spec.env) };
}

describe('the dry run and a real spawn build the same pane for a member', () => {
  let host: InProcessHost | undefined;
  afterEach(async () => {
    await host?.close();
    host = undefined;
  });

  it('argv, env, cwd, stderr log and colour agree, member by member', async () => {
    const root = await tempRoot();
    const team = new Team(root, FILE.name);
    await createTeam(root, { name: FILE.name });
    host = await InProcessHost.open({ team, launch: fakeInProcessTeammate, pollMs: 200, killTimeoutMs: 500 });
    const inner = new InProcessBackend({ team, host });
    const specs: PaneSpec[] = [];
    const backend: Backend = Object.assign(Object.create(inner) as Backend, {
      createPane: (spec: PaneSpec) => {
        specs.push(spec);
        return inner.createPane(spec);
      },
    });
    const env = { CLAUDE_CONFIG_DIR: root, ANTHROPIC_API_KEY: 'sk-recipe' };

    const planned = dryRunPlan({ file: FILE, team: FILE.name, taken: false, root, env, cwd: root, backend, console: false });
    const results = await spawnTeammates(FILE.members.map((m) => ({ ...m, team, backend, env, cwd: root, readyTimeoutMs: 8000 })));
    expect(results.map((r) => r.ok)).toEqual([true, true]);

    const config = await readTeam(team);
    expect(specs.map((s) => s.color)).toEqual(config.members.slice(1).map((m) => m.color));
    expect(specs.map((s) => s.color)).toEqual(['blue', 'green']);
    for (const spec of specs) {
      expect(spec.argv[spec.argv.indexOf('--parent-session-id') + 1]).toBe(config.leadSessionId);
      expect(spec.argv[spec.argv.indexOf('--agent-color') + 1]).toBe(spec.color);
      // The in-process plan is one note: `cd <cwd> && env K=V... argv...`.
      const [line] = inner.plan(withPlaceholders(spec));
      expect(planned).toContainEqual(line);
    }
    expect(specs.map((s) => s.stderrLog)).toEqual(FILE.members.map((m) => team.paths.stderrLog(m.name)));
  });
});
