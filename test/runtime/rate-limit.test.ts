// The team-wide rate-limit backoff (runtime/rate-limit.ts): two members' gates on one real team
// directory (a 429 of one makes the other wait, the later `until` wins, expired and corrupt files
// do not stop anyone), and end to end with two real teammate processes and the stand-in: bob's
// next request reaches the API only after alice's retry-after has passed.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RateLimitSchema, type RateLimit } from '../../src/protocol/rate-limit.js';
import { createTeamBackoff, type TeamBackoff } from '../../src/runtime/rate-limit.js';
import type { TranscriptEvent } from '../../src/runtime/transcript.js';
import { createTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { logLines, setupRuntime, waitFor, waitForControl } from '../support/runtime-harness.js';
import { useTempRoot } from '../support/tmp-root.js';

let team: Team;
useTempRoot(async (root) => {
  team = (await createTeam(root, { name: 't', cwd: root })).team;
});

interface Member {
  gate: TeamBackoff;
  waits: string[];
  warnings: string[];
  events: TranscriptEvent[];
}

function member(name: string): Member {
  const m: Member = { waits: [], warnings: [], events: [], gate: undefined as unknown as TeamBackoff };
  m.gate = createTeamBackoff(team, name, {
    view: { waiting: (t) => m.waits.push(t), warn: (t) => m.warnings.push(t) },
    transcript: { append: (e) => m.events.push(e) },
  });
  return m;
}

async function readLimit(): Promise<RateLimit> {
  return RateLimitSchema.parse(JSON.parse(await fs.readFile(team.paths.rateLimit, 'utf8')));
}

const rateLimited = (delayMs: number) => ({ attempt: 1, delayMs, why: 'rate limited (429): slow down', status: 429 });

describe('team rate-limit backoff between two members', () => {
  it("A's 429 makes B's next attempt wait out A's delay; the later until wins; A waits its own out silently", async () => {
    const alice = member('alice');
    const bob = member('bob');
    await alice.gate.failed(rateLimited(2000));
    const written = await readLimit();
    expect(written).toMatchObject({ by: 'alice', status: 429 });
    expect(written.until - written.at).toBe(2000);
    // An earlier until does not replace a later one, whoever writes it.
    await bob.gate.failed(rateLimited(300));
    expect(await readLimit()).toEqual(written);

    const started = Date.now();
    await bob.gate.beforeAttempt();
    const done = Date.now();
    expect(done).toBeGreaterThanOrEqual(written.until);
    expect(done - started).toBeGreaterThanOrEqual(1500); // most of the 2 s was still ahead of B
    expect(bob.waits).toEqual([expect.stringMatching(/^team rate-limited \(429 seen by alice\): waiting \d+\.\d s$/)]);
    expect(bob.events).toEqual([expect.objectContaining({ kind: 'team_rate_limit', by: 'alice', status: 429, until: written.until })]);

    // A later until replaces it; its writer waits without a team line (its retry line says it).
    await bob.gate.failed(rateLimited(200));
    expect(await readLimit()).toMatchObject({ by: 'bob' });
    await bob.gate.beforeAttempt();
    expect(bob.waits).toHaveLength(1);
    expect(Date.now()).toBeGreaterThanOrEqual((await readLimit()).until);
    // Expired: nobody waits, nothing is shown.
    const before = Date.now();
    await alice.gate.beforeAttempt();
    expect(Date.now() - before).toBeLessThan(1000);
    expect(alice.waits).toEqual([]);
    expect([...alice.warnings, ...bob.warnings]).toEqual([]);
  });

  it('only a 429 is shared: a 529 or a network error is waited out alone', async () => {
    const alice = member('alice');
    await alice.gate.failed({ attempt: 1, delayMs: 5000, why: 'overloaded (529)', status: 529 });
    await alice.gate.failed({ attempt: 1, delayMs: 5000, why: 'network error: refused' });
    await expect(fs.access(team.paths.rateLimit)).rejects.toThrow();
  });

  it('a corrupt file is kept aside and reported, and the member goes on', async () => {
    const bob = member('bob');
    await fs.writeFile(team.paths.rateLimit, '{"until": "soon"');
    await bob.gate.beforeAttempt();
    expect(bob.warnings).toEqual([expect.stringMatching(/^team rate limit: .*ratelimit\.json was corrupt \(invalid JSON.*kept as .*ratelimit\.json\.corrupt-\d+.*; going on without waiting$/)]);
    const kept = (await fs.readdir(path.dirname(team.paths.rateLimit))).filter((n) => n.startsWith('ratelimit.json.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(await fs.readFile(path.join(path.dirname(team.paths.rateLimit), kept[0]!), 'utf8')).toBe('{"until": "soon"');

    // Recording over a corrupt file keeps it aside too and starts a fresh one.
    await fs.writeFile(team.paths.rateLimit, '{"until": 1}');
    await bob.gate.failed(rateLimited(100));
    expect(bob.warnings[1]).toMatch(/ratelimit\.json was corrupt \(unexpected shape at by.*\); kept as .*, going on$/);
    expect(await readLimit()).toMatchObject({ by: 'bob', status: 429 });
  });

  it('a wait ends at once when the stop signal fires', async () => {
    const alice = member('alice');
    const bob = member('bob');
    await alice.gate.failed(rateLimited(30_000));
    const stop = new AbortController();
    const waiting = bob.gate.beforeAttempt(stop.signal);
    await waitFor(() => bob.waits.length > 0, 5000, "bob's wait line");
    stop.abort();
    await expect(waiting).rejects.toThrow(/abort/i);
  });
});

describe('team rate-limit backoff between teammate processes', () => {
  it("bob's next request reaches the stand-in only after alice's retry-after has passed", async () => {
    const env = await setupRuntime(
      {
        turns: [
          { match: { agent: 'alice' }, error: { status: 429, retryAfter: 2 } },
          { match: { agent: 'alice' }, reply: 'alice done' },
          { match: { agent: 'bob' }, reply: 'bob done' },
        ],
      },
      { members: [{ name: 'alice' }, { name: 'bob' }] },
    );
    const bob = env.startAs('bob');
    await env.lead.append('alice', { from: 'team-lead', text: 'Go' });
    env.startAs('alice');
    // Bob's work arrives once alice's 429 is on file (bob was running and idle all along).
    const limit = await waitFor(async () => (await fs.readFile(env.paths.rateLimit, 'utf8').catch(() => '')) || undefined, 10_000, 'ratelimit.json');
    const recorded = RateLimitSchema.parse(JSON.parse(limit));
    await env.lead.append('bob', { from: 'team-lead', text: 'Go' });

    await waitForControl(env, 'team-lead', 'idle_notification', 2);
    const requests = env.server.requests.map((r) => ({ agent: r.agent, status: r.status, at: r.receivedAt }));
    const alice429 = requests.find((r) => r.agent === 'alice' && r.status === 429)!;
    const bobs = requests.filter((r) => r.agent === 'bob');
    expect(recorded).toMatchObject({ by: 'alice', status: 429 });
    expect(bobs.map((r) => r.status)).toEqual([200]);
    expect(bobs[0]!.at).toBeGreaterThanOrEqual(alice429.at + 2000);
    expect(bobs[0]!.at).toBeGreaterThanOrEqual(recorded.until);
    const waited = (await logLines(env, 'bob')).filter((l) => l.kind === 'team_rate_limit');
    expect(waited).toEqual([expect.objectContaining({ by: 'alice', status: 429, until: recorded.until })]);
    expect(bob.output()).toMatch(/team rate-limited \(429 seen by alice\): waiting \d\.\d s/);
  });
});
