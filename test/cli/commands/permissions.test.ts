// `swarm permissions [list] | rules | allow | deny | remove | clear` and `swarm approve|deny <id>`
// (SPEC §6): human output (worker, tool, readable input, age, orphaned), --json shapes, rule
// editing with validation, one-line errors with exit codes, --help with examples. In-process
// (main(argv, io)), but for one approve end to end through the real executable.
import { promises as fs } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readAudit } from '../../../src/permissions/audit.js';
import { writePending } from '../../../src/permissions/pending.js';
import type { PendingRequest } from '../../../src/protocol/permission.js';
import { readTeam, updateMember } from '../../../src/team/index.js';
import { swarm, swarmInProcess } from '../../support/cli.js';
import { deadPid } from '../../support/team-fixture.js';
import { listTree } from '../../support/fs-tree.js';
import { setupTeam, TEAM, type Harness } from '../../support/perm-harness.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { Team } from '../../../src/team/team.js';

let h: Harness;
useTempRoot(async (root) => {
  h = await setupTeam(root);
});

const run = (args: string[]) => swarmInProcess(h.root, [...args, '--team', TEAM]);

function record(id: string, extra: Partial<PendingRequest>): PendingRequest {
  return {
    id,
    workerId: `w1@${TEAM}`,
    workerName: 'w1',
    workerColor: 'blue',
    teamName: TEAM,
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    description: '',
    input: { command: 'npm test' },
    permissionSuggestions: [],
    status: 'pending',
    createdAt: Date.now(),
    workerPid: process.pid,
    cwd: '/work/project',
    ...extra,
  };
}

