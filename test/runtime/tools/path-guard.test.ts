// The path guard's pieces called directly (tools.test.ts drives them through the tools): how
// realpathLoose follows links and where it stops, what PathGuard refuses and says, how the
// hard-link check walks teams/ and swarm/ (a root reached through a symlink, a missing teams/),
// and what the checked open/write/read refuse, with the error each gives and no descriptor left open.
import { execFileSync } from 'node:child_process';
import { promises as fs, readdirSync } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isTeamFileByAnotherName, readChecked, updateChecked, writeChecked } from '../../../src/runtime/tools/checked-file.js';
import { PathGuard, realpathLoose } from '../../../src/runtime/tools/paths.js';
import { protectedSummary } from '../../../src/runtime/tools/secrets.js';
import { useTempRoot } from '../../support/tmp-root.js';

let base: string;
let root: string;
let cwd: string;
let guard: PathGuard;

useTempRoot(async (dir) => (base = await fs.realpath(dir)), 'swarm-guard-');
beforeEach(async () => {
  root = path.join(base, 'claude');
  cwd = path.join(base, 'work');
  await fs.mkdir(path.join(root, 'teams/t/inboxes'), { recursive: true });
  await fs.mkdir(path.join(root, 'swarm/keys'), { recursive: true });
  await fs.mkdir(cwd);
  guard = await PathGuard.create(root, cwd);
});

const openFds = (): number => readdirSync('/proc/self/fd').length;

describe('realpathLoose', () => {
  it('follows a dangling link to where it would write, up to 40 levels and no further', async () => {
    await fs.symlink(path.join(base, 'elsewhere/new.txt'), path.join(cwd, 'link'));
    expect(await realpathLoose(path.join(cwd, 'link'))).toBe(path.join(base, 'elsewhere/new.txt'));
    // Depth counts followed links: one more past the limit is refused, with a one-line reason.
    expect(await realpathLoose(path.join(cwd, 'missing'), 40)).toBe(path.join(cwd, 'missing'));
    await expect(realpathLoose(path.join(cwd, 'missing'), 41)).rejects.toMatchObject({
      kind: 'invalid_input',
      message: `too many levels of symbolic links at ${path.join(cwd, 'missing')}`,
    });
    await expect(realpathLoose(path.join(cwd, 'link'), 40)).rejects.toMatchObject({ kind: 'invalid_input' });
  });

  it('passes on an error other than a missing path (a link loop) instead of guessing a path', async () => {
    await fs.symlink(path.join(cwd, 'b'), path.join(cwd, 'a'));
    await fs.symlink(path.join(cwd, 'a'), path.join(cwd, 'b'));
    await expect(realpathLoose(path.join(cwd, 'a'))).rejects.toMatchObject({ code: 'ELOOP' });
    // Under a regular file (ENOTDIR) is a path that cannot exist yet: kept as written.
    await fs.writeFile(path.join(cwd, 'file'), 'x');
    expect(await realpathLoose(path.join(cwd, 'file/below'))).toBe(path.join(cwd, 'file/below'));
  });
});

describe('PathGuard.resolve', () => {
  it('refuses a NUL in the path, naming the field', async () => {
    await expect(guard.resolve('a\0b')).rejects.toMatchObject({ kind: 'invalid_input', message: 'file_path: contains a NUL character' });
    await expect(guard.resolve('a\0b', 'path')).rejects.toMatchObject({ kind: 'invalid_input', message: 'path: contains a NUL character' });
  });

  it("refuses the team's own files, naming the protected directories", async () => {
    const teams = path.join(root, 'teams');
    const swarm = path.join(root, 'swarm');
    await expect(guard.resolve(path.join(teams, 't/config.json'))).rejects.toMatchObject({
      kind: 'invalid_input',
      message: `${teams}/t/config.json is inside the team's own files (${teams}, ${swarm}); teammates may not touch them. Use SendMessage to talk to the team.`,
    });
    expect(await guard.resolve('notes.txt')).toEqual({ abs: path.join(cwd, 'notes.txt'), real: path.join(cwd, 'notes.txt') });
  });
});

