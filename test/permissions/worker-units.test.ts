// requestPermission (src/permissions/worker.ts) in this process, edge by edge: the cwd check, the
// request as written (pending file, frame to team-lead), rules (and a broken rule), a failed
// announcement, a resolved file (signed, forged, replaced while being set aside, unreadable), the
// inbox frame (echoed, edited, denied, forged ones logged once), what wakes the wait (inotify or
// the poll alone), abort, timeout (and an answer that lands as it runs out), a request that vanishes
// (cleared, removed, ended by hand, decided before its frame) and asking again after a decision
// that did not bind. Races are pinned by holding the request's lock and waiting for the worker's
// ticket in its queue.
import { randomUUID } from 'node:crypto';
import { getEventListeners } from 'node:events';
import { promises as fs, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendAudit, readAudit } from '../../src/permissions/audit.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { clearOrphaned, decide } from '../../src/permissions/leader.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import { evaluateWithReason } from '../../src/permissions/rules.js';
import { inputDigest, signEntry, signRecord, verifyEntry } from '../../src/permissions/signing.js';
import { requestPermission, type PermissionEvent, type PermissionResult, type RequestPermissionOptions } from '../../src/permissions/worker.js';
import { encodeControl, parseControl } from '../../src/protocol/control.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import type { InboxMessage } from '../../src/protocol/message.js';
import { formatJson, writeFileAtomic } from '../../src/storage/atomic.js';
import { queueDirFor, withFileLock } from '../../src/storage/lock.js';
import { updateTeam } from '../../src/team/index.js';
import { Team } from '../../src/team/team.js';
import { inotifyWatches } from '../support/handles.js';
import { listTree } from '../support/fs-tree.js';
import { auditFor, inboxOnDisk, ls, setupTeam, TEAM, type Harness } from '../support/perm-harness.js';
import { useTempRoot } from '../support/tmp-root.js';
import { waitFor } from '../support/wait.js';

let h: Harness;
useTempRoot(async (root) => {
  h = await setupTeam(root);
});

const INPUT = { command: 'npm test' };
const team = (): Team => new Team(h.root, TEAM);

interface Asking {
  result: Promise<PermissionResult>;
  events: PermissionEvent[];
  /** The request's id, once its pending file and frame are written. */
  id: Promise<string>;
}

/** Start a request of w1 (h.base plus `extra`); `first` runs synchronously on the first `requested`, before the first look for an answer. */
function ask(extra: Partial<RequestPermissionOptions> = {}, first?: (id: string) => void): Asking {
  const events: PermissionEvent[] = [];
  let announced: ((id: string) => void) | undefined;
  const id = new Promise<string>((resolve) => (announced = resolve));
  const result = requestPermission({
    ...h.base,
    ...extra,
    onEvent: (e) => {
      events.push(e);
      if (e.kind !== 'requested' || !announced) return;
      first?.(e.id);
      announced(e.id);
      announced = undefined;
    },
  });
  result.catch(() => undefined); // awaited by the test; never an unhandled rejection meanwhile
  return { result, events, id };
}

/** A resolved record for w1's `npm test`, signed with the team's lead key. */
function signedResolved(id: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return signRecord(
    { id, workerId: `w1@${TEAM}`, workerName: 'w1', teamName: TEAM, toolName: 'Bash', toolUseId: 'toolu_01', input: INPUT, status: 'approved', resolvedBy: 'team-lead', resolvedAt: Date.now(), ...extra },
    h.key.privateKey,
  );
}

const allowFrame = (id: string, updated: Record<string, unknown> = INPUT): string =>
  encodeControl({ type: 'permission_response', request_id: id, subtype: 'success', input_sha256: inputDigest(INPUT), response: { updated_input: updated } });

/** An inbox entry as the leader writes it (signed), for writing w1's inbox synchronously. */
function leadEntry(text: string): InboxMessage {
  return { ...signEntry({ msg_id: randomUUID(), from: 'team-lead', timestamp: new Date().toISOString(), text }, h.key.privateKey), read: false };
}

