// The console says a thing once (cli/console/repeats.ts, status-tracker.ts), in process on a real
// team directory: the same line twice in a row from one source is printed once, and a teammate
// being spawned (starting: its process up, its status file not yet written or saying so) prints no
// status line until it works.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RepeatFilter } from '../../../src/cli/console/repeats.js';
import { StatusTracker } from '../../../src/cli/console/status-tracker.js';
import { addMember, createTeam, updateMember } from '../../../src/team/index.js';
import { Team } from '../../../src/team/team.js';
import { writeStatus } from '../../support/team-fixture.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root: string;
useTempRoot((dir) => (root = dir), 'swarm-repeats-');

describe('RepeatFilter', () => {
  it('drops a line identical to the last one of its source (clock and colours aside); another line in between resets it', () => {
    const f = new RepeatFilter();
    expect(f.fresh('lead', 'lead › Waiting for coder and tester.')).toBe(true);
    expect(f.fresh('coder', '06:30:31 ◆ coder is idle: Task #1 is mine.')).toBe(true);
    expect(f.fresh('lead', 'lead › Waiting for coder and tester.')).toBe(false);
    expect(f.fresh('coder', '06:30:32 \u001b[2m◆\u001b[22m coder is idle: Task #1 is mine.')).toBe(false);
    expect(f.fresh('tester', '06:30:32 ◆ coder is idle: Task #1 is mine.')).toBe(true); // another source
    expect(f.fresh('lead', 'lead › ⏺ TaskList()')).toBe(true);
    expect(f.fresh('lead', 'lead › Waiting for coder and tester.')).toBe(true);
  });
});

describe('StatusTracker', () => {
  it('prints no status line for a teammate still being spawned, then one when it works, and none for a heartbeat', async () => {
    const { team } = await createTeam(root, { name: 't' });
    const printed: string[] = [];
    const tracker = new StatusTracker({ team: new Team(root, 't'), env: { SWARM_TMUX_SOCKET: 'swarm-test-none' }, print: (t) => printed.push(t) });
    await tracker.update(0);
    expect(printed).toEqual(['── no teammates (/spawn <name> <prompt> adds one)']);
    printed.length = 0;
    // Spawned as a swarm teammate: its pane's process is up, no status file yet (starting), then
    // its status file says starting: no news.
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { runtime: 'swarm', pid: process.pid });
    await tracker.update(0);
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'starting' });
    await tracker.update(0);
    expect(printed).toEqual([]);
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'working' });
    await tracker.update(0);
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'working', heartbeatAt: Date.now() + 1 });
    await tracker.update(0);
    expect(printed).toEqual(['── w1 working']);
    // Its figures move with every step: no news by themselves; the next line shows them as they are.
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'working', toolUses: 12, inputTokens: 68_000, outputTokens: 3100 });
    await tracker.update(0);
    expect(printed).toEqual(['── w1 working']);
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'idle', toolUses: 13, inputTokens: 70_000, outputTokens: 3300 });
    await tracker.update(0);
    expect(printed.slice(0, 2)).toEqual(['── w1 working', '── w1 idle (13 tools, 35%, 3.3k out)']); // then the all-idle event
  });

  it('shows a member it knows nothing about (no runtime recorded, no status file) as unknown', async () => {
    const { team } = await createTeam(root, { name: 't' });
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { pid: process.pid });
    const printed: string[] = [];
    await new StatusTracker({ team: new Team(root, 't'), env: { SWARM_TMUX_SOCKET: 'swarm-test-none' }, print: (t) => printed.push(t) }).update(0);
    expect(printed).toEqual(['── w1 unknown']);
  });

  it('a member known to work that reads unknown for a moment (a failed probe) keeps its state on the line: no news', async () => {
    const { team } = await createTeam(root, { name: 't' });
    await addMember(team, { name: 'w1' });
    await updateMember(team, 'w1', { runtime: 'swarm', pid: process.pid });
    await writeStatus(root, 't', 'w1', { pid: process.pid, state: 'working' });
    const printed: string[] = [];
    const tracker = new StatusTracker({ team: new Team(root, 't'), env: { SWARM_TMUX_SOCKET: 'swarm-test-none' }, print: (t) => printed.push(t) });
    await tracker.update(0);
    await updateMember(team, 'w1', { runtime: undefined }); // now it reads unknown: no runtime, its status file aside
    await fs.rm(path.join(root, 'teams', 't', 'status', 'w1.json'));
    await tracker.update(0);
    expect(printed).toEqual(['── w1 working']);
  });
});
