// Loading agent types from real files (SPEC §10): built-ins, the user's <root>/agents, the
// project's <cwd>/.claude/agents (project wins, also over a built-in); bad files are problems, not
// failures; finding a type whose own file is bad, or an unknown one, is a one-line error.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findAgentType, loadAgentTypes } from '../../src/team/agent-types.js';
import { tempRoot } from '../support/tmp-root.js';

const agent = (name: string, extra = '') => `---\nname: ${name}\ndescription: ${name} agent\n${extra}---\nI am ${name}.\n`;

async function write(dir: string, file: string, text: string): Promise<string> {
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, file), text);
  return path.join(dir, file);
}

async function setup() {
  const root = await tempRoot('swarm-agents-');
  const cwd = path.join(root, 'project');
  const user = path.join(root, 'agents');
  const project = path.join(cwd, '.claude', 'agents');
  await write(user, 'reviewer.md', agent('reviewer', 'model: haiku\n'));
  await write(user, 'writer.md', agent('writer'));
  await write(project, 'reviewer.md', agent('reviewer', 'tools: Read\n'));
  await write(project, 'verification.md', agent('verification', 'tools: Read, Bash\n'));
  await write(project, 'notes.txt', 'not an agent');
  const bad = await write(project, 'broken.md', agent('broken', 'tools: Teleport\n'));
  return { root, cwd, bad };
}

describe('loadAgentTypes', () => {
  it('built-ins, then user, then project; project wins; bad files reported, others still load', async () => {
    const { root, cwd, bad } = await setup();
    const { types, problems } = loadAgentTypes({ cwd, root });
    expect(types.map((t) => `${t.name}:${t.source}`)).toEqual(['general-purpose:built-in', 'Explore:built-in', 'Plan:built-in', 'writer:user', 'reviewer:project', 'verification:project']);
    expect(types.find((t) => t.name === 'reviewer')).toMatchObject({ tools: ['Read'], prompt: 'I am reviewer.' });
    expect(problems).toEqual([{ file: bad, message: `${bad}: tools: unknown tool "Teleport" (expected names like Read, Grep, Glob, Bash, Edit, Write)` }]);
  });

  it('no agent directories: the built-ins only', async () => {
    const root = await tempRoot('swarm-agents-');
    expect(loadAgentTypes({ cwd: root, root }).types.map((t) => t.name)).toEqual(['general-purpose', 'Explore', 'Plan', 'verification']);
  });

  it("findAgentType: the type's own bad file, or an unknown type listing the known ones, as one line", async () => {
    const { root, cwd, bad } = await setup();
    const catalog = loadAgentTypes({ cwd, root });
    expect(findAgentType(catalog, 'writer').source).toBe('user');
    expect(() => findAgentType(catalog, 'broken')).toThrow(`${bad}: tools: unknown tool "Teleport"`);
    let message = '';
    try {
      findAgentType(catalog, 'nope');
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(/^unknown agent type "nope"; known: general-purpose, Explore, Plan, writer, reviewer, verification; a bad agent file may be the one meant: .*broken\.md: tools: .*\(swarm agents lists them\)$/);
    expect(message).not.toContain('\n');
  });
});