async function lead(): Promise<{ append: (text: string) => Promise<unknown> }> {
  const { mailbox } = await openLeadMailbox({ team: team() });
  return { append: (text) => mailbox.append('w1', { from: 'team-lead', text }) };
}

async function errorOf(p: Promise<unknown>): Promise<Error> {
  const e = await p.then(() => undefined, (err: unknown) => err);
  expect(e, 'expected a rejection').toBeInstanceOf(Error);
  return e as Error;
}

/** Hold request `id`'s lock while `fn` runs; `fn` gets a wait for the worker to queue behind it. */
async function holdingLock(id: string, fn: (workerQueued: () => Promise<unknown>) => Promise<void>): Promise<void> {
  const file = h.paths.pendingFile(id);
  await withFileLock(file, () => fn(() => waitFor(async () => (await ls(queueDirFor(file))).length > 0, 10_000, 'the worker queued for the request lock')));
}

const kinds = (events: PermissionEvent[]): string[] => events.map((e) => e.kind);

describe('before anything is written', () => {
  it('a relative cwd is invalid_input, word for word, and writes nothing', async () => {
    const before = await listTree(h.root);
    const e = await errorOf(requestPermission({ ...h.base, cwd: 'project' }));
    expect(isSwarmError(e, 'invalid_input'), String(e)).toBe(true);
    expect(e.message).toBe('permission request cwd: expected an absolute path, got "project"');
    expect(await listTree(h.root)).toEqual(before);
  });
});

describe('the request as written', () => {
  it('pending file and frame carry colour, suggestions and pid when given, and [] / this pid / no colour when not', async () => {
    const seen: { pending: unknown; inbox: InboxMessage[] }[] = [];
    const capture = (id: string): void =>
      void seen.push({ pending: JSON.parse(readFileSync(h.paths.pendingFile(id), 'utf8')), inbox: JSON.parse(readFileSync(h.paths.inbox('team-lead'), 'utf8')) as InboxMessage[] });
    const suggestions = [{ type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'npm test:*' }], behavior: 'allow', destination: 'session' }];
    const full = ask({ suggestions, workerPid: 4242, timeoutMs: 0 }, capture);
    const { workerColor: _c, ...plainBase } = h.base;
    const plain = ask({ ...plainBase, workerColor: undefined, timeoutMs: 0 }, capture);
    const [a, b] = [await full.result, await plain.result];
    const record = (id: string, extra: Record<string, unknown>): unknown => ({
      id,
      workerId: `w1@${TEAM}`,
      workerName: 'w1',
      teamName: TEAM,
      toolName: 'Bash',
      toolUseId: 'toolu_01',
      description: 'Run the tests',
      input: INPUT,
      status: 'pending',
      createdAt: expect.any(Number),
      source: 'file',
      cwd: '/work/project',
      ...extra,
    });
    const frame = (id: string, s: unknown[]): unknown => ({ type: 'permission_request', request_id: id, agent_id: 'w1', tool_name: 'Bash', tool_use_id: 'toolu_01', description: 'Run the tests', input: INPUT, permission_suggestions: s });
    const byId = new Map(seen.map((s) => [(s.pending as { id: string }).id, s]));
    expect(byId.get(a.id)?.pending).toEqual(record(a.id, { workerColor: 'blue', permissionSuggestions: suggestions, workerPid: 4242 }));
    expect(byId.get(b.id)?.pending).toEqual(record(b.id, { permissionSuggestions: [], workerPid: process.pid }));
    const entries = (await inboxOnDisk(h.paths, 'team-lead')).map((m) => ({ ...m, text: parseControl(m.text) }));
    const entryFor = (id: string) => entries.find((m) => m.text.kind === 'control' && m.text.message.type === 'permission_request' && m.text.message.request_id === id);
    expect(entryFor(a.id)).toMatchObject({ from: 'w1', color: 'blue', text: { kind: 'control', message: frame(a.id, suggestions) } });
    expect(entryFor(b.id)).toMatchObject({ from: 'w1', text: { kind: 'control', message: frame(b.id, []) } });
    expect(entryFor(b.id)).not.toHaveProperty('color');
  });
});

