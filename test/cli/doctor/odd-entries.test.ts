// swarm doctor's look at entries that are not what their names must be (cli/doctor/odd-entries.ts),
// in process through the team-files check doctor runs: a lock path anywhere in the team or its task
// list that is a file (nobody can lock it), and in inboxes/ an inbox that is a FIFO or a symlink, a
// spool that is a file, a spool entry that is no message; each reported by name with what fails
// while it is there. --fix removes only a stray lock that is an empty regular file, never one that
// changed meanwhile, and never anything else.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { execaExec } from '../../../src/backends/process.js';
import type { DoctorContext, Finding } from '../../../src/cli/doctor/machine-checks.js';
import { checkTeamFiles } from '../../../src/cli/doctor/team-checks.js';
import { Mailbox } from '../../../src/mailbox/mailbox.js';
import { addMember, createTeam, Team, teamPaths, type TeamPaths } from '../../../src/team/index.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
let p: TeamPaths;
let ctx: DoctorContext;

useTempRoot((dir) => (root = dir), 'swarm-doctor-odd-');
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  for (const name of ['alice', 'bob']) await addMember(new Team(root, 't'), { name });
  p = teamPaths(root, 't');
  ctx = { root, env: {}, exec: execaExec, now: Date.now(), isAlive: () => true };
});

const PASSED = 'every lock a directory, every inbox a regular file';
const odd = async (): Promise<Finding[]> => (await checkTeamFiles(ctx)).findings.filter((f) => f.check === 'odd_lock' || f.check === 'odd_inbox_entry');
const rel = (f: string): string => path.relative(root, f);
const look = (f: string): string => `look at it (ls -l '${f}'), then move it away or remove it`;
/** Findings without their fix function (fixable says whether there is one), by path: the walk's order is the file system's. */
const plain = (found: Finding[]): unknown[] =>
  found.map(({ apply, ...f }) => ({ ...f, fixable: apply !== undefined })).sort((a, b) => (a.path! < b.path! ? -1 : a.path! > b.path! ? 1 : 0));

