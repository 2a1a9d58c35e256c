// The iTerm2 backend against test/support/fake-it2 (support/fake-it2.ts links it as `it2` first on PATH):
// the argv sent to it2 is pinned from the fake's log, and the command string really runs (sh -c).
import path from 'node:path';
import { quote } from 'shell-quote';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENV_LOADER } from '../../../src/backends/env-file.js';
import { Iterm2Backend } from '../../../src/backends/iterm2/iterm2-backend.js';
import {
  IT2_HINT,
  PID_SCRIPT,
  buildRunCommand,
  detectIt2,
  isPythonIt2Help,
  parseCreatedPane,
  parseSessionList,
} from '../../../src/backends/iterm2/it2-commands.js';
import { execaExec, isProcessAlive } from '../../../src/backends/process.js';
import { isSwarmError } from '../../../src/protocol/errors.js';
import { FakeIt2, LEADER } from '../../support/fake-it2.js';
import { PROBE_ENV, ProbeKit, runBackendConformance } from '../conformance.js';
import { afterThisTest } from '../../support/tmp-root.js';

runBackendConformance('iterm2 (fake it2)', async () => {
  const fake = await FakeIt2.create();
  return {
    backend: new Iterm2Backend({ env: fake.env, leaderSessionId: LEADER, killTimeoutMs: 1500 }),
    cleanup: () => fake.dispose(),
  };
}, { exitStatus: 'never' });

describe('Iterm2Backend (fake it2)', () => {
  let fake: FakeIt2;
  let kit: ProbeKit;

  beforeEach(async () => {
    kit = await ProbeKit.create();
    afterThisTest(() => kit.dispose());
    fake = await FakeIt2.create();
    afterThisTest(() => fake.dispose());
  });

  const backend = (extra: { startTimeoutMs?: number } = {}): Iterm2Backend =>
    new Iterm2Backend({ env: fake.env, leaderSessionId: LEADER, killTimeoutMs: 1500, ...extra });

  it('pins the it2 argv: split -v the leader, name, run the quoted line; then stack on the last pane', async () => {
    const b = backend();
    const out1 = kit.outFile();
    const argv1 = kit.argv(out1, 'wait', 'a b', "it's;");
    const env = { [PROBE_ENV]: `x "y" $z;` };
    const p1 = await b.createPane({ team: 't', name: 'ann', color: 'red', argv: argv1, env, cwd: kit.dir });
    const info = await kit.read(out1);
    expect(info).toMatchObject({ argv: [out1, 'wait', 'a b', "it's;"], value: `x "y" $z;`, cwd: kit.dir, pid: p1.pid });

    const out2 = kit.outFile();
    const p2 = await b.createPane({ team: 't', name: 'bob', color: 'blue', argv: kit.argv(out2, 'wait'), env: {}, cwd: kit.dir });
    await kit.read(out2);

    const calls = await fake.calls();
    expect(calls[0]).toEqual(['session', 'split', '-v', '-s', LEADER]);
    expect(calls[1]).toEqual(['session', 'set-name', '-s', p1.paneId, 'ann']);
    expect(calls[2]!.slice(0, 4)).toEqual(['session', 'run', '-s', p1.paneId]);
    expect(calls[2]).toHaveLength(5);
    const line = calls[2]![4]!;
    const pidFile = /sh -c '[^']*' (\S+\.pid) /.exec(line)?.[1];
    expect(pidFile).toBeDefined();
    // The environment is loaded from a private file, so its values never appear in the typed line.
    const envFile = line.split(`${quote([ENV_LOADER])} `)[1]?.split(' ')[0];
    expect(envFile).toBeDefined();
    expect(line).toBe(`cd ${quote([kit.dir])} && ${quote(['env', 'sh', '-c', PID_SCRIPT, pidFile!, '/bin/sh', '-c', ENV_LOADER, envFile!, ...argv1])}`);
    expect(line).not.toContain(env[PROBE_ENV]);
    expect(calls[3]).toEqual(['session', 'split', '-s', p1.paneId]);
    expect(calls[4]).toEqual(['session', 'set-name', '-s', p2.paneId, 'bob']);

    await b.kill(p1);
    expect(await fake.calls()).toContainEqual(['session', 'close', '-f', '-s', p1.paneId]);
    expect(isProcessAlive(info.pid)).toBe(false);
  });

  it('capture reads well past the lines asked for with session read -n (blank rows are dropped)', async () => {
    const b = backend();
    const out = kit.outFile();
    const pane = await b.createPane({ team: 't', name: 'ann', color: 'red', argv: kit.argv(out, 'wait'), env: {}, cwd: kit.dir });
    await kit.read(out);
    const shown = await b.capture(pane, 5);
    expect(shown.lines.join('\n')).toContain('PROBE ');
    expect(shown.exit).toBeUndefined(); // it2 cannot tell
    expect(await fake.calls()).toContainEqual(['session', 'read', '-s', pane.paneId, '-n', '1000']);
  });

  it('isAlive is false once the session is closed from outside', async () => {
    const b = backend();
    const out = kit.outFile();
    const pane = await b.createPane({ team: 't', name: 'ann', color: 'red', argv: kit.argv(out, 'wait'), env: {}, cwd: kit.dir });
    await kit.read(out);
    expect(await b.isAlive(pane)).toBe(true);
    expect((await execaExec('it2', ['session', 'close', '-f', '-s', pane.paneId], { env: fake.env })).exitCode).toBe(0);
    expect(await b.isAlive(pane)).toBe(false);
  });

  it('a command that never starts fails createPane with a backend error and closes its pane', async () => {
    const b = backend({ startTimeoutMs: 800 });
    const missing = path.join(kit.dir, 'no such dir');
    const err = await b
      .createPane({ team: 't', name: 'ann', color: 'red', argv: kit.argv(kit.outFile(), 'wait'), env: {}, cwd: missing })
      .catch((e: unknown) => e);
    expect(isSwarmError(err, 'backend')).toBe(true);
    const calls = await fake.calls();
    const id = calls.find((c) => c[1] === 'run')?.[3];
    expect(id).toBeDefined();
    expect(calls).toContainEqual(['session', 'close', '-f', '-s', id!]);
  });
});

