import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import { deleteLeadKey, ensureLeadKey, leadKeyPath, loadLeadKey } from '../../src/permissions/keys.js';
import { signEntry, verifyEntry } from '../../src/permissions/signing.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';
import { Team } from '../../src/team/team.js';

const KEYS_MODULE = pathToFileURL(
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/permissions/keys.ts'),
).href;
const TEAM_MODULE = pathToFileURL(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src/team/team.ts')).href;

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-keys-');

async function rejectsWith(p: Promise<unknown>, kind: string): Promise<void> {
  const e: unknown = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(isSwarmError(e), String(e)).toBe(true);
  expect((e as { kind: string }).kind).toBe(kind);
}

describe('lead key files', () => {
  it('lives at <root>/swarm/keys/<team>.key', () => {
    expect(leadKeyPath(new Team(root, 'demo'))).toBe(path.join(root, 'swarm', 'keys', 'demo.key'));
  });

  it.each(['', '../x', 'Demo', 'a/b', '-x', 'a'.repeat(65), 'x\0', '.'])('rejects team name %j', (team) => {
    expect(() => leadKeyPath(new Team(root, team))).toThrow(/team name/);
  });

  it('does not touch the disk for a bad team name', async () => {
    await rejectsWith((async () => ensureLeadKey(new Team(root, '../../etc')))(), 'invalid_name');
    await expect(fs.readdir(root)).resolves.toEqual([]);
  });

  it('creates a 0600 key in a 0700 dir, and reloads the same key', async () => {
    const created = await ensureLeadKey(new Team(root, 'demo'), 1234);
    expect(created.verifyKey).toMatch(/^1234\.[A-Za-z0-9_-]+$/);
    const file = leadKeyPath(new Team(root, 'demo'));
    expect((await fs.stat(file)).mode & 0o777).toBe(0o600);
    expect((await fs.stat(path.dirname(file))).mode & 0o777).toBe(0o700);
    expect((await fs.readdir(path.dirname(file))).sort()).toEqual(['demo.key']); // no temp left

    const onDisk = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    expect(onDisk.version).toBe(1);
    expect(onDisk.createdAt).toBe(1234);
    expect(String(onDisk.privateKeyPem)).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);

    const loaded = await loadLeadKey(new Team(root, 'demo'));
    expect(loaded.verifyKey).toBe(created.verifyKey);
    const again = await ensureLeadKey(new Team(root, 'demo'), 9999);
    expect(again.verifyKey).toBe(created.verifyKey);

    const signed = signEntry({ msg_id: 'm', from: 'team-lead', timestamp: 't', text: 'hi' }, loaded.privateKey);
    expect(verifyEntry(signed, created.verifyKey)).toBe(true);
  });

  it('keeps one key per team', async () => {
    const a = await ensureLeadKey(new Team(root, 'alpha'));
    const b = await ensureLeadKey(new Team(root, 'beta'));
    expect(a.verifyKey).not.toBe(b.verifyKey);
  });

  it('load reports not_found, delete is idempotent', async () => {
    await rejectsWith(loadLeadKey(new Team(root, 'demo')), 'not_found');
    await ensureLeadKey(new Team(root, 'demo'));
    await expect(deleteLeadKey(new Team(root, 'demo'))).resolves.toBe(true);
    await expect(deleteLeadKey(new Team(root, 'demo'))).resolves.toBe(false);
    await rejectsWith(loadLeadKey(new Team(root, 'demo')), 'not_found');
  });

  it('reports a corrupt key file and never replaces it', async () => {
    const file = leadKeyPath(new Team(root, 'demo'));
    await fs.mkdir(path.dirname(file), { recursive: true });
    for (const body of ['{nope', '{"version":1}', '{"version":1,"createdAt":1,"privateKeyPem":"x"}']) {
      await fs.writeFile(file, body);
      await rejectsWith(loadLeadKey(new Team(root, 'demo')), 'corrupt');
      await rejectsWith(ensureLeadKey(new Team(root, 'demo')), 'corrupt');
      expect(await fs.readFile(file, 'utf8')).toBe(body);
    }
  });

  it('gives every concurrent caller in one process the same key', async () => {
    const keys = await Promise.all(Array.from({ length: 16 }, () => ensureLeadKey(new Team(root, 'demo'))));
    expect(new Set(keys.map((k) => k.verifyKey)).size).toBe(1);
    expect((await loadLeadKey(new Team(root, 'demo'))).verifyKey).toBe(keys[0]!.verifyKey);
    expect(await fs.readdir(path.dirname(leadKeyPath(new Team(root, 'demo'))))).toEqual(['demo.key']);
  });

  it('gives two concurrent processes the same key', async () => {
    // Each child signals readiness, waits for a shared "go" file, then races to create the key.
    const script = `
      import { existsSync, writeFileSync } from 'node:fs';
      import { ensureLeadKey } from ${JSON.stringify(KEYS_MODULE)};
      import { Team } from ${JSON.stringify(TEAM_MODULE)};
      const [root, id] = process.argv.slice(-2);
      writeFileSync(root + '/ready-' + id, '');
      const deadline = Date.now() + 20000;
      while (!existsSync(root + '/go')) { if (Date.now() > deadline) process.exit(3); }
      const key = await ensureLeadKey(new Team(root, 'demo'));
      process.stdout.write(key.verifyKey);
    `;
    const run = (id: string) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', '--input-type=module', '-e', script, '--', root, id],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`child ${id} exited ${code}: ${err}`))));
      });
    const results = Promise.all([run('a'), run('b')]);
    const ready = async (): Promise<boolean> => (await fs.readdir(root)).filter((f) => f.startsWith('ready-')).length === 2;
    await Promise.race([waitFor(ready, 20_000, 'both processes ready'), results]);
    await fs.writeFile(path.join(root, 'go'), '');
    const [a, b] = await results;
    expect(a).toMatch(/^\d+\.[A-Za-z0-9_-]+$/);
    expect(b).toBe(a);
    expect((await loadLeadKey(new Team(root, 'demo'))).verifyKey).toBe(a);
  }, 30_000);
});