describe('team rules', () => {
  it('no rules: no rules_error, the request is asked', async () => {
    const asking = ask({ timeoutMs: 0 });
    const r = await asking.result;
    expect(r).toMatchObject({ source: 'timeout' });
    expect(asking.events).toEqual([{ kind: 'requested', id: r.id, file: h.paths.pendingFile(r.id) }]);
    expect((await auditFor(h.paths, r.id)).map((e) => e.event)).toEqual(['request', 'timeout']);
  });

  it('a rule that does not parse is reported through onEvent and the request goes to team-lead', async () => {
    const rules = { allow: ['Bash(npm test'], deny: [] };
    await updateTeam(team(), (c) => void (c.swarm = { rules }));
    const why = (() => {
      try {
        evaluateWithReason(rules, { toolName: 'Bash', input: INPUT, cwd: '/work/project' });
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error('expected the rule to be refused');
    })();
    const asking = ask({ timeoutMs: 0 });
    const r = await asking.result;
    expect(r).toMatchObject({ decision: 'deny', source: 'timeout' });
    expect(asking.events).toEqual([
      { kind: 'rules_error', message: `${why}; asking team-lead instead` },
      { kind: 'requested', id: r.id, file: h.paths.pendingFile(r.id) },
    ]);
  });

  it('a deny rule: result and audit say rejected, by rule, with its feedback', async () => {
    await updateTeam(team(), (c) => void (c.swarm = { rules: { allow: [], deny: ['Bash(npm:*)'] } }));
    const asking = ask();
    const r = await asking.result;
    expect(r).toEqual({ decision: 'deny', by: 'rule', feedback: 'denied by team rule Bash(npm:*)', id: r.id, source: 'rule', rule: 'Bash(npm:*)' });
    expect(asking.events).toEqual([{ kind: 'rule', id: r.id, decision: 'deny', rule: 'Bash(npm:*)' }]);
    expect(await auditFor(h.paths, r.id)).toEqual([
      expect.objectContaining({ event: 'request', worker: 'w1', toolName: 'Bash' }),
      expect.objectContaining({ event: 'decision', worker: 'w1', toolName: 'Bash', status: 'rejected', by: 'rule', rule: 'Bash(npm:*)' }),
    ]);
  });
});

describe('announcing fails', () => {
  it("team-lead's inbox cannot be written: the request is withdrawn (cancelled, with why) and the error thrown", async () => {
    await fs.mkdir(h.paths.inbox('team-lead'), { recursive: true });
    const asking = ask({ timeoutMs: 5_000 });
    const e = await errorOf(asking.result);
    expect(asking.events).toEqual([]);
    expect(await ls(h.paths.pending)).toEqual([]);
    const audit = await readAudit(h.paths);
    expect(audit.map((a) => a.event)).toEqual(['request', 'cancelled']);
    expect(audit[1]).toMatchObject({ worker: 'w1', reason: `could not ask team-lead: ${e.message}` });
  });

  it('the audit log cannot be written: the error is thrown, the frame was sent', async () => {
    await fs.mkdir(h.paths.audit, { recursive: true });
    const asking = ask({ timeoutMs: 5_000 });
    const e = await errorOf(asking.result);
    expect(e.message).toMatch(/EISDIR/);
    expect(asking.events).toEqual([]);
    expect(await inboxOnDisk(h.paths, 'team-lead')).toHaveLength(1);
  });
});

describe('an answer in resolved/<id>.json', () => {
  it('a signed approval is taken: the file goes, acted is audited, answered is reported', async () => {
    const asking = ask({}, (id) => writeFileSync(h.paths.resolvedFile(id), formatJson(signedResolved(id))));
    const r = await asking.result;
    expect(r).toEqual({ decision: 'allow', by: 'team-lead', id: r.id, source: 'resolved' });
    expect(asking.events.slice(1)).toEqual([{ kind: 'answered', id: r.id, decision: 'allow', source: 'resolved' }]);
    expect(await ls(h.paths.resolved)).toEqual([]);
    expect((await auditFor(h.paths, r.id)).at(-1)).toMatchObject({ event: 'acted', worker: 'w1', status: 'allow', by: 'team-lead', reason: 'signed resolved file' });
  });

  it('a signed denial keeps its feedback', async () => {
    const asking = ask({}, (id) => writeFileSync(h.paths.resolvedFile(id), formatJson(signedResolved(id, { status: 'rejected', feedback: 'not now' }))));
    const r = await asking.result;
    expect(r).toEqual({ decision: 'deny', by: 'team-lead', feedback: 'not now', id: r.id, source: 'resolved' });
    expect(asking.events.slice(1)).toEqual([{ kind: 'answered', id: r.id, decision: 'deny', source: 'resolved' }]);
  });

  it('with its frame there too: that frame (only it) is marked read', async () => {
    const asking = ask({}, (id) => {
      writeFileSync(h.paths.inbox('w1'), JSON.stringify([leadEntry('unrelated: keep going'), leadEntry(allowFrame(id))]));
      writeFileSync(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
    });
    const r = await asking.result;
    expect(r.source).toBe('resolved');
    expect((await inboxOnDisk(h.paths, 'w1')).map((m) => [m.text.slice(0, 12), m.read])).toEqual([
      ['unrelated: k', false],
      [allowFrame(r.id).slice(0, 12), true],
    ]);
  });

  it('a forged one is kept aside (event, forged audit line with the kept name) and the wait goes on', async () => {
    const asking = ask({}, (id) => writeFileSync(h.paths.resolvedFile(id), formatJson({ ...signedResolved(id), signature: undefined })));
    const id = await asking.id;
    const rejected = await waitFor(() => asking.events.find((e) => e.kind === 'rejected'), 10_000, 'the forged file rejected');
    expect(rejected).toEqual({ kind: 'rejected', id, source: 'resolved', reason: 'unsigned', keptAs: expect.stringMatching(new RegExp(`^${h.paths.resolved}/${id}\\.json\\.rejected-\\d+$`)) });
    const keptAs = (rejected as { keptAs: string }).keptAs;
    expect(JSON.parse(await fs.readFile(keptAs, 'utf8'))).toMatchObject({ id, status: 'approved' });
    expect((await auditFor(h.paths, id)).map((e) => [e.event, e.reason])).toEqual([
      ['request', undefined],
      ['forged', `resolved file: unsigned; kept as ${path.basename(keptAs)}`],
    ]);
    await writeFileAtomic(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'resolved' });
    expect(kinds(asking.events)).toEqual(['requested', 'rejected', 'answered']);
  });

  it('a forged file and a real frame in the same look: the frame is the answer', async () => {
    const asking = ask({}, (id) => {
      writeFileSync(h.paths.resolvedFile(id), formatJson({ ...signedResolved(id), signature: undefined }));
      writeFileSync(h.paths.inbox('w1'), JSON.stringify([leadEntry(allowFrame(id))]));
    });
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'inbox' });
    expect(kinds(asking.events)).toEqual(['requested', 'rejected', 'answered']);
  });

  it('a forged one replaced by a real decision before the worker holds the lock is not set aside: the decision is taken', async () => {
    const asking = ask();
    const id = await asking.id;
    await holdingLock(id, async (workerQueued) => {
      await writeFileAtomic(h.paths.resolvedFile(id), formatJson({ ...signedResolved(id), signature: undefined }));
      await workerQueued();
      await writeFileAtomic(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
    });
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'resolved' });
    expect(kinds(asking.events)).toEqual(['requested', 'answered']);
    expect(await ls(h.paths.resolved)).toEqual([]);
  });

  it('an unreadable one ends the wait: cancelled with the worker error, the io error thrown with its cause', async () => {
    const asking = ask({ timeoutMs: 5_000 }, (id) => mkdirSync(h.paths.resolvedFile(id)));
    const id = await asking.id;
    const e = await errorOf(asking.result);
    expect(isSwarmError(e, 'io'), String(e)).toBe(true);
    expect(e.message).toMatch(new RegExp(`^cannot read ${h.paths.resolvedFile(id)}: EISDIR`));
    expect((e.cause as NodeJS.ErrnoException | undefined)?.code).toBe('EISDIR');
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditFor(h.paths, id)).map((a) => [a.event, a.reason])).toEqual([
      ['request', undefined],
      ['cancelled', `worker error: ${e.message}`],
    ]);
  });
});

