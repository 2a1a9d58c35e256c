// Saving a team memory with Write and Edit (runtime/tools/memory.ts), in-process on real files: a
// plain <name>.md in the project's team memory directory runs without a question in every mode but
// plan (permission-gate.ts), the topic and then its index line; anything else there is refused before
// the gate — a symlink (in the directory, or pointing into it from outside), a `..`, a subdirectory,
// a name that is not *.md, a file with another hard link — and nothing is written.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PermissionMode } from '../../../src/protocol/config.js';
import { gate } from '../../../src/runtime/permission-gate.js';
import { findTool } from '../../../src/runtime/tools/index.js';
import { AgentConfigPaths } from '../../../src/runtime/tools/agent-config.js';
import { MemoryPaths } from '../../../src/runtime/tools/memory.js';
import { PathGuard } from '../../../src/runtime/tools/paths.js';
import { ProcessGroups } from '../../../src/runtime/tools/process-groups.js';
import { SecretPaths } from '../../../src/runtime/tools/secrets.js';
import type { Invocation, ToolContext } from '../../../src/runtime/tools/types.js';
import { TaskList } from '../../../src/tasks/index.js';
import { memoryDir } from '../../../src/team/paths.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
let cwd = '';
let dir = '';
let ctx: ToolContext;
useTempRoot((r) => (root = r), 'swarm-memtools-');
beforeEach(async () => {
  cwd = path.join(await fs.realpath(root), 'work');
  await fs.mkdir(cwd);
  dir = memoryDir(root, cwd);
  ctx = {
    cwd,
    guard: await PathGuard.create(root, cwd),
    secrets: await SecretPaths.create(root, path.join(root, 'home')),
    agentConfig: await AgentConfigPaths.create(root, { cwd, home: path.join(root, 'home') }),
    memory: new MemoryPaths(dir),
    teamRules: async () => ({ allow: [], deny: [] }),
    processes: new ProcessGroups(),
    shellEnv: {},
    messaging: { self: 'w1', send: async () => ['team-lead'], answerShutdown: async () => 'ok' },
    plan: { mode: 'default', submit: async () => ({ content: 'approved' }) },
    tasks: { self: 'w1', list: new TaskList(new Team(root, 't')), completed: () => undefined, member: async (name) => name },
  };
});

const MODES: PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions', 'plan'];

/** What the gate decides for an invocation in each mode, as tool-runner.ts asks it. */
function decisions(inv: Invocation): Record<PermissionMode, string> {
  const target = { path: inv.targetPath!, cwd, ...(inv.savesMemory === true ? { memory: true } : {}) };
  return Object.fromEntries(MODES.map((m) => [m, gate('edit', m, target, inv.secret ?? inv.configures).action])) as Record<PermissionMode, string>;
}

async function prepare(tool: 'Write' | 'Edit', input: Record<string, unknown>): Promise<Invocation> {
  return findTool(tool)!.prepare(input, ctx);
}

async function refusal(tool: 'Write' | 'Edit', input: Record<string, unknown>): Promise<string> {
  return prepare(tool, input).then(
    () => 'accepted',
    (e: Error) => e.message,
  );
}

describe('saving a memory: the topic file, then its line in MEMORY.md', () => {
  it('runs without a question in default, acceptEdits and bypassPermissions; refused in plan mode', async () => {
    const topic = await prepare('Write', { file_path: path.join(dir, 'build.md'), content: 'Build with npm run build.\n' });
    expect(topic.savesMemory).toBe(true);
    expect(decisions(topic)).toEqual({ default: 'run', acceptEdits: 'run', bypassPermissions: 'run', plan: 'refuse' });
    await topic.execute(new AbortController().signal); // creates the directory
    const index = await prepare('Edit', { file_path: path.join(dir, 'MEMORY.md'), old_string: '', new_string: '- [Build](build.md) — npm run build\n' });
    expect(decisions(index)).toEqual({ default: 'run', acceptEdits: 'run', bypassPermissions: 'run', plan: 'refuse' });
    await index.execute(new AbortController().signal);
    expect(await fs.readFile(path.join(dir, 'build.md'), 'utf8')).toBe('Build with npm run build.\n');
    const more = await prepare('Edit', { file_path: path.join(dir, 'MEMORY.md'), old_string: 'npm run build\n', new_string: 'npm run build\n- [Tests](tests.md) — vitest\n' });
    expect(decisions(more).default).toBe('run');
  });

  it('a path relative to the cwd is a memory by where it resolves; a memory file named like a credential still asks', async () => {
    const relative = await prepare('Write', { file_path: path.relative(cwd, path.join(dir, 'build.md')), content: 'x' });
    expect(decisions(relative)).toEqual({ default: 'run', acceptEdits: 'run', bypassPermissions: 'run', plan: 'refuse' });
    expect(await refusal('Write', { file_path: path.relative(cwd, path.join(dir, 'sub', 'x.md')), content: 'x' })).toMatch(/is in a subdirectory/);
    const secretLooking = await prepare('Edit', { file_path: path.join(dir, 'id_rsa_rotation.md'), old_string: '', new_string: 'x' });
    expect(decisions(secretLooking)).toEqual({ default: 'ask', acceptEdits: 'ask', bypassPermissions: 'ask', plan: 'refuse' });
  });

  it('an ordinary write outside the directory is not a memory: asked as before', async () => {
    const inv = await prepare('Write', { file_path: 'notes.md', content: 'x' });
    expect(inv.savesMemory).toBeUndefined();
    expect(decisions(inv)).toEqual({ default: 'ask', acceptEdits: 'run', bypassPermissions: 'run', plan: 'refuse' });
    const beside = await prepare('Write', { file_path: path.join(path.dirname(dir), 'private.md'), content: 'x' });
    expect(decisions(beside).default).toBe('ask');
  });
});

