// The agent lead's `Agent {isolation: "worktree"}` (runtime/lead/tools.ts) through the run's powers
// (cli/run/lead-powers.ts) to a real spawn: the fake teammate in a private tmux server (reaped
// afterwards) gets its own worktree of a real repository in a temp dir, and the lead's shutdown
// result says what became of it.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { leadPowers } from '../../../src/cli/run/lead-powers.js';
import { agentTool, leadSendTool, type LeadPowers } from '../../../src/runtime/lead/tools.js';
import type { ToolContext } from '../../../src/runtime/tools/types.js';
import { createTeam, readTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { git, makeRepo } from '../../support/git-repo.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));
const TEAM = 'lw';
let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;

useTempRoot((dir) => (root = dir), 'swarm-lead-wt-');
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  repo = await makeRepo(path.join(root, 'repo'));
  env = { PATH: process.env.PATH, CLAUDE_CONFIG_DIR: root, ...tmuxEnv(tmuxForThisTest(), [process.execPath, FAKE]) };
});

/** Neither tool reads the teammate tool context. */
const NO_CONTEXT = {} as ToolContext;

describe("the lead's Agent with isolation: worktree", () => {
  it('spawns the teammate in its own worktree; the shutdown result says it was removed, clean, with its branch', async () => {
    const team = new Team(root, TEAM);
    const powers: LeadPowers = {
      ...leadPowers({ team, env, backend: 'tmux', cwd: repo, print: () => undefined }),
      mayAddTeammate: async () => undefined,
      send: async () => [],
    };
    const spawn = await agentTool(powers).prepare({ name: 'iso', prompt: 'work alone', isolation: 'worktree' }, NO_CONTEXT);
    const spawned = await spawn.execute(new AbortController().signal);
    expect(spawned.isError).toBeUndefined();
    const tree = path.join(repo, '.claude', 'worktrees', `${TEAM}-iso`);
    expect((await readTeam(team)).members[1]).toMatchObject({ name: 'iso', worktreePath: tree, cwd: tree });
    expect(await git(tree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(`swarm/${TEAM}/iso`);

    const stop = await leadSendTool(powers).prepare({ to: 'iso', message: { type: 'shutdown_request', reason: 'done' } }, NO_CONTEXT);
    const stopped = await stop.execute(new AbortController().signal);
    expect(stopped.content).toBe(`iso approved the shutdown and is gone (verified). Worktree removed (no changes), with branch swarm/${TEAM}/iso.`);
    expect(existsSync(tree)).toBe(false);
  });
});