describe('an answer in the inbox', () => {
  it('an approval echoing the input: no updatedInput; the frame is consumed; acted says signed permission_response', async () => {
    const asking = ask();
    const id = await asking.id;
    await (await lead()).append(allowFrame(id));
    const r = await asking.result;
    expect(r).toEqual({ decision: 'allow', by: 'team-lead', id, source: 'inbox' });
    expect(asking.events.slice(1)).toEqual([{ kind: 'answered', id, decision: 'allow', source: 'inbox' }]);
    expect((await inboxOnDisk(h.paths, 'w1')).map((m) => m.read)).toEqual([true]);
    expect((await auditFor(h.paths, id)).at(-1)).toMatchObject({ event: 'acted', worker: 'w1', status: 'allow', by: 'team-lead', reason: 'signed permission_response' });
  });

  it('an approval with an edited input keeps it, and the audit line says so', async () => {
    const asking = ask();
    const id = await asking.id;
    await (await lead()).append(allowFrame(id, { command: 'npm test -- --ci' }));
    expect(await asking.result).toEqual({ decision: 'allow', by: 'team-lead', updatedInput: { command: 'npm test -- --ci' }, id, source: 'inbox' });
    expect((await auditFor(h.paths, id)).at(-1)).toMatchObject({ event: 'acted', status: 'allow', reason: 'signed permission_response with an edited input' });
  });

  it('a denial carries its feedback', async () => {
    const asking = ask();
    const id = await asking.id;
    await (await lead()).append(encodeControl({ type: 'permission_response', request_id: id, subtype: 'error', error: 'use the ci script' }));
    expect(await asking.result).toEqual({ decision: 'deny', by: 'team-lead', feedback: 'use the ci script', id, source: 'inbox' });
    expect(asking.events.slice(1)).toEqual([{ kind: 'answered', id, decision: 'deny', source: 'inbox' }]);
    expect((await auditFor(h.paths, id)).at(-1)).toMatchObject({ event: 'acted', status: 'deny', by: 'team-lead', reason: 'signed permission_response' });
  });

  it('bad frames are logged once each (event and forged line, by their sender) and left unread', async () => {
    const asking = ask();
    const id = await asking.id;
    const plain = new Mailbox({ team: team() });
    const bad = encodeControl({ type: 'permission_response', request_id: id, subtype: 'success', response: {} });
    await plain.append('w1', { from: 'team-lead', text: bad });
    await plain.append('w1', { from: 'w2', text: bad });
    await waitFor(() => asking.events.filter((e) => e.kind === 'rejected').length === 2, 10_000, 'two rejected frames');
    await (await lead()).append(allowFrame(id)); // one more look at the inbox, with the bad frames still there
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'inbox' });
    expect(asking.events.filter((e) => e.kind === 'rejected')).toEqual([
      { kind: 'rejected', id, source: 'inbox', reason: 'no lead_sig' },
      { kind: 'rejected', id, source: 'inbox', reason: 'response from "w2", not team-lead' },
    ]);
    expect((await auditFor(h.paths, id)).filter((e) => e.event === 'forged').map((e) => [e.by, e.reason])).toEqual([
      ['team-lead', 'permission_response frame: no lead_sig'],
      ['w2', 'permission_response frame: response from "w2", not team-lead'],
    ]);
    const inbox = await inboxOnDisk(h.paths, 'w1');
    expect(inbox.map((m) => [m.from, m.read, verifyEntry(m, h.key.verifyKey)])).toEqual([
      ['team-lead', false, false],
      ['w2', false, false],
      ['team-lead', true, true],
    ]);
  });
});

