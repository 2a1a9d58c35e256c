// Agent types at the command line (SPEC §10): `swarm agents --json`
// (every type with its source, bad files as problems, exit 0), and `swarm spawn --agent-type`: a
// project type's model and permission mode reach config.json and the teammate's flags; an unknown
// type and a broken file are one-line errors that leave no member. tmux on a private socket per
// test, the fake teammate via SWARM_TEAMMATE_COMMAND. In-process (main(argv, io)), but for the spawn
// that starts a teammate: the real executable (run `npm run build` first).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { createTeam, readTeam, teamPaths } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { tmuxEnv, tmuxForThisTest } from '../../support/tmux.js';

const FAKE = fileURLToPath(new URL('../../support/fake-teammate.mjs', import.meta.url));
const TEAM = 'ag';

let root: string;
let project: string;
let env: Record<string, string>;
const pids = new Set<number>();

useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
  project = path.join(root, 'project');
  await write(path.join(project, '.claude', 'agents'), 'reviewer.md', '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Grep\nmodel: opus\npermissionMode: plan\n---\nYou review.\n');
  await write(path.join(root, 'agents'), 'writer.md', '---\nname: writer\ndescription: Writes docs\n---\nYou write.\n');
  env = { SWARM_TEAM: TEAM, ...tmuxEnv(tmuxForThisTest(pids), [process.execPath, FAKE]) };
});

async function write(dir: string, file: string, text: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, file), text);
  return path.join(dir, file);
}

const members = async () => (await readTeam(new Team(root, TEAM))).members.map((m) => m.name);
const spawnArgs = (name: string, type: string) => ['spawn', name, '--prompt', 'hi', '--agent-type', type, '--cwd', project, '--backend', 'tmux', '--json'];
/** A spawn refused before anything starts. */
const refusedSpawn = (name: string, type: string) => swarmInProcess(root, spawnArgs(name, type), env);

describe('swarm agents', () => {
  it('--json: every type with its source, tools and model; a bad file is a problem, not a failure', async () => {
    const bad = await write(path.join(project, '.claude', 'agents'), 'broken.md', '---\nname: broken\ndescription: x\npermissionMode: yolo\n---\n');
    const r = await swarmInProcess(root, ['agents', '--cwd', project, '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { types: { name: string; source: string; tools: string[] | null; model: string; modelId: string | null }[]; problems: { file: string; message: string }[] };
    expect(out.types.map((t) => `${t.name}:${t.source}`)).toEqual(['general-purpose:built-in', 'Explore:built-in', 'Plan:built-in', 'verification:built-in', 'writer:user', 'reviewer:project']);
    expect(out.types.find((t) => t.name === 'reviewer')).toMatchObject({ tools: ['Read', 'Grep'], model: 'opus', modelId: 'claude-opus-5-5' });
    expect(out.types.find((t) => t.name === 'general-purpose')).toMatchObject({ tools: null, model: 'inherit', modelId: null });
    const problem = `${bad}: permissionMode: expected default|acceptEdits|bypassPermissions|plan, got "yolo"`;
    expect(out.problems).toEqual([{ file: bad, message: problem }]);
    expect(r.stderr).toBe(`swarm: bad agent file: ${problem}`);
  });

  it('human table: name, source, tools, model', async () => {
    const r = await swarmInProcess(root, ['agents', '--cwd', project]);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SOURCE\s+TOOLS\s+MODEL\s+DESCRIPTION$/);
    expect(lines.find((l) => l.startsWith('reviewer'))).toMatch(/^reviewer\s+project\s+Read, Grep\s+opus \(claude-opus-5-5\)\s+Reviews code$/);
    expect(lines.find((l) => l.startsWith('Explore'))).toMatch(/Read, Glob, Grep, Bash \(read-only\)\s+inherit/);
  });
});

describe('swarm spawn --agent-type', () => {
  it("a project type: its model (opus → a current Opus id) and permission mode reach config.json and the teammate's flags", async () => {
    const r = await swarm(root, spawnArgs('rev', 'reviewer'), env);
    expect(r.exitCode, r.stderr).toBe(0);
    pids.add((JSON.parse(r.stdout) as { pid: number }).pid);
    const member = (await readTeam(new Team(root, TEAM))).members.find((m) => m.name === 'rev');
    expect(member).toMatchObject({ agentType: 'reviewer', model: 'claude-opus-5-5', mode: 'plan' });
    const status = JSON.parse(await fs.readFile(teamPaths(root, TEAM).status('rev'), 'utf8')) as { argv: string[] };
    expect(status.argv.join(' ')).toContain('--agent-type reviewer --model claude-opus-5-5 --permission-mode plan');
  });

  it('an unknown type: one line listing the known ones, exit 2, no member', async () => {
    const r = await refusedSpawn('x', 'nope');
    expect(r.exitCode).toBe(2); // bad input
    expect(r.stderr).toMatch(/^swarm: unknown agent type "nope"; known: general-purpose, Explore, Plan, verification, writer, reviewer \(swarm agents lists them\)/);
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(await members()).toEqual(['team-lead']);
  });

  it('a broken file: one line naming the file and the field, exit 2, no member', async () => {
    const bad = await write(path.join(project, '.claude', 'agents'), 'reviewer.md', '---\nname: reviewer\ndescription: Reviews code\ntools: Read, Telepathy\n---\n');
    const r = await refusedSpawn('x', 'reviewer');
    expect(r.exitCode).toBe(2); // bad input
    expect(r.stderr).toMatch(new RegExp(`^swarm: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: tools: unknown tool "Telepathy"`));
    expect(r.stderr.split('\n')).toHaveLength(1);
    expect(await members()).toEqual(['team-lead']);
  });
});