describe('swarm doctor: entries that are not what their names must be', () => {
  it('passes a team whose entries are what they should be', async () => {
    const mb = new Mailbox({ team: new Team(root, 't') });
    await mb.append('alice', { from: 'bob', text: 'hi' });
    await fs.writeFile(p.archive('alice'), '');
    await fs.mkdir(`${p.inbox('alice')}.lock`);
    await fs.mkdir(`${p.config}.lock`);
    await fs.mkdir(`${p.inbox('alice')}.spool`, { recursive: true }); // the append's, emptied
    await fs.writeFile(path.join(`${p.inbox('alice')}.spool`, '0000000000001-m.json'), '{}');
    await fs.writeFile(`${p.inbox('alice')}.corrupt-1`, '[');
    await fs.writeFile(`${p.inbox('alice')}.tmp-1-ab`, '');
    expect(await odd()).toEqual([]);
    expect((await checkTeamFiles(ctx)).passed).toEqual(expect.arrayContaining(['no stale locks (2 touched within 10 s: in use, or a holder that died since; rerun later to tell)', PASSED]));
  });

  it('reports a lock path that is a file, anywhere in the team, by name with what fails; only an empty one is fixable', async () => {
    const lead = `${p.inbox('team-lead')}.lock`;
    const bob = `${p.inbox('bob')}.lock`;
    const config = `${p.config}.lock`;
    const pending = `${p.pendingFile('perm-1-a')}.lock`;
    await fs.writeFile(lead, '');
    await fs.writeFile(bob, 'pid 42');
    await fs.writeFile(config, '');
    await fs.mkdir(p.pending, { recursive: true });
    execFileSync('mkfifo', [pending]);
    await fs.symlink(root, `${p.inbox('frank')}.lock`); // linked_lock's finding, not this one's
    expect(plain(await odd())).toEqual([
      { check: 'odd_lock', severity: 'problem', team: 't', path: config, fixable: true, problem: `${rel(config)} is an empty file, not a lock directory: nobody can lock config.json, so every change to it fails`, fix: `swarm doctor --fix removes it (or: rm '${config}')` },
      { check: 'odd_lock', severity: 'problem', team: 't', path: bob, fixable: false, problem: `${rel(bob)} is a file, not a lock directory: nobody can lock bob.json, so every send to that inbox fails`, fix: look(bob) },
      { check: 'odd_lock', severity: 'problem', team: 't', path: lead, fixable: true, problem: `${rel(lead)} is an empty file, not a lock directory: nobody can lock team-lead.json, so every send to that inbox fails`, fix: `swarm doctor --fix removes it (or: rm '${lead}')` },
      { check: 'odd_lock', severity: 'problem', team: 't', path: pending, fixable: false, problem: `${rel(pending)} is a FIFO (named pipe), not a lock directory: nobody can lock perm-1-a.json, so every change to it fails`, fix: look(pending) },
    ]);
    const result = await checkTeamFiles(ctx);
    expect(result.findings.filter((f) => f.check === 'linked_lock').map((f) => f.path)).toEqual([`${p.inbox('frank')}.lock`]);
    expect(result.passed).not.toContain(PASSED);
  });

  it("looks at the task list's locks too: a task's lock that is a file is reported, the list's own .lock target file is not", async () => {
    await fs.mkdir(p.tasks.dir, { recursive: true });
    await fs.writeFile(p.tasks.lock, ''); // tasks/<team>/.lock: what the list lock (.lock.lock) locks
    const taskLock = `${p.tasks.task('3')}.lock`;
    await fs.writeFile(taskLock, '');
    expect(plain(await odd())).toEqual([
      { check: 'odd_lock', severity: 'problem', team: 't', path: taskLock, fixable: true, problem: `${rel(taskLock)} is an empty file, not a lock directory: nobody can lock 3.json, so every change to it fails`, fix: `swarm doctor --fix removes it (or: rm '${taskLock}')` },
    ]);
  });

  it('reports in inboxes/ an inbox or archive that is no regular file, a spool that is no directory, a spool entry that is no message', async () => {
    const carol = p.inbox('carol');
    const dan = p.inbox('dan');
    const eveSpool = `${p.inbox('eve')}.spool`;
    const gina = p.archive('gina');
    const queue = `${p.inbox('hal')}.lock.queue`;
    const fifoMsg = path.join(`${p.inbox('alice')}.spool`, '0000000000002-x.json');
    execFileSync('mkfifo', [carol]);
    await fs.symlink('/etc/hostname', dan);
    await fs.writeFile(eveSpool, '');
    await fs.mkdir(gina);
    await fs.writeFile(queue, '');
    await fs.mkdir(path.dirname(fifoMsg));
    execFileSync('mkfifo', [fifoMsg]);
    expect(plain(await odd())).toEqual([
      { check: 'odd_inbox_entry', severity: 'warning', team: 't', path: fifoMsg, fixable: false, problem: `${rel(fifoMsg)} is a FIFO (named pipe), not a queued message: it is left there, never delivered`, fix: `look at it (ls -l '${fifoMsg}'), then remove it` },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: carol, fixable: false, problem: `${rel(carol)} is a FIFO (named pipe), not a regular file: every read and send of that inbox fails`, fix: look(carol) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: dan, fixable: false, problem: `${rel(dan)} is a symbolic link, not a regular file: every read and send of that inbox fails`, fix: look(dan) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: eveSpool, fixable: false, problem: `${rel(eveSpool)} is an empty file, not a directory: sends to eve.json cannot queue there, so they fail`, fix: look(eveSpool) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: gina, fixable: false, problem: `${rel(gina)} is a directory, not a regular file: every read and send of that inbox fails`, fix: look(gina) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: queue, fixable: false, problem: `${rel(queue)} is an empty file, not a directory: writers of hal.json cannot wait for its lock, so they fail`, fix: look(queue) },
    ]);
    expect((await checkTeamFiles(ctx)).passed).not.toContain(PASSED);
  });

  it('--fix removes a stray empty lock file, and then the inbox takes sends again', async () => {
    const lock = `${p.inbox('bob')}.lock`;
    await fs.writeFile(lock, '');
    const mb = new Mailbox({ team: new Team(root, 't') });
    await expect(mb.append('bob', { from: 'alice', text: 'before' })).rejects.toMatchObject({ kind: 'io' });
    const [finding] = await odd();
    expect(await finding!.apply!()).toBe(`removed the stray lock file ${rel(lock)}`);
    await expect(fs.lstat(lock)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await finding!.apply!()).toBe(`${rel(lock)} was already gone`);
    await mb.append('bob', { from: 'alice', text: 'after' });
    expect((await mb.read('bob')).map((m) => m.text)).toEqual(['after']);
    expect(await odd()).toEqual([]);
  });

  it('--fix leaves a lock file that gained content, or became a FIFO or a directory, after it was seen', async () => {
    const lock = `${p.inbox('bob')}.lock`;
    await fs.writeFile(lock, '');
    const [finding] = await odd();
    await fs.writeFile(lock, 'someone wrote this');
    await expect(finding!.apply!()).rejects.toThrow(`${rel(lock)} is no longer an empty file (now a file); left alone`);
    expect(await fs.readFile(lock, 'utf8')).toBe('someone wrote this');
    await fs.rm(lock);
    execFileSync('mkfifo', [lock]);
    await expect(finding!.apply!()).rejects.toThrow(`${rel(lock)} is no longer an empty file (now a FIFO (named pipe)); left alone`);
    await fs.rm(lock);
    await fs.mkdir(lock); // a writer's real lock now
    await expect(finding!.apply!()).rejects.toThrow(`${rel(lock)} is no longer an empty file (now a directory); left alone`);
    expect((await fs.stat(lock)).isDirectory()).toBe(true);
  });

  it("a symlinked inboxes/ is linked_dir's finding: nothing behind the link is looked at", async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    execFileSync('mkfifo', [path.join(elsewhere, 'x.json')]);
    await fs.rm(p.inboxes, { recursive: true });
    await fs.symlink(elsewhere, p.inboxes);
    const { findings } = await checkTeamFiles(ctx);
    expect(findings.map((f) => f.check)).toEqual(['linked_dir']);
  });
});