describe('what wakes the wait', () => {
  it('inotify on resolved/<id>.json and on its own inbox: answered long before the next poll', async () => {
    const byFile = ask({ pollMs: 60_000 });
    const id = await byFile.id;
    // Written elsewhere and moved in: the only event in resolved/ names <id>.json itself.
    const elsewhere = path.join(h.root, `${id}.json`);
    await writeFileAtomic(elsewhere, formatJson(signedResolved(id)));
    await fs.rename(elsewhere, h.paths.resolvedFile(id));
    expect(await byFile.result).toMatchObject({ decision: 'allow', source: 'resolved' });
    const byFrame = ask({ pollMs: 60_000 });
    const id2 = await byFrame.id;
    await (await lead()).append(allowFrame(id2));
    expect(await byFrame.result).toMatchObject({ decision: 'allow', source: 'inbox' });
  });

  it('noWatch: no inotify watch is opened, the poll finds the answer; a watching request closes its watches', async () => {
    const base = inotifyWatches();
    const polled = ask({ noWatch: true, pollMs: 20 });
    const id = await polled.id;
    expect(inotifyWatches(), 'inotify watches while a noWatch request waits').toBe(base);
    await writeFileAtomic(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
    expect(await polled.result).toMatchObject({ decision: 'allow', source: 'resolved' });
    const watching = ask({ timeoutMs: 0 });
    await watching.id;
    expect(inotifyWatches(), 'inotify watches while a watching request waits').toBeGreaterThan(base);
    await watching.result;
    expect(inotifyWatches(), 'inotify watches once it returned').toBe(base);
  });
});

describe('the worker stops waiting', () => {
  it('abort ends the wait at once (not at the next poll), cancelled "aborted by the worker"', async () => {
    const ac = new AbortController();
    const asking = ask({ signal: ac.signal, pollMs: 60_000 });
    const id = await asking.id;
    await waitFor(() => getEventListeners(ac.signal, 'abort').length > 0, 10_000, 'the worker waiting for a change');
    ac.abort(new Error('user pressed Esc'));
    expect((await errorOf(asking.result)).message).toBe('user pressed Esc');
    expect((await auditFor(h.paths, id)).map((e) => [e.event, e.reason])).toEqual([
      ['request', undefined],
      ['cancelled', 'aborted by the worker'],
    ]);
  });

  it('timeout: deny by timeout, at the deadline even with a longer poll; no abort listener is left on the signal', async () => {
    const ac = new AbortController();
    const r = await ask({ timeoutMs: 300, pollMs: 60_000, signal: ac.signal }).result;
    expect(r).toEqual({ decision: 'deny', by: 'timeout', feedback: 'no answer within 0.3s', id: r.id, source: 'timeout' });
    expect(getEventListeners(ac.signal, 'abort')).toEqual([]);
    const polled = await ask({ timeoutMs: 200, pollMs: 10, signal: ac.signal }).result; // many turns of the loop
    expect(polled.source).toBe('timeout');
    expect(getEventListeners(ac.signal, 'abort')).toEqual([]);
  });

  it('a timeout still to come does not end a request answered before it', async () => {
    const asking = ask({ timeoutMs: 60_000 });
    const id = await asking.id;
    await writeFileAtomic(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'resolved' });
  });

  it('decided while the timeout ends it: the decision is the answer', async () => {
    const asking = ask({ timeoutMs: 1_000, pollMs: 50 });
    const id = await asking.id;
    await holdingLock(id, async (workerQueued) => {
      await workerQueued(); // at its deadline, waiting to withdraw the request
      await writeFileAtomic(h.paths.resolvedFile(id), formatJson(signedResolved(id)));
      await fs.rm(h.paths.pendingFile(id));
      await appendAudit(h.paths, { event: 'decision', id, at: Date.now(), worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' });
    });
    expect(await asking.result).toEqual({ decision: 'allow', by: 'team-lead', id, source: 'resolved' });
  });

  it('cleared while the timeout ends it: still the timeout deny', async () => {
    const asking = ask({ timeoutMs: 1_000, pollMs: 50 });
    const id = await asking.id;
    await holdingLock(id, async (workerQueued) => {
      await workerQueued();
      await appendAudit(h.paths, { event: 'cleared', id, at: Date.now(), worker: 'w1', by: 'team-lead', reason: 'worker gone' });
      await fs.rm(h.paths.pendingFile(id));
    });
    expect(await asking.result).toEqual({ decision: 'deny', by: 'timeout', feedback: 'no answer within 1s', id, source: 'timeout' });
  });
});

describe('the request vanishes without an answer', () => {
  it('cleared by team-lead: deny by team-lead, saying so', async () => {
    const asking = ask();
    const id = await asking.id;
    await clearOrphaned(team(), id, { force: true });
    expect(await asking.result).toEqual({ decision: 'deny', by: 'team-lead', feedback: 'request cleared by team-lead: worker gone', id, source: 'withdrawn' });
  });

  it('removed by hand: deny by unknown, and the worker logs it as cancelled', async () => {
    const asking = ask();
    const id = await asking.id;
    await fs.rm(h.paths.pendingFile(id));
    const reason = 'its pending file was removed or kept aside as corrupt before a decision';
    expect(await asking.result).toEqual({ decision: 'deny', by: 'unknown', feedback: `request withdrawn (${reason})`, id, source: 'withdrawn' });
    expect((await auditFor(h.paths, id)).map((e) => [e.event, e.worker, e.reason])).toEqual([
      ['request', 'w1', undefined],
      ['cancelled', 'w1', reason],
    ]);
  });

  it('ended by an audit line with no by or no reason: the feedback names only what is there', async () => {
    const endWith = async (event: 'cancelled' | 'cleared', extra: { by?: string }): Promise<PermissionResult> => {
      const asking = ask();
      const id = await asking.id;
      await appendAudit(h.paths, { event, id, at: Date.now(), worker: 'w1', ...extra });
      await fs.rm(h.paths.pendingFile(id));
      return asking.result;
    };
    expect(await endWith('cancelled', {})).toMatchObject({ decision: 'deny', by: 'unknown', feedback: 'request cancelled', source: 'withdrawn' });
    expect(await endWith('cleared', { by: 'team-lead' })).toMatchObject({ decision: 'deny', by: 'team-lead', feedback: 'request cleared by team-lead', source: 'withdrawn' });
  });

  it('decided, its frame not there yet: the worker keeps waiting for the frame', async () => {
    const asking = ask();
    const id = await asking.id;
    await holdingLock(id, async (workerQueued) => {
      await appendAudit(h.paths, { event: 'decision', id, at: Date.now(), worker: 'w1', toolName: 'Bash', status: 'approved', by: 'team-lead' });
      await fs.rm(h.paths.pendingFile(id));
      await workerQueued(); // it saw the request gone and asks the audit log why
    });
    await (await lead()).append(allowFrame(id));
    expect(await asking.result).toMatchObject({ decision: 'allow', source: 'inbox' });
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditFor(h.paths, id)).map((e) => e.event)).toEqual(['request', 'decision', 'acted']);
  });

  it('gone, then back before the worker held its lock: still pending, and a decision answers it', async () => {
    const asking = ask();
    const id = await asking.id;
    const text = await fs.readFile(h.paths.pendingFile(id), 'utf8');
    await holdingLock(id, async (workerQueued) => {
      await fs.rm(h.paths.pendingFile(id));
      await workerQueued();
      await writeFileAtomic(h.paths.pendingFile(id), text);
    });
    await decide(team(), id, 'allow');
    expect(await asking.result).toMatchObject({ decision: 'allow', id });
    expect((await auditFor(h.paths, id)).map((e) => e.event).sort()).toEqual(['acted', 'decision', 'request']);
  });
});