describe('PathGuard.isProtectedFile', () => {
  it('finds a file nested under teams/ and under swarm/ by device and inode, and nothing else', async () => {
    const inbox = path.join(root, 'teams/t/inboxes/w1.json');
    await fs.writeFile(inbox, '[]');
    await fs.writeFile(path.join(root, 'swarm/keys/t.key'), 'KEY');
    await fs.writeFile(path.join(cwd, 'plain.txt'), 'x');
    expect(await guard.isProtectedFile(await fs.stat(inbox))).toBe(true);
    expect(await guard.isProtectedFile(await fs.stat(path.join(root, 'swarm/keys/t.key')))).toBe(true);
    expect(await guard.isProtectedFile(await fs.stat(path.join(cwd, 'plain.txt')))).toBe(false);
    // Same inode on another device, same device with another inode: neither is a team file.
    const st = await fs.stat(inbox);
    expect(await guard.isProtectedFile({ dev: st.dev + 1, ino: st.ino })).toBe(false);
    expect(await guard.isProtectedFile({ dev: st.dev, ino: st.ino + 100_000 })).toBe(false);
  });

  it('works for a root reached through a symlink (each directory walked once) and a root with no teams/ yet', async () => {
    await fs.symlink(root, path.join(base, 'via-link'));
    const linked = await PathGuard.create(path.join(base, 'via-link'), cwd);
    await fs.writeFile(path.join(root, 'teams/t/config.json'), '{}');
    await fs.writeFile(path.join(cwd, 'a.txt'), 'x');
    await fs.link(path.join(cwd, 'a.txt'), path.join(cwd, 'b.txt'));
    expect(await linked.isProtectedFile(await fs.stat(path.join(cwd, 'a.txt')))).toBe(false);
    expect(await linked.isProtectedFile(await fs.stat(path.join(root, 'teams/t/config.json')))).toBe(true);

    const fresh = await PathGuard.create(path.join(base, 'new-root'), cwd);
    expect(await fresh.isProtectedFile(await fs.stat(path.join(cwd, 'a.txt')))).toBe(false);
  });
});

describe('checked files', () => {
  it("refuses a hard link to a team file with its own error, and reads a hard-linked file that is not one", async () => {
    const config = path.join(root, 'teams/t/config.json');
    await fs.writeFile(config, '{}');
    await fs.link(config, path.join(cwd, 'cfg.json'));
    await fs.writeFile(path.join(cwd, 'a.txt'), 'mine');
    await fs.link(path.join(cwd, 'a.txt'), path.join(cwd, 'b.txt'));
    const shown = path.join(cwd, 'cfg.json');
    const byAnotherName = { kind: 'invalid_input', message: expect.stringMatching(/^\S+cfg\.json is one of the team's own files under another name/) };
    await expect(readChecked(guard, shown)).rejects.toMatchObject(byAnotherName);
    await expect(writeChecked(guard, shown, shown, 'x')).rejects.toMatchObject(byAnotherName);
    expect((await readChecked(guard, path.join(cwd, 'b.txt'))).toString()).toBe('mine');
    expect(await isTeamFileByAnotherName(guard, await fs.stat(shown))).toBe(true);
    expect(await isTeamFileByAnotherName(guard, await fs.stat(path.join(cwd, 'b.txt')))).toBe(false);
    await expect(writeChecked(guard, path.join(cwd, 'b.txt'), 'b.txt', 'x')).rejects.toMatchObject({
      kind: 'invalid_input',
      message: expect.stringMatching(/^b\.txt has 2 hard links/),
    });
  });

  it('refuses a final symlink that appeared after the check, and says why another open failed', async () => {
    await fs.symlink(path.join(base, 'target.txt'), path.join(cwd, 'swapped'));
    await expect(writeChecked(guard, path.join(cwd, 'swapped'), 'swapped', 'x')).rejects.toMatchObject({
      kind: 'invalid_input',
      message: 'swapped became a symbolic link after it was checked; not written',
      cause: { code: 'ELOOP' },
    });
    await expect(fs.stat(path.join(base, 'target.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await fs.mkdir(path.join(cwd, 'dir'));
    await expect(writeChecked(guard, path.join(cwd, 'dir'), 'dir', 'x')).rejects.toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/^cannot open dir: EISDIR/),
      cause: { code: 'EISDIR' },
    });
  });

  it('refuses what is not a regular file (a FIFO opened for update)', async () => {
    execFileSync('mkfifo', [path.join(cwd, 'pipe')]);
    await expect(updateChecked(guard, path.join(cwd, 'pipe'), 'pipe', (now) => ({ text: now }))).rejects.toMatchObject({
      kind: 'invalid_input',
      message: 'pipe is not a regular file; not written',
    });
  });

  it('writes, updates and reads through one descriptor each and closes it, also when the edit throws', async () => {
    const file = path.join(cwd, 'deep/new.txt');
    const before = openFds();
    await writeChecked(guard, file, 'deep/new.txt', 'héllo\n');
    expect(openFds()).toBe(before);
    expect(await updateChecked(guard, file, 'deep/new.txt', (now) => ({ text: now.toUpperCase(), was: now }))).toEqual({ text: 'HÉLLO\n', was: 'héllo\n' });
    expect(openFds()).toBe(before);
    await expect(
      updateChecked(guard, file, 'deep/new.txt', () => {
        throw new Error('old_string was not found');
      }),
    ).rejects.toThrow('old_string was not found');
    expect(openFds()).toBe(before);
    expect((await readChecked(guard, file)).toString()).toBe('HÉLLO\n');
    expect(openFds()).toBe(before);
    await fs.mkdir(path.join(cwd, 'd'));
    await expect(writeChecked(guard, path.join(cwd, 'd'), 'd', 'x')).rejects.toMatchObject({ kind: 'io' });
    expect(openFds()).toBe(before);
  });
});

describe('protectedSummary', () => {
  it('shows the path alone when nothing protects it', () => {
    expect(protectedSummary('notes.txt', undefined)).toBe('notes.txt');
    expect(protectedSummary('.env', '**/.env')).toBe('.env (protected: **/.env)');
  });
});
