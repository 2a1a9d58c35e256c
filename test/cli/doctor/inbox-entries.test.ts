// swarm doctor's look at inboxes/ (cli/doctor/inbox-entries.ts), in process through the team-files
// check doctor runs: every entry that is not what its name must be is reported by name with what
// fails while it is there (a lock path that is a file, an inbox that is a FIFO or a symlink, a spool
// that is a file, a spool entry that is no message), and --fix removes only a stray lock that is an
// empty regular file, never one that gained content meanwhile, and never anything else.
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

useTempRoot((dir) => (root = dir), 'swarm-doctor-inboxes-');
beforeEach(async () => {
  await createTeam(root, { name: 't' });
  for (const name of ['alice', 'bob']) await addMember(new Team(root, 't'), { name });
  p = teamPaths(root, 't');
  ctx = { root, env: {}, exec: execaExec, now: Date.now(), isAlive: () => true, tmpDir: root };
});

const odd = async (): Promise<Finding[]> => (await checkTeamFiles(ctx)).findings.filter((f) => f.check === 'odd_inbox_entry');
const rel = (f: string): string => path.relative(root, f);

describe('swarm doctor: odd entries in inboxes/', () => {
  it('reports each entry that is not what its name must be, by name, and passes a team whose inboxes are fine', async () => {
    // What belongs there: inboxes, an archive, a lock directory, a spool with a message, kept-aside and temp files.
    const mb = new Mailbox({ team: new Team(root, 't') });
    await mb.append('alice', { from: 'bob', text: 'hi' });
    await fs.writeFile(p.archive('alice'), '');
    await fs.mkdir(`${p.inbox('alice')}.lock`);
    await fs.mkdir(`${p.inbox('alice')}.spool`, { recursive: true }); // the append's, emptied
    await fs.writeFile(path.join(`${p.inbox('alice')}.spool`, '0000000000001-m.json'), '{}');
    await fs.writeFile(`${p.inbox('alice')}.corrupt-1`, '[');
    await fs.writeFile(`${p.inbox('alice')}.tmp-1-ab`, '');
    expect(await odd()).toEqual([]);
    expect((await checkTeamFiles(ctx)).passed).toContain('inboxes hold only regular files, lock directories and spools');

    const lead = `${p.inbox('team-lead')}.lock`;
    const bobLock = `${p.inbox('bob')}.lock`;
    const carol = p.inbox('carol');
    const dan = p.inbox('dan');
    const eveSpool = `${p.inbox('eve')}.spool`;
    const fifoMsg = path.join(`${p.inbox('alice')}.spool`, '0000000000002-x.json');
    await fs.writeFile(lead, '');
    await fs.writeFile(bobLock, 'pid 42');
    execFileSync('mkfifo', [carol]);
    await fs.symlink('/etc/hostname', dan);
    await fs.writeFile(eveSpool, '');
    execFileSync('mkfifo', [fifoMsg]);
    await fs.symlink(root, `${p.inbox('frank')}.lock`); // linked_lock's finding, not this one's
    const gina = p.archive('gina');
    await fs.mkdir(gina);

    const found = await odd();
    const look = (f: string): string => `look at it (ls -l '${f}'), then move it out of inboxes/ or remove it`;
    expect(found.map(({ apply, ...f }) => ({ ...f, fixable: apply !== undefined }))).toEqual([
      { check: 'odd_inbox_entry', severity: 'warning', team: 't', path: fifoMsg, fixable: false, problem: `${rel(fifoMsg)} is a FIFO (named pipe), not a queued message: it is left there, never delivered`, fix: `look at it (ls -l '${fifoMsg}'), then remove it` },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: bobLock, fixable: false, problem: `${rel(bobLock)} is a file, not a directory: nobody can lock bob.json, so every send to that inbox fails`, fix: look(bobLock) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: carol, fixable: false, problem: `${rel(carol)} is a FIFO (named pipe), not a regular file: every read and send of that inbox fails`, fix: look(carol) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: dan, fixable: false, problem: `${rel(dan)} is a symbolic link, not a regular file: every read and send of that inbox fails`, fix: look(dan) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: eveSpool, fixable: false, problem: `${rel(eveSpool)} is an empty file, not a directory: sends to eve.json cannot queue there, so they fail`, fix: look(eveSpool) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: gina, fixable: false, problem: `${rel(gina)} is a directory, not a regular file: every read and send of that inbox fails`, fix: look(gina) },
      { check: 'odd_inbox_entry', severity: 'problem', team: 't', path: lead, fixable: true, problem: `${rel(lead)} is an empty file, not a directory: nobody can lock team-lead.json, so every send to that inbox fails`, fix: `swarm doctor --fix removes it (or: rm '${lead}')` },
    ]);
    expect((await checkTeamFiles(ctx)).findings.filter((f) => f.check === 'linked_lock').map((f) => f.path)).toEqual([`${p.inbox('frank')}.lock`]);
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

  it('a symlinked inboxes/ is linked_dir\'s finding: nothing behind the link is looked at', async () => {
    const elsewhere = path.join(root, 'elsewhere');
    await fs.mkdir(elsewhere);
    execFileSync('mkfifo', [path.join(elsewhere, 'x.json')]);
    await fs.rm(p.inboxes, { recursive: true });
    await fs.symlink(elsewhere, p.inboxes);
    const { findings } = await checkTeamFiles(ctx);
    expect(findings.map((f) => f.check)).toEqual(['linked_dir']);
  });
});