describe('asking again after a decision that did not bind', () => {
  it('the pending file edited before the decision: both carriers refused, the own record put back and re-audited; clearing it then ends it', async () => {
    const asking = ask();
    const id = await asking.id;
    const record = JSON.parse(await fs.readFile(h.paths.pendingFile(id), 'utf8')) as Record<string, unknown>;
    await writeFileAtomic(h.paths.pendingFile(id), formatJson({ ...record, input: { command: 'echo INJECTED' } }));
    await decide(team(), id, 'allow');
    await waitFor(() => asking.events.filter((e) => e.kind === 'requested').length === 2, 10_000, 'asked again');
    expect(kinds(asking.events).sort()).toEqual(['rejected', 'rejected', 'requested', 'requested']);
    expect(asking.events.at(-1)).toEqual({ kind: 'requested', id, file: h.paths.pendingFile(id) });
    expect(JSON.parse(await fs.readFile(h.paths.pendingFile(id), 'utf8'))).toEqual({ ...record, createdAt: expect.any(Number) });
    const audit = await auditFor(h.paths, id);
    expect(audit.map((e) => e.event).sort()).toEqual(['decision', 'forged', 'forged', 'request', 'request']);
    expect(audit.at(-1)).toMatchObject({ event: 'request', worker: 'w1', toolName: 'Bash', reason: 'asked again: the decision did not match this request' });
    await clearOrphaned(team(), id, { force: true });
    expect(await asking.result).toMatchObject({ decision: 'deny', by: 'team-lead', source: 'withdrawn' });
  });

  it('a forged file and a pending file removed by hand: not asked again, a withdrawn deny', async () => {
    const asking = ask();
    const id = await asking.id;
    await writeFileAtomic(h.paths.resolvedFile(id), formatJson({ ...signedResolved(id), signature: undefined }));
    await fs.rm(h.paths.pendingFile(id));
    expect(await asking.result).toMatchObject({ decision: 'deny', by: 'unknown', source: 'withdrawn' });
    expect(kinds(asking.events)).toEqual(['requested', 'rejected']);
    expect(await ls(h.paths.pending)).toEqual([]);
    expect((await auditFor(h.paths, id)).map((e) => e.event)).toEqual(['request', 'forged', 'cancelled']);
  });
});

