// The lead's inbox rule (runtime/lead/inbox-rule.ts), in process on a real team in a temp root: each
// kind of team-lead's inbox entry becomes the events every front end (console, `run -p`, an MCP
// server) acts on — shown, a question for the person, a verdict once, for the lead only while
// consuming, and a teammate released (verified off the roster) on its shutdown_approved, reported
// unless it was already gone or this process asked for it. Each entry is taken once.
import { beforeEach, describe, expect, it } from 'vitest';
import { encodeControl } from '../../../src/protocol/control.js';
import { InboxMessageSchema, type InboxMessage } from '../../../src/protocol/message.js';
import { LeadInboxRule, type LeadInboxEvent } from '../../../src/runtime/lead/inbox-rule.js';
import { addMember, createTeam, readTeam } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { useTempRoot } from '../../support/tmp-root.js';

const TEAM = 'rule';
let root: string;
useTempRoot((dir) => (root = dir));
beforeEach(async () => {
  await createTeam(root, { name: TEAM });
});

const team = (): Team => new Team(root, TEAM);
let n = 0;
function entry(from: string, text: string): InboxMessage {
  n += 1;
  return InboxMessageSchema.parse({ from, text, timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString() });
}
const at = new Date().toISOString();
const approved = (from: string): InboxMessage => entry(from, encodeControl({ type: 'shutdown_approved', requestId: `shutdown-1@${from}`, from, timestamp: at }));
const rule = (askedHere?: (name: string) => boolean): LeadInboxRule =>
  new LeadInboxRule({ team: team(), stopContext: () => ({ env: { CLAUDE_CONFIG_DIR: root } }), ...(askedHere ? { askedHere } : {}) });
/** The events' kinds, with the question's id and the verdict. */
const kinds = (events: LeadInboxEvent[]): string[] =>
  events.map((e) => (e.kind === 'question' ? `question ${e.id}` : e.kind === 'verdict' ? `verdict ${e.verdict}` : e.kind));
const roster = async (): Promise<string[]> => (await readTeam(team())).members.map((m) => m.name);

describe('the lead inbox rule', () => {
  it('a plain message: shown and for the lead; a verifier\'s verdict once, not again from its idle summary', () => {
    const r = rule();
    expect(kinds(r.take(entry('w1', 'wrote out.txt'), true))).toEqual(['message', 'for-lead']);
    expect(kinds(r.take(entry('verifier', 'checked\nVERDICT: PASS'), true))).toEqual(['message', 'verdict PASS', 'for-lead']);
    const idle = entry('verifier', encodeControl({ type: 'idle_notification', from: 'verifier', timestamp: at, summary: 'checked\nVERDICT: PASS' }));
    expect(kinds(r.take(idle, true))).toEqual(['event', 'for-lead']);
  });

  it('permission and plan requests stay with the person: a question by its request id, never for the lead', () => {
    const permission = entry('w1', encodeControl({ type: 'permission_request', request_id: 'perm-1', agent_id: 'w1@rule', tool_name: 'Bash', tool_use_id: 'toolu_1', description: 'run it', input: { command: 'ls' }, permission_suggestions: [] }));
    const plan = entry('w1', encodeControl({ type: 'plan_approval_request', from: 'w1', timestamp: at, planFilePath: '', planContent: '1. do it', requestId: 'plan-1' }));
    const r = rule();
    expect(kinds(r.take(permission, true))).toEqual(['question perm-1']);
    expect(kinds(r.take(plan, true))).toEqual(['question plan-1']);
  });

  it('other control frames are events for the lead (a rejection included: nothing to release)', () => {
    const rejected = entry('w1', encodeControl({ type: 'shutdown_rejected', requestId: 'shutdown-1@w1', from: 'w1', reason: 'busy', timestamp: at }));
    expect(kinds(rule().take(rejected, true))).toEqual(['event', 'for-lead']);
  });

  it('shutdown_approved while consuming: the teammate is released (off the roster, verified) and its outcome reported', async () => {
    await addMember(team(), { name: 'w1', cwd: root });
    const events = rule().take(approved('w1'), true);
    expect(kinds(events)).toEqual(['event', 'for-lead', 'released']);
    const released = events.find((e) => e.kind === 'released')!;
    expect(released.kind === 'released' && released.name).toBe('w1');
    expect(await (released.kind === 'released' ? released.outcome : undefined)).toMatchObject({ name: 'w1', outcome: 'approved', verified: true });
    expect(await roster()).toEqual(['team-lead']);
  });

  it('a release this process asked for, or of a teammate already gone, is done but has nothing new to report', async () => {
    await addMember(team(), { name: 'w1', cwd: root });
    const asked = rule((name) => name === 'w1').take(approved('w1'), true).find((e) => e.kind === 'released');
    expect(await (asked?.kind === 'released' ? asked.outcome : 'no release')).toBeUndefined();
    expect(await roster()).toEqual(['team-lead']);
    const gone = rule().take(approved('w1'), true).find((e) => e.kind === 'released');
    expect(await (gone?.kind === 'released' ? gone.outcome : 'no release')).toBeUndefined();
  });

  it('watching (not consuming): only shown — nothing for the lead, nobody released', async () => {
    await addMember(team(), { name: 'w1', cwd: root });
    const r = rule();
    expect(kinds(r.take(entry('verifier', 'VERDICT: FAIL'), false))).toEqual(['message', 'verdict FAIL']);
    expect(kinds(r.take(approved('w1'), false))).toEqual(['event']);
    expect(await roster()).toEqual(['team-lead', 'w1']);
  });

  it('each entry is taken once: delivered again (a watcher that took over), it has no events', () => {
    const r = rule();
    const m = entry('w1', 'hello');
    expect(kinds(r.take(m, false))).toEqual(['message']);
    expect(r.take(m, true)).toEqual([]);
    expect(r.take({ ...m, read: true }, true)).toEqual([]);
  });
});