describe('detectIt2', () => {
  let fake: FakeIt2 | undefined;
  afterEach(async () => {
    await fake?.dispose();
    fake = undefined;
  });

  it('accepts the Python it2 when session list works', async () => {
    fake = await FakeIt2.create();
    expect(await detectIt2(fake.env)).toEqual({ usable: true });
  });

  it('refuses the other (Go) it2 with a clear reason', async () => {
    fake = await FakeIt2.create({ FAKE_IT2_MODE: 'go' });
    const d = await detectIt2(fake.env);
    expect(d).toMatchObject({ usable: false, reason: expect.stringContaining('different tool') });
    if (!d.usable) expect(d.hint).toContain('pipx install it2');
  });

  it('explains an iTerm2 whose Python API is off (exit 2)', async () => {
    fake = await FakeIt2.create({ FAKE_IT2_MODE: 'api-off' });
    const d = await detectIt2(fake.env);
    expect(d).toEqual({ usable: false, reason: expect.stringContaining('Python API'), hint: IT2_HINT });
  });

  it('says how to install it2 when it is not on PATH', async () => {
    const d = await detectIt2({ PATH: path.dirname(process.execPath) });
    expect(d).toEqual({ usable: false, reason: expect.stringContaining('not installed'), hint: IT2_HINT });
    expect(IT2_HINT).toContain('pipx install it2');
    expect(IT2_HINT).toContain('Python API');
  });
});

describe('it2 pure helpers', () => {
  it('parseCreatedPane reads the new id', () => {
    expect(parseCreatedPane('Created new pane: 1A2B-C3\n')).toBe('1A2B-C3');
    expect(() => parseCreatedPane('Error: nope')).toThrow(/unexpected it2 split output/);
  });

  it('parseSessionList reads ids from --json and rejects anything else', () => {
    expect(parseSessionList('[{"id":"A","name":"x","extra":1},{"id":"B"}]')).toEqual(['A', 'B']);
    expect(() => parseSessionList('iTerm2 Sessions table')).toThrow(/did not print JSON/);
    expect(() => parseSessionList('[{"name":"x"}]')).toThrow(/unexpected it2 session list JSON/);
  });

  it('isPythonIt2Help tells the Python CLI from the Go tool', () => {
    expect(isPythonIt2Help('Commands:\n  app      Control.\n  session  Manage iTerm2 sessions.\n')).toBe(true);
    expect(isPythonIt2Help('Available Commands:\n  split  Split\n  tab  Open a tab (session tools)')).toBe(false);
  });

  it('buildRunCommand quotes cwd, env and argv into one POSIX line', () => {
    expect(
      buildRunCommand({ cwd: '/w d', env: { A: 'x y', B: "it's" }, argv: ['node', 's.js', 'a;b', '$HOME', ''], pidFile: '/p/1.pid' }),
    ).toBe(`cd '/w d' && env 'A=x y' "B=it's" sh -c 'echo $$ >"$0" && exec "$@"' /p/1.pid node s.js a\\;b \\$HOME ''`);
    expect(() => buildRunCommand({ cwd: '/', env: { 'BAD NAME': 'x' }, argv: ['x'], pidFile: '/p' })).toThrow(/invalid environment/);
    expect(() => buildRunCommand({ cwd: '/', env: {}, argv: [], pidFile: '/p' })).toThrow(/empty argv/);
  });
});