describe('without onEvent', () => {
  it('a broken rule, forged carriers, asking again, and answers by frame and by file all run with nobody listening', async () => {
    await updateTeam(team(), (c) => void (c.swarm = { rules: { allow: ['Bash(npm test'], deny: [] } }));
    const pendingId = (not?: string): Promise<string> =>
      waitFor(async () => (await ls(h.paths.pending)).find((n) => n.endsWith('.json') && n !== `${not}.json`)?.slice(0, -'.json'.length), 10_000, 'a pending file');
    const asking = requestPermission({ ...h.base });
    const id = await pendingId();
    const record = JSON.parse(await fs.readFile(h.paths.pendingFile(id), 'utf8')) as Record<string, unknown>;
    await writeFileAtomic(h.paths.pendingFile(id), formatJson({ ...record, input: { command: 'echo INJECTED' } }));
    await decide(team(), id, 'allow'); // forged file and forged frame for this worker: it asks again
    await waitFor(async () => (await auditFor(h.paths, id)).filter((e) => e.event === 'request').length === 2, 10_000, 'asked again');
    await (await lead()).append(allowFrame(id));
    expect(await asking).toMatchObject({ decision: 'allow', id, source: 'inbox' });
    const byFile = requestPermission({ ...h.base });
    const id2 = await pendingId(id); // the first one's record, put back, is still there: only a decision removes it
    await writeFileAtomic(h.paths.resolvedFile(id2), formatJson(signedResolved(id2)));
    expect(await byFile).toMatchObject({ decision: 'allow', id: id2, source: 'resolved' });
  });
});