describe('lead key errors', () => {
  const fixOf = (file: string) => `delete ${file} to make a new key (running teammates must then be respawned)`;

  it('says what is wrong with a corrupt key file, how to fix it, and keeps the cause', async () => {
    const team = new Team(root, 'demo');
    const file = leadKeyPath(team);
    await fs.mkdir(path.dirname(file), { recursive: true });
    const cases: [string, string, boolean][] = [
      ['{nope', `lead key file ${file} is not JSON; ${fixOf(file)}`, true],
      ['{"version":1}', `lead key file ${file} has an unexpected shape; ${fixOf(file)}`, true],
      ['{"version":1,"createdAt":1,"privateKeyPem":"x"}', `lead key file ${file} holds no readable private key; ${fixOf(file)}`, true],
    ];
    const ecPem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    cases.push([JSON.stringify({ version: 1, createdAt: 1, privateKeyPem: ecPem }), `lead key file ${file} holds a ec key, expected Ed25519; ${fixOf(file)}`, false]);
    for (const [body, message, hasCause] of cases) {
      await fs.writeFile(file, body);
      const e = (await loadLeadKey(team).catch((err: unknown) => err)) as { kind: string; message: string; cause?: unknown };
      expect(e, body).toMatchObject({ kind: 'corrupt', message });
      expect(e.cause !== undefined, body).toBe(hasCause);
      expect(await fs.readFile(file, 'utf8')).toBe(body);
    }
  });

  it('tells a missing key from one that cannot be read, and says which team and file', async () => {
    const team = new Team(root, 'demo');
    const file = leadKeyPath(team);
    await expect(loadLeadKey(team)).rejects.toMatchObject({ kind: 'not_found', message: `no lead key for team demo (expected ${file})`, cause: { code: 'ENOENT' } });
    await fs.mkdir(file, { recursive: true }); // a directory where the key should be
    await expect(loadLeadKey(team)).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot read lead key \S+demo\.key: Error: EISDIR/), cause: { code: 'EISDIR' } });
    await expect(ensureLeadKey(team)).rejects.toMatchObject({ kind: 'io' });
    await expect(deleteLeadKey(team)).rejects.toMatchObject({ kind: 'io', message: expect.stringMatching(/^cannot delete lead key \S+demo\.key: /), cause: expect.anything() });
    expect((await fs.stat(file)).isDirectory()).toBe(true);
  });

  it('says why the keys directory cannot be made', async () => {
    await fs.mkdir(path.join(root, 'swarm'));
    await fs.symlink(path.join(root, 'nowhere'), path.join(root, 'swarm/keys')); // reads as missing, cannot be made
    await expect(ensureLeadKey(new Team(root, 'demo'))).rejects.toMatchObject({
      kind: 'io',
      message: expect.stringMatching(/^cannot create \S+swarm\/keys: /),
      cause: expect.anything(),
    });
  });

  it('makes an existing keys directory 0700 before the first key goes in', async () => {
    const dir = path.dirname(leadKeyPath(new Team(root, 'demo')));
    await fs.mkdir(dir, { recursive: true, mode: 0o755 });
    await fs.chmod(dir, 0o755);
    await ensureLeadKey(new Team(root, 'demo'));
    expect((await fs.stat(dir)).mode & 0o777).toBe(0o700);
  });

  it('loads an existing key, or reports a corrupt one, without writing anything in the keys directory', async () => {
    const team = new Team(root, 'demo');
    const first = await ensureLeadKey(team);
    const dir = path.dirname(leadKeyPath(team));
    const before = (await fs.stat(dir, { bigint: true })).mtimeNs;
    expect((await ensureLeadKey(team)).verifyKey).toBe(first.verifyKey);
    await fs.writeFile(leadKeyPath(team), '{nope');
    const stamp = (await fs.stat(dir, { bigint: true })).mtimeNs;
    expect(stamp).toBe(before); // an in-place rewrite does not touch the directory
    await rejectsWith(ensureLeadKey(team), 'corrupt');
    expect((await fs.stat(dir, { bigint: true })).mtimeNs).toBe(before); // no temp file was made and removed
  });
});