describe('anything else in the memory directory is refused before the gate, nothing written', () => {
  beforeEach(async () => {
    await fs.mkdir(dir, { recursive: true });
  });

  it('a symlink in it, to a file outside', async () => {
    const target = path.join(cwd, 'victim.txt');
    await fs.writeFile(target, 'original');
    await fs.symlink(target, path.join(dir, 'link.md'));
    expect(await refusal('Write', { file_path: path.join(dir, 'link.md'), content: 'x' })).toMatch(/link\.md is a symbolic link: a team memory is a plain <name>\.md file directly in /);
    expect(await refusal('Edit', { file_path: path.join(dir, 'link.md'), old_string: 'original', new_string: 'x' })).toMatch(/is a symbolic link/);
    expect(await fs.readFile(target, 'utf8')).toBe('original');
  });

  it('a symlink outside, pointing into it', async () => {
    await fs.writeFile(path.join(dir, 'build.md'), 'kept');
    await fs.symlink(path.join(dir, 'build.md'), path.join(cwd, 'shortcut.md'));
    expect(await refusal('Write', { file_path: 'shortcut.md', content: 'x' })).toMatch(/shortcut\.md is a symbolic link into the team memory directory .*: write the memory file by its own path there$/);
    expect(await fs.readFile(path.join(dir, 'build.md'), 'utf8')).toBe('kept');
  });

  it('a path that climbs out with ".." (into the private memory beside it, or anywhere)', async () => {
    expect(await refusal('Write', { file_path: `${dir}/../MEMORY.md`, content: 'x' })).toMatch(/climbs out with "\.\."/);
    expect(await refusal('Write', { file_path: `${dir}/sub/../../../../escape.md`, content: 'x' })).toMatch(/climbs out with "\.\."/);
    await expect(fs.stat(path.join(path.dirname(dir), 'MEMORY.md'))).rejects.toThrow();
  });

  it('a subdirectory, a name that is not *.md, the directory itself', async () => {
    expect(await refusal('Write', { file_path: path.join(dir, 'sub', 'x.md'), content: 'x' })).toMatch(/is in a subdirectory/);
    expect(await refusal('Write', { file_path: path.join(dir, 'run.sh'), content: 'x' })).toMatch(/is not a \.md file/);
    expect(await refusal('Edit', { file_path: path.join(dir, '.hidden.md'), old_string: '', new_string: 'x' })).toMatch(/is not a plain name/);
    expect(await refusal('Edit', { file_path: `${dir}/`, old_string: '', new_string: 'x' })).toMatch(/is empty/);
    expect(await fs.readdir(dir)).toEqual([]);
  });

  it('a file with another hard link', async () => {
    const elsewhere = path.join(cwd, 'elsewhere.txt');
    await fs.writeFile(elsewhere, 'original');
    await fs.link(elsewhere, path.join(dir, 'hard.md'));
    expect(await refusal('Write', { file_path: path.join(dir, 'hard.md'), content: 'x' })).toMatch(/hard\.md has 2 hard links: a team memory is a plain/);
    expect(await fs.readFile(elsewhere, 'utf8')).toBe('original');
  });

  it('reached through a symlinked directory above it (root/projects is a link): still a memory, by its real path', async () => {
    const realProjects = path.join(root, 'elsewhere-projects');
    await fs.rm(path.join(root, 'projects'), { recursive: true });
    await fs.mkdir(realProjects);
    await fs.symlink(realProjects, path.join(root, 'projects'));
    const inv = await prepare('Write', { file_path: path.join(dir, 'build.md'), content: 'x' });
    expect(decisions(inv).default).toBe('run');
    await inv.execute(new AbortController().signal);
    const realDir = path.join(realProjects, path.relative(path.join(root, 'projects'), dir));
    expect(await fs.readFile(path.join(realDir, 'build.md'), 'utf8')).toBe('x');
    const byRealPath = await prepare('Edit', { file_path: path.join(realDir, 'MEMORY.md'), old_string: '', new_string: '- [Build](build.md) — x\n' });
    expect(decisions(byRealPath).default).toBe('run');
    expect(await refusal('Write', { file_path: path.join(realDir, 'sub', 'x.md'), content: 'x' })).toMatch(/is in a subdirectory/);
  });
});