describe('swarm permissions [list]', () => {
  it('says so when nothing is pending', async () => {
    const r = await run(['permissions']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toBe('no pending permission requests');
  });

  it('shows worker, tool, the command or a short diff, age and orphaned, oldest first', async () => {
    const now = Date.now();
    await writePending(h.paths, record('perm-1-bash', { createdAt: now - 12_200 }));
    const edit = { file_path: 'src/app.ts', old_string: 'const a = 1;\nconst b = 2;', new_string: 'const a = 10;' };
    await writePending(h.paths, record('perm-1-edit', { createdAt: now - 200_000, workerName: 'w2', workerId: `w2@${TEAM}`, toolName: 'Edit', input: edit }));
    await writePending(h.paths, record('perm-1-ghost', { createdAt: now - 1_000, workerName: 'ghost', workerId: `ghost@${TEAM}` }));
    const r = await run(['permissions', 'list']);
    expect(r.exitCode, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    // Ages tolerate a slow machine: the CLI reads the clock a few seconds after the test wrote the files.
    expect(lines[0]).toMatch(/^perm-1-edit {2}w2 {2}Edit {2}3m$/);
    expect(lines.slice(1, 5)).toEqual(['    src/app.ts', '    -const a = 1;', '    -const b = 2;', '    +const a = 10;']);
    expect(lines[5]).toMatch(/^perm-1-bash {2}w1 {2}Bash {2}1\ds$/);
    expect(lines[6]).toBe('    $ npm test');
    expect(lines[7]).toMatch(/^perm-1-ghost {2}ghost {2}Bash {2}\ds {2}orphaned$/);
    expect(lines.at(-1)).toContain("swarm permissions clear <id>");
  });

  it('colours the worker name with its colour when colour is on', async () => {
    await writePending(h.paths, record('perm-2-col', {}));
    const r = await swarmInProcess(h.root, ['permissions', '--team', TEAM], { NO_COLOR: '', FORCE_COLOR: '1' });
    expect(r.stdout).toContain('\u001b[34mw1\u001b[39m'); // blue
  });

  it('--json is the array of pending records plus ageMs and orphaned', async () => {
    await writePending(h.paths, record('perm-3-json', { createdAt: Date.now() - 5_000 }));
    const r = await run(['permissions', '--json']);
    expect(r.exitCode, r.stderr).toBe(0);
    const [p, ...rest] = JSON.parse(r.stdout) as Record<string, unknown>[];
    expect(rest).toEqual([]);
    expect(Object.keys(p!).sort()).toEqual(
      ['ageMs', 'createdAt', 'cwd', 'description', 'id', 'input', 'orphaned', 'permissionSuggestions', 'status', 'teamName', 'toolName', 'toolUseId', 'workerColor', 'workerId', 'workerName', 'workerPid'].sort(),
    );
    expect(p).toMatchObject({ id: 'perm-3-json', orphaned: false, status: 'pending' });
    expect(p!.ageMs).toBeGreaterThanOrEqual(5_000);
  });
});

describe('swarm permissions rules / allow / deny / remove', () => {
  it('adds normalised rules, lists them, removes them', async () => {
    expect((await run(['permissions', 'allow', '  Bash(npm test:*) '])).stdout).toBe('added allow rule Bash(npm test:*)');
    expect((await run(['permissions', 'allow', 'Edit(./src//)'])).stdout).toBe('added allow rule Edit(src/**)');
    expect((await run(['permissions', 'deny', 'Bash(rm:*)'])).exitCode).toBe(0);
    expect((await run(['permissions', 'allow', 'Bash(npm test:*)'])).stdout).toBe('allow rule Bash(npm test:*) is already there');
    const json = await run(['permissions', 'rules', '--json']);
    expect(json.exitCode, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ allow: ['Bash(npm test:*)', 'Edit(src/**)'], deny: ['Bash(rm:*)'] });
    const human = await run(['permissions', 'rules']);
    expect(human.exitCode, human.stderr).toBe(0);
    expect(human.stdout.split('\n'), human.stderr).toEqual(['deny   Bash(rm:*)', 'allow  Bash(npm test:*)', 'allow  Edit(src/**)']);
    const removed = await run(['permissions', 'remove', 'Edit(src/)']);
    expect(removed.stdout).toBe('removed Edit(src/) from allow');
    expect((await readTeam(new Team(h.root, TEAM))).swarm?.rules).toEqual({ allow: ['Bash(npm test:*)'], deny: ['Bash(rm:*)'] });
    const audited = (await readAudit(h.paths)).filter((e) => e.event === 'rule');
    expect(audited.map((e) => [e.status, e.list, e.id, e.by])).toEqual([
      ['added', 'allow', 'Bash(npm test:*)', 'team-lead'],
      ['added', 'allow', 'Edit(src/**)', 'team-lead'],
      ['added', 'deny', 'Bash(rm:*)', 'team-lead'],
      ['removed', 'allow', 'Edit(src/**)', 'team-lead'],
    ]);
  });

  it('a bad rule is a one-line error (exit 2) and config.json is untouched; removing an absent rule exits 1', async () => {
    const before = await fs.readFile(h.paths.config, 'utf8');
    const bad = await run(['permissions', 'allow', 'Bash(rm *)']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr.split('\n')).toEqual(['swarm: bad permission rule "Bash(rm *)": Bash patterns take `*` only as a trailing `:*` prefix marker, e.g. Bash(npm run:*)']);
    expect(await fs.readFile(h.paths.config, 'utf8')).toBe(before);
    // A tool name that cannot match anything is refused too, with the rule as probably meant
    // (the cases are in test/permissions/rules.test.ts; here, the command's exit and output).
    const mistyped = await run(['permissions', 'deny', 'bash(rm:*)']);
    expect([mistyped.exitCode, mistyped.stderr.split('\n')]).toEqual([2, ['swarm: bad permission rule "bash(rm:*)": unknown tool "bash" (tool names are case-sensitive); did you mean "Bash(rm:*)"?']]);
    const unknown = await run(['permissions', 'allow', 'Frobnicate']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/^swarm: bad permission rule "Frobnicate": unknown tool "Frobnicate"; use one of Read, Write, .*, or mcp__<server>\[__<tool>\]$/);
    expect(await fs.readFile(h.paths.config, 'utf8')).toBe(before);
    expect((await run(['permissions', 'allow', 'mcp__github__create_issue'])).exitCode).toBe(0);
    const absent = await run(['permissions', 'remove', 'Bash(ls:*)']);
    expect(absent.exitCode).toBe(1);
    expect(absent.stderr).toBe(`swarm: no rule "Bash(ls:*)"; see 'swarm permissions rules'`);
  }, 60_000);
});

describe('swarm permissions clear', () => {
  it('clears an orphaned request; refuses a live worker', async () => {
    await writePending(h.paths, record('perm-4-live', {}));
    await writePending(h.paths, record('perm-4-dead', { workerName: 'ghost', workerId: `ghost@${TEAM}` }));
    const ok = await run(['permissions', 'clear', 'perm-4-dead']);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toBe('cleared perm-4-dead (ghost Bash)');
    const live = await run(['permissions', 'clear', 'perm-4-live']);
    expect(live.exitCode).toBe(2);
    expect(live.stderr).toMatch(/^swarm: request perm-4-live: worker w1 is still alive \(pid \d+\); decide it with 'swarm approve' or 'swarm deny'$/);
    expect(await fs.readdir(h.paths.pending)).toEqual(['perm-4-live.json']);
  });
});

describe('swarm approve / deny', () => {
  it('--json reports the decision', async () => {
    await writePending(h.paths, record('perm-5-a', {}));
    const r = await swarm(h.root, ['approve', 'perm-5-a', '--json', '--team', TEAM]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ id: 'perm-5-a', status: 'approved', worker: 'w1', toolName: 'Bash', frameSent: true });
  });

  it('bad ids, unknown ids and second decisions: one line, non-zero, nothing written', async () => {
    await writePending(h.paths, record('perm-6-a', {}));
    expect((await run(['deny', 'perm-6-a'])).exitCode).toBe(0);
    const before = await listTree(h.root);
    const cases: [string[], number, string][] = [
      [['approve', '../../x'], 2, `swarm: invalid request id "../../x": expected an id like perm-1733140000000-a1b2c3 (see 'swarm permissions')`],
      [['deny', 'perm-404-x'], 1, `swarm: no pending permission request "perm-404-x"; see 'swarm permissions' for the ids`],
      [['approve', 'perm-6-a'], 1, `swarm: permission request perm-6-a is already resolved (rejected by team-lead); see 'swarm permissions'`],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      expect(r.exitCode, args.join(' ')).toBe(code);
      expect(r.stderr, args.join(' ')).toBe(message);
      expect(r.stdout).toBe('');
    }
    expect(await listTree(h.root)).toEqual(before);
  });

  it('approving a request whose worker process is gone says that nobody acts on it yet', async () => {
    await writePending(h.paths, record('perm-8-a', { workerPid: await deadPid() }));
    const r = await run(['approve', 'perm-8-a']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^swarm: w1's process \d+ is not running, so nobody acts on this until it is respawned$/);

    // A worker on another machine (the ssh backend): its pid means nothing here, so no such warning.
    await updateMember(new Team(h.root, TEAM), 'w1', { host: 'ci@build1' });
    await writePending(h.paths, record('perm-9-a', { workerPid: await deadPid() }));
    const remote = await run(['approve', 'perm-9-a']);
    expect(remote.exitCode, remote.stderr).toBe(0);
    expect(remote.stderr).toBe('');
  });

  it('a symlinked permissions/resolved/ directory is refused: no decision is written through it', async () => {
    await writePending(h.paths, record('perm-7-a', {}));
    const elsewhere = `${h.root}/elsewhere`;
    await fs.mkdir(elsewhere);
    await fs.rm(h.paths.resolved, { recursive: true, force: true });
    await fs.symlink(elsewhere, h.paths.resolved);
    const r = await run(['approve', 'perm-7-a']);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(`swarm: ${h.paths.resolved} is a symlink; swarm does not use files through links: replace it with a real directory (mv the files it points to into one)`);
    expect(await fs.readdir(elsewhere)).toEqual([]);
    await fs.rm(h.paths.resolved);
    await fs.mkdir(h.paths.resolved);
    expect((await run(['approve', 'perm-7-a'])).exitCode).toBe(0); // still pending: nothing was half-done
  });

  it('an audit log that cannot be written: approve, deny and permissions allow exit 1 in one line and change nothing', async () => {
    await writePending(h.paths, record('perm-10-a', {}));
    await fs.rm(h.paths.audit, { force: true });
    await fs.mkdir(h.paths.audit, { recursive: true }); // not appendable, whoever runs the test
    const before = await listTree(h.root);
    for (const [args, notDone] of [
      [['approve', 'perm-10-a'], 'perm-10-a was not approved'],
      [['deny', 'perm-10-a'], 'perm-10-a was not denied'],
      [['permissions', 'allow', 'Bash(npm test:*)'], 'the allow rule Bash(npm test:*) was not added'],
    ] as const) {
      const r = await run([...args]);
      expect(r.exitCode, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^swarm: ${notDone.replace(/[()*]/g, '\\$&')}: the audit log \\S+audit\\.jsonl cannot be written \\(EISDIR[^\n]*\\); nothing was changed$`));
      expect(r.stdout).toBe('');
    }
    expect(await listTree(h.root)).toEqual(before);
    expect((await readTeam(new Team(h.root, TEAM))).swarm?.rules).toBeUndefined();
  });

  it('--help shows examples', async () => {
    for (const cmd of [['approve'], ['deny'], ['permissions']]) {
      const r = await swarmInProcess(h.root, [...cmd, '--help']);
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toContain('Examples:');
    }
  });
});
