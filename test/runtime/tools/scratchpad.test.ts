// The scratchpad's rules in-process, on a real temp root (runtime/tools/scratchpad.ts): the gate's
// row for it, a path that leaves it (`..`, a symlink in it pointing out, a link to the team's own
// files), a hard-linked file in it, the size limits (nothing created or changed by a refused
// write), secrets and agent configuration still asked, and a scratchpad that is itself a link.
import { promises as fs, existsSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { gate } from '../../../src/runtime/permission-gate.js';
import { findTool } from '../../../src/runtime/tools/index.js';
import { AgentConfigPaths } from '../../../src/runtime/tools/agent-config.js';
import { PathGuard } from '../../../src/runtime/tools/paths.js';
import { ProcessGroups } from '../../../src/runtime/tools/process-groups.js';
import { Scratchpad, SCRATCHPAD_MAX_BYTES, SCRATCHPAD_MAX_FILE_BYTES } from '../../../src/runtime/tools/scratchpad.js';
import { SecretPaths } from '../../../src/runtime/tools/secrets.js';
import type { Invocation, ToolContext, ToolOutput } from '../../../src/runtime/tools/types.js';
import { TaskList } from '../../../src/tasks/index.js';
import { createTeam } from '../../../src/team/team-store.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
let cwd: string;
let sp: string;
let team: Team;
let ctx: ToolContext;

useTempRoot(async (dir) => (root = await fs.realpath(dir)), 'swarm-scratch-');
beforeEach(async () => {
  cwd = path.join(root, 'work');
  await fs.mkdir(cwd);
  ({ team } = await createTeam(root, { name: 't', cwd }));
  sp = team.paths.scratchpad;
  ctx = await context(await Scratchpad.open(team));
});

async function context(scratchpad: Scratchpad): Promise<ToolContext> {
  const home = path.join(root, 'home');
  return {
    cwd,
    guard: await PathGuard.create(root, cwd, scratchpad),
    secrets: await SecretPaths.create(root, home),
    agentConfig: await AgentConfigPaths.create(root, { cwd, home }),
    teamRules: async () => ({ allow: [], deny: [] }),
    processes: new ProcessGroups('/bin/sh', 300),
    shellEnv: {},
    messaging: { self: 'w1', send: async () => ['team-lead'], answerShutdown: async () => 'ok' },
    plan: { mode: 'default', submit: async () => ({ content: 'approved' }) },
    tasks: { self: 'w1', list: new TaskList(team), completed: () => undefined, member: async (name) => name },
  };
}

async function prepare(name: string, input: unknown): Promise<Invocation> {
  return findTool(name)!.prepare(input, ctx);
}

/** Prepare and execute, as the tool runner does once the gate says run; an error is its message. */
async function call(name: string, input: unknown): Promise<ToolOutput> {
  try {
    return await (await prepare(name, input)).execute(new AbortController().signal);
  } catch (e) {
    return { content: (e as Error).message, isError: true };
  }
}

/** The gate's decision for an edit at `target`, as the tool runner asks it. */
const editGate = (mode: Parameters<typeof gate>[1], target: string, protectedBy?: string) => gate('edit', mode, { path: target, cwd, scratchpad: ctx.guard.scratchpad?.real }, protectedBy).action;

describe('the gate: edits in the scratchpad', () => {
  it('run in default, acceptEdits and bypassPermissions; plan refuses them; elsewhere nothing changes', async () => {
    const inside = path.join(sp, 'notes.md');
    expect(['default', 'acceptEdits', 'bypassPermissions', 'plan'].map((m) => editGate(m as 'default', inside))).toEqual(['run', 'run', 'run', 'refuse']);
    // Outside it (the root beside it, another team's scratchpad): as before.
    for (const outside of [path.join(root, 'notes.md'), path.join(root, 'scratchpad', 'other', 'notes.md')]) {
      expect(['default', 'acceptEdits', 'bypassPermissions', 'plan'].map((m) => editGate(m as 'default', outside))).toEqual(['ask', 'ask', 'run', 'refuse']);
    }
    // Bash is not an edit: it still asks in default mode.
    expect(gate('exec', 'default', { path: inside, cwd, scratchpad: sp }).action).toBe('ask');
    // A member without a scratchpad (the lead's read tools): no such row.
    expect(gate('edit', 'default', { path: inside, cwd }).action).toBe('ask');
  });

  it('secrets and agent configuration in it are still asked in every mode but plan', async () => {
    const secret = await prepare('Edit', { file_path: path.join(sp, '.env'), old_string: '', new_string: 'A=1' });
    expect(secret.secret).toBe('**/.env');
    const config = await prepare('Write', { file_path: path.join(sp, '.claude/settings.json'), content: '{}' });
    expect(config.configures).toBe('**/.claude/settings*.json');
    for (const inv of [secret, config]) {
      expect(['default', 'acceptEdits', 'bypassPermissions', 'plan'].map((m) => editGate(m as 'default', inv.targetPath!, inv.secret ?? inv.configures))).toEqual(['ask', 'ask', 'ask', 'refuse']);
    }
  });
});

describe('paths into the scratchpad', () => {
  it("refuses '..' (leaving it or not), names the absolute form to use, and writes nothing", async () => {
    for (const file_path of [`${sp}/../escape.txt`, `${sp}/sub/../notes.md`, `${sp}/../../work/escape.txt`]) {
      const r = await call('Write', { file_path, content: 'x' });
      expect(r).toEqual({ isError: true, content: `${file_path}: a path into the scratchpad may not use '..'; name the file by its absolute path, ${sp}/<file>` });
    }
    // Relative to the cwd, into it through '..': refused the same way; reads too.
    const rel = path.relative(cwd, path.join(sp, 'notes.md'));
    expect(rel.startsWith('..')).toBe(true);
    expect((await call('Read', { file_path: rel })).content).toContain("a path into the scratchpad may not use '..'");
    expect(existsSync(path.join(root, 'scratchpad', 'escape.txt'))).toBe(false);
    expect(existsSync(path.join(cwd, 'escape.txt'))).toBe(false);
    expect(await fs.readdir(sp)).toEqual([]);
    // The same file by its absolute path is fine.
    expect(await call('Write', { file_path: path.join(sp, 'notes.md'), content: 'x' })).toEqual({ content: `Created ${sp}/notes.md (1 lines, 1 chars)` });
  });

  it('refuses a symlink in it that points out (a file or a directory), for Write, Edit, Read, Glob and Grep', async () => {
    const target = path.join(cwd, 'project.txt');
    await fs.writeFile(target, 'project file\n');
    await fs.symlink(target, path.join(sp, 'out.txt'));
    await fs.symlink(cwd, path.join(sp, 'outdir'));
    const refused = (p: string, real: string) =>
      `${p} leads out of the scratchpad ${sp} through a symbolic link (to ${real}); use a file inside the scratchpad itself, or a path outside it, which asks as usual`;
    expect(await call('Write', { file_path: path.join(sp, 'out.txt'), content: 'overwritten' })).toEqual({ isError: true, content: refused(path.join(sp, 'out.txt'), target) });
    expect(await call('Edit', { file_path: path.join(sp, 'out.txt'), old_string: 'project', new_string: 'changed' })).toMatchObject({ isError: true, content: refused(path.join(sp, 'out.txt'), target) });
    expect(await call('Write', { file_path: path.join(sp, 'outdir/new.txt'), content: 'x' })).toEqual({ isError: true, content: refused(path.join(sp, 'outdir/new.txt'), path.join(cwd, 'new.txt')) });
    expect(await call('Read', { file_path: path.join(sp, 'out.txt') })).toMatchObject({ isError: true, content: refused(path.join(sp, 'out.txt'), target) });
    expect(await call('Glob', { pattern: '*', path: path.join(sp, 'outdir') })).toMatchObject({ isError: true, content: refused(path.join(sp, 'outdir'), cwd) });
    expect(await call('Grep', { pattern: 'project', path: path.join(sp, 'outdir') })).toMatchObject({ isError: true, content: refused(path.join(sp, 'outdir'), cwd) });
    expect(await fs.readFile(target, 'utf8')).toBe('project file\n');
    expect(existsSync(path.join(cwd, 'new.txt'))).toBe(false);
    // A link inside it to another file inside it is fine.
    await fs.writeFile(path.join(sp, 'a.md'), 'a\n');
    await fs.symlink(path.join(sp, 'a.md'), path.join(sp, 'b.md'));
    expect(await call('Write', { file_path: path.join(sp, 'b.md'), content: 'b\n' })).toMatchObject({ content: `Updated ${sp}/b.md (2 lines, 2 chars)` });
    expect(await fs.readFile(path.join(sp, 'a.md'), 'utf8')).toBe('b\n');
  });

  it("a link in it to the team's own files is refused as those are", async () => {
    await fs.symlink(team.paths.config, path.join(sp, 'config.json'));
    expect((await call('Read', { file_path: path.join(sp, 'config.json') })).content).toMatch(/is inside the team's own files .*; teammates may not touch them/);
  });

  it('refuses a file in it with another hard link (Read and Write alike), saying what to do', async () => {
    const original = path.join(cwd, 'src.ts');
    await fs.writeFile(original, 'export {};\n');
    await fs.link(original, path.join(sp, 'copy.ts'));
    const refused = `${sp}/copy.ts has 2 hard links, and a scratchpad file may have only one name (another could be anywhere); Write a new file instead`;
    expect(await call('Write', { file_path: path.join(sp, 'copy.ts'), content: 'changed' })).toEqual({ isError: true, content: refused });
    expect(await call('Read', { file_path: path.join(sp, 'copy.ts') })).toEqual({ isError: true, content: refused });
    expect(await fs.readFile(original, 'utf8')).toBe('export {};\n');
  });
});

describe('the size limits', () => {
  it(`one file at most ${SCRATCHPAD_MAX_FILE_BYTES} bytes: a bigger Write is refused and creates nothing, an Edit that grows past it changes nothing`, async () => {
    const big = path.join(sp, 'big.txt');
    expect(await call('Write', { file_path: big, content: 'x'.repeat(SCRATCHPAD_MAX_FILE_BYTES + 1) })).toEqual({
      isError: true,
      content: `${big} not written: it would be ${SCRATCHPAD_MAX_FILE_BYTES + 1} bytes, over the scratchpad's limit of 1 MiB (${SCRATCHPAD_MAX_FILE_BYTES} bytes) a file; write a summary instead, or split it into smaller files`,
    });
    expect(existsSync(big)).toBe(false);
    expect(await call('Write', { file_path: big, content: `END${'x'.repeat(SCRATCHPAD_MAX_FILE_BYTES - 3)}` })).toMatchObject({ content: expect.stringMatching(/^Created /) });
    const r = await call('Edit', { file_path: big, old_string: 'END', new_string: 'THE END' });
    expect(r).toMatchObject({ isError: true, content: expect.stringContaining(`it would be ${SCRATCHPAD_MAX_FILE_BYTES + 4} bytes, over the scratchpad's limit of 1 MiB`) });
    expect((await fs.stat(big)).size).toBe(SCRATCHPAD_MAX_FILE_BYTES);
  });

  it(`the whole scratchpad at most ${SCRATCHPAD_MAX_BYTES} bytes (files in subdirectories counted, a rewrite counted once)`, async () => {
    await fs.mkdir(path.join(sp, 'logs'));
    await fs.writeFile(path.join(sp, 'logs/full.bin'), '');
    await fs.truncate(path.join(sp, 'logs/full.bin'), SCRATCHPAD_MAX_BYTES - 10); // sparse: no disk used
    await fs.writeFile(path.join(sp, 'five.txt'), '12345');
    const file = path.join(sp, 'more.txt');
    expect(await call('Write', { file_path: file, content: '123456' })).toEqual({
      isError: true,
      content: `${file} not written: the scratchpad ${sp} would hold ${SCRATCHPAD_MAX_BYTES + 1} bytes, over its limit of 50 MiB (${SCRATCHPAD_MAX_BYTES} bytes) in all; overwrite files nobody needs any more with a short summary, or ask team-lead to clear it`,
    });
    expect(existsSync(file)).toBe(false);
    expect(await call('Write', { file_path: file, content: '12345' })).toMatchObject({ content: expect.stringMatching(/^Created /) });
    // Rewriting a file counts its new size, not both.
    expect(await call('Write', { file_path: path.join(sp, 'five.txt'), content: 'abcde' })).toMatchObject({ content: expect.stringMatching(/^Updated /) });
    expect(await call('Edit', { file_path: path.join(sp, 'five.txt'), old_string: 'abcde', new_string: 'abcdef' })).toMatchObject({ isError: true, content: expect.stringContaining('over its limit of 50 MiB') });
    expect(await fs.readFile(path.join(sp, 'five.txt'), 'utf8')).toBe('abcde');
    // Outside the scratchpad no limit applies.
    expect(await call('Write', { file_path: path.join(cwd, 'big.txt'), content: 'x'.repeat(SCRATCHPAD_MAX_FILE_BYTES + 1) })).toMatchObject({ content: expect.stringMatching(/^Created /) });
  });
});

describe('the scratchpad directory', () => {
  it('is made 0700 with the team; a link in its place is refused at start, and one put there later leads nowhere', async () => {
    expect((await fs.stat(sp)).mode & 0o777).toBe(0o700);
    expect((await fs.stat(path.dirname(sp))).mode & 0o777).toBe(0o700);
    await fs.rm(sp, { recursive: true });
    await fs.symlink(cwd, sp);
    await expect(Scratchpad.open(team)).rejects.toThrow(`${sp} is a symlink; swarm does not use files through links: replace it with a real directory (mv the files it points to into one)`);
    // Replaced after the teammate started: its paths lead out of the real scratchpad, refused.
    expect(await call('Write', { file_path: path.join(sp, 'x.txt'), content: 'x' })).toMatchObject({ isError: true, content: expect.stringContaining('leads out of the scratchpad') });
    expect(existsSync(path.join(cwd, 'x.txt'))).toBe(false);
  });

  it('is made again when missing (a team from before scratchpads, or one removed by hand)', async () => {
    await fs.rm(path.dirname(sp), { recursive: true });
    const again = await Scratchpad.open(team);
    expect(again.dir).toBe(sp);
    expect((await fs.stat(sp)).isDirectory()).toBe(true);
  });
});
