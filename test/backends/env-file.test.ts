// The pane's environment travels in a private file, never on a command line: values with odd
// characters arrive intact, and the file and its directory are gone once the teammate runs; a dir
// whose pane never ran is removed by a later spawn once it is ten minutes old.
import { execa } from 'execa';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chown, lutimes, mkdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argvWithEnvFile, ENV_DIR_PREFIX, envFileText } from '../../src/backends/env-file.js';
import { removeStalePaneDirs, STALE_PANE_DIR_MS } from '../../src/backends/stale-pane-dirs.js';
import { argvWithStderrLog, FIFO_DIR_PREFIX } from '../../src/backends/stderr-log.js';
import { afterThisTest, tempRoot } from '../support/tmp-root.js';

const ODD = `it's "quoted" $HOME \`x\` ; && | \\ \n newline`;

describe('env file', () => {
  it('renders export lines and refuses bad names', () => {
    expect(envFileText({ A: 'b' })).toBe("export A=b\n");
    expect(() => envFileText({ 'A-B': 'x' })).toThrow(/invalid environment variable name/);
  });

  it('loads odd values, keeps secrets out of argv, and removes the file and its directory', async () => {
    const argv = await argvWithEnvFile({ ANTHROPIC_API_KEY: 'sk-secret', SWARM_ODD: ODD }, [
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify([process.env.ANTHROPIC_API_KEY, process.env.SWARM_ODD]))',
    ]);
    expect(argv.join(' ')).not.toContain('sk-secret');
    const file = argv[3]!;
    expect(existsSync(file)).toBe(true);
    const r = await execa(argv[0]!, argv.slice(1));
    expect(JSON.parse(r.stdout)).toEqual(['sk-secret', ODD]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('an empty environment runs the argv unchanged', async () => {
    expect(await argvWithEnvFile({}, ['a', 'b'])).toEqual(['a', 'b']);
  });
});

describe("a pane's private dirs that its pane never removed", () => {
  const make = async (dir: string, name: string, ageMs: number): Promise<string> => {
    const full = path.join(dir, name);
    await mkdir(full);
    await writeFile(path.join(full, 'env'), 'export ANTHROPIC_API_KEY=sk-secret\n', { mode: 0o600 });
    const at = new Date(Date.now() - ageMs);
    await utimes(full, at, at);
    return full;
  };

  it("are removed once older than ten minutes: only that kind, only real dirs, only this user's, only stale ones", async () => {
    const dir = await tempRoot('swarm-stale-');
    const stale = await make(dir, 'swarm-env-AbC123', STALE_PANE_DIR_MS + 60_000);
    const fresh = await make(dir, 'swarm-env-DeF456', STALE_PANE_DIR_MS - 60_000);
    const otherKind = await make(dir, 'swarm-err-GhI789', STALE_PANE_DIR_MS + 60_000);
    const notMkdtemp = await make(dir, 'swarm-env-mine', STALE_PANE_DIR_MS + 60_000);
    const target = await make(dir, 'kept', STALE_PANE_DIR_MS + 60_000);
    const link = path.join(dir, 'swarm-env-LnK000');
    await symlink(target, link);
    const old = new Date(Date.now() - STALE_PANE_DIR_MS - 60_000);
    await lutimes(link, old, old);
    // Another user's (as root, the only one who can make it here): never ours to remove.
    const theirs = process.getuid?.() === 0 ? await make(dir, 'swarm-env-Oth999', STALE_PANE_DIR_MS + 60_000) : undefined;
    if (theirs !== undefined) {
      await chown(theirs, 65534, 65534);
      await utimes(theirs, old, old);
    }
    expect(await removeStalePaneDirs(dir, ENV_DIR_PREFIX)).toEqual([stale]);
    expect([stale, fresh, otherKind, notMkdtemp, target, link].map((d) => existsSync(d))).toEqual([false, true, true, true, true, true]);
    if (theirs !== undefined) expect(existsSync(theirs)).toBe(true);
    expect(await removeStalePaneDirs(dir, FIFO_DIR_PREFIX)).toEqual([otherKind]);
  });

  it('the next env file and the next stderr fifo made in TMPDIR remove them first', async () => {
    const suffix = randomBytes(3).toString('hex');
    const envDir = await make(os.tmpdir(), `${ENV_DIR_PREFIX}${suffix}`, STALE_PANE_DIR_MS + 60_000);
    const errDir = await make(os.tmpdir(), `${FIFO_DIR_PREFIX}${suffix}`, STALE_PANE_DIR_MS + 60_000);
    afterThisTest(() => Promise.all([envDir, errDir].map((d) => rm(d, { recursive: true, force: true }))).then(() => undefined));
    const made = [await argvWithEnvFile({ A: 'b' }, ['true']), await argvWithStderrLog('/dev/null', ['true'])];
    afterThisTest(() => Promise.all([path.dirname(made[0]![3]!), made[1]![3]!].map((d) => rm(d, { recursive: true, force: true }))).then(() => undefined));
    expect([existsSync(envDir), existsSync(errDir)]).toEqual([false, false]);
  });
});
