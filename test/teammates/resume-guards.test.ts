// Resume's guards in process (the mutation run's tests of teammates/resume.ts; `swarm resume` itself
// is tested through the CLI in test/cli/commands/resume.test.ts): who may be resumed and the one-line
// refusal of each other state, the checks under the spawn lock, and that a failed resume leaves the
// member stopped as it was. The members' processes are real (`sleep`, or the pid of one that has
// exited); the pane backend is a stand-in whose new "pane" is a live `sleep` that writes its status
// file as a swarm teammate does, so readiness is the real handshake.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Backend, PaneRef, PaneSpec, PaneState } from '../../src/backends/backend.js';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { openLeadMailbox } from '../../src/permissions/lead-mailbox.js';
import type { Member } from '../../src/protocol/config.js';
import { SwarmError } from '../../src/protocol/errors.js';
import { claudeTranscript } from '../../src/team/paths.js';
import { addMember, readTeam, updateMember, updateTeam } from '../../src/team/team-store.js';
import { Team } from '../../src/team/team.js';
import { membersToResume, resumeTeammates, type ResumeOptions, type ResumeResult } from '../../src/teammates/resume.js';
import { deadPid, startSleeper, writeStatus } from '../support/team-fixture.js';
import { standInPanes, useStandInTeam, type StandInPanes } from '../support/stand-in-panes.js';
import { tmuxForThisTest } from '../support/tmux.js';

const TEAM = 't';
let root: string;
let team: Team;
let cwd: string;
useStandInTeam('swarm-resume-cwd-', (s) => ({ root, team, cwd } = s));

/** A member whose process has exited and whose pane is gone: `stopped`. */
async function stopped(name: string, extra: Partial<Member> = {}): Promise<void> {
  await addMember(team, { name, cwd, runtime: 'swarm' });
  await updateMember(team, name, { pid: await deadPid(), ...extra });
}

/** The stand-in pane backend (test/support/stand-in-panes.ts); its new panes are `%new1`, `%new2` … */
const panes = (o: { create?: (spec: PaneSpec) => Promise<PaneRef>; old?: PaneState } = {}): StandInPanes => standInPanes(team, { ...o, paneIds: 'new' });

function options(backend: Backend, names: readonly string[], extra: Partial<ResumeOptions> = {}): ResumeOptions & { names: readonly string[] } {
  return {
    team,
    names,
    backend,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    inspectTranscript: async () => 3,
    readyTimeoutMs: 5000,
    swarmExecutable: ['swarm'],
    which: (c) => `/usr/local/bin/${c}`,
    ...extra,
  };
}

const refusal = (r: ResumeResult | undefined): string => (r !== undefined && !r.ok ? r.error.message : `not refused: ${JSON.stringify(r)}`);
const member = async (name: string): Promise<Member> => (await readTeam(team)).members.find((m) => m.name === name)!;

describe('membersToResume: who may be resumed', () => {
  it('none named: every stopped teammate, not a hibernating one (it wakes on its next message)', async () => {
    await stopped('w1');
    await stopped('w2', { hibernatedAt: 1 });
    await stopped('w3');
    expect(await membersToResume(team, [], {})).toEqual(['w1', 'w3']);
  });

  it('named: a stopped or a hibernating one, under its roster spelling', async () => {
    await stopped('w1');
    await stopped('w2', { hibernatedAt: 1 });
    expect(await membersToResume(team, ['W2', 'w1'], {})).toEqual(['w2', 'w1']);
  });

  it('each other state is refused in one line that says why and what to do', async () => {
    await stopped('w1');
    const socket = tmuxForThisTest(); // no server is started on it: a pane recorded there is gone
    const refused = async (name: string): Promise<[string, string]> => {
      const e = await membersToResume(team, ['w1', name], { SWARM_TMUX_SOCKET: socket }).then(
        () => undefined,
        (x: unknown) => x,
      );
      if (!(e instanceof SwarmError)) throw new Error(`${name}: not refused`);
      return [e.kind, e.message];
    };
    expect(await refused('nobody')).toEqual(['not_found', 'no teammate nobody in team t (swarm status lists them)']);
    expect(await refused('team-lead')).toEqual(['not_found', 'no teammate team-lead in team t (swarm status lists them)']);

    const running = await startSleeper();
    await addMember(team, { name: 'run', cwd });
    await updateMember(team, 'run', { pid: running });
    await writeStatus(root, TEAM, 'run', { pid: running, state: 'working' });
    expect(await refused('run')).toEqual(['exists', `run is already running (pid ${running}, working): only a stopped member (process and pane gone) can be resumed`]);

    const starting = await startSleeper();
    await addMember(team, { name: 'new', cwd, runtime: 'swarm' });
    await updateMember(team, 'new', { pid: starting });
    expect(await refused('new')).toEqual(['exists', `new is already being started (pid ${starting}, starting): only a stopped member (process and pane gone) can be resumed`]);

    const lost = await startSleeper();
    await addMember(team, { name: 'lost', cwd });
    await updateMember(team, 'lost', { pid: lost, tmuxPaneId: '%9', backendType: 'tmux' });
    expect(await refused('lost')).toEqual(['invalid_input', `lost is dead, not stopped: its pane is gone but its process ${lost} still runs; stop it first (swarm kill lost --team t)`]);

    await addMember(team, { name: 'odd', cwd, runtime: 'claude' }); // no pid, no pane, no status: nothing to tell
    expect(await refused('odd')).toEqual(['invalid_input', 'odd is unknown, not stopped: only a stopped member (process and pane gone) can be resumed']);
  });
});

describe('resumeTeammates: under the spawn lock', () => {
  it('a stopped swarm teammate comes back in a new pane, recorded, active, awake; its exited pane closed once the new one is ready', async () => {
    await stopped('w1', { tmuxPaneId: '%old', backendType: 'tmux', hibernatedAt: 5, isActive: false });
    await new Mailbox({ team }).append('w1', { from: 'team-lead', text: 'while you were away' });
    const backend = panes({ old: 'dead' });
    const settled: string[] = [];
    const [r] = await resumeTeammates(options(backend, ['w1']), (x) => settled.push(x.name));
    expect(r).toMatchObject({ ok: true, name: 'w1', runtime: 'swarm', restored: 3, continued: false, unread: 1, teammate: { name: 'w1', paneId: '%new1', backendType: 'tmux' } });
    expect(settled).toEqual(['w1']);
    expect(backend.probed).toEqual(['%old']);
    expect(backend.kills).toEqual(['%old']);
    const m = await member('w1');
    expect(m).toMatchObject({ tmuxPaneId: '%new1', backendType: 'tmux', isActive: true });
    expect(m).not.toHaveProperty('hibernatedAt');
    expect(m).not.toHaveProperty('sessionId'); // a swarm teammate has no Claude Code session
    const argv = backend.made[0]!.argv;
    expect(argv).toContain('--resume');
    // It verifies its leader by the team's lead session and key.
    const config = await readTeam(team);
    expect(argv[argv.indexOf('--parent-session-id') + 1]).toBe(config.leadSessionId);
    expect(argv[argv.indexOf('--lead-verify-key') + 1]).toBe((await openLeadMailbox({ team })).key.verifyKey);
  });

  it('a member recorded without a runtime (an older roster) is a swarm teammate; an old pane that cannot be probed is left alone', async () => {
    await stopped('w1', { tmuxPaneId: '%old', backendType: 'tmux' });
    await updateTeam(team, (c) => void delete c.members.find((m) => m.name === 'w1')!.runtime);
    const backend = panes();
    backend.probe = async () => Promise.reject(new Error('tmux: protocol version mismatch'));
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(r, refusal(r)).toMatchObject({ ok: true, runtime: 'swarm' });
    expect(backend.kills).toEqual([]);
  });

  it('an old pane that is not shown as exited, or of another backend kind, is left alone', async () => {
    await stopped('w1', { tmuxPaneId: '%old', backendType: 'tmux' });
    await stopped('w2', { tmuxPaneId: '%old2', backendType: 'iterm2' });
    const backend = panes({ old: 'gone' });
    const results = await resumeTeammates(options(backend, ['w1', 'w2']));
    expect(results.map((r) => r.ok)).toEqual([true, true]);
    expect(backend.probed).toEqual(['%old']);
    expect(backend.kills).toEqual([]);
  });

  it('a member started meanwhile, or removed meanwhile, is refused and nothing starts', async () => {
    const pid = await startSleeper();
    await addMember(team, { name: 'w1', cwd });
    await updateMember(team, 'w1', { pid });
    await writeStatus(root, TEAM, 'w1', { pid, state: 'idle' });
    const backend = panes();
    const [busy, gone] = await resumeTeammates(options(backend, ['w1', 'w9']));
    expect(refusal(busy)).toBe(`resume of w1 failed: w1 is already running (pid ${pid}, idle): only a stopped member (process and pane gone) can be resumed`);
    expect(refusal(gone)).toBe('resume of w9 failed: w9 is no longer a member of team t');
    expect(backend.made).toEqual([]);
  });

  it('an unknown runtime, a transcript that cannot be restored, a cwd that is gone: refused in one line, nothing started', async () => {
    await stopped('odd', { runtime: 'gpt' });
    await stopped('bad');
    await stopped('moved', { cwd: path.join(cwd, 'gone') });
    await stopped('tree', { cwd: path.join(cwd, 'gone'), worktreePath: path.join(cwd, 'wt') });
    const backend = panes();
    const inspectTranscript = async (file: string): Promise<number> => {
      if (file.endsWith('bad.jsonl')) throw new SwarmError('corrupt', `${file}: line 2 is not JSON`);
      return 0;
    };
    const results = await resumeTeammates(options(backend, ['odd', 'bad', 'moved', 'tree'], { inspectTranscript }));
    expect(results.map(refusal)).toEqual([
      'resume of odd failed: its runtime "gpt" is unknown',
      `resume of bad failed: ${team.paths.log('bad')}: line 2 is not JSON`,
      `resume of moved failed: its cwd ${path.join(cwd, 'gone')} no longer exists; recreate it, or remove the member (swarm kill moved --team t)`,
      `resume of tree failed: its cwd ${path.join(cwd, 'gone')} no longer exists (its worktree ${path.join(cwd, 'wt')} was removed?); recreate it, or remove the member (swarm kill tree --team t)`,
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.error.kind))).toEqual(['invalid_input', 'corrupt', 'invalid_input', 'invalid_input']);
    expect(backend.made).toEqual([]);
  });

  it('on another machine the cwd is not checked here', async () => {
    await stopped('w1', { cwd: path.join(cwd, 'only-there') });
    const backend = { ...panes({ create: async () => Promise.reject(new SwarmError('backend', 'no such host')) }), remoteProcesses: true };
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(refusal(r)).toBe('resume of w1 failed: no such host');
    expect(backend.made).toHaveLength(1);
  });

  it('a claude teammate with no session to go on and no prompt recorded cannot be restarted', async () => {
    await stopped('w1', { runtime: 'claude' });
    const backend = panes();
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(refusal(r)).toBe('resume of w1 failed: config.json records no prompt for it, so a claude teammate cannot be restarted');
    expect(backend.made).toEqual([]);
  });

  it('a pane that cannot be made: the claude prompt sent again is taken back (only it), the member is as it was', async () => {
    await stopped('w1', { runtime: 'claude', prompt: 'write the report', tmuxPaneId: '%old', backendType: 'tmux' });
    await new Mailbox({ team }).append('w1', { from: 'w2', text: 'still unread for it' });
    const before = await member('w1');
    const backend = panes({ create: async () => Promise.reject(new Error('tmux: no server running')) });
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(refusal(r)).toBe('resume of w1 failed: tmux: no server running');
    expect(r!.ok === false && r!.error.kind).toBe('backend');
    const inbox = await new Mailbox({ team }).read('w1');
    expect(inbox.map((m) => [m.text, m.read])).toEqual([
      ['still unread for it', false],
      ['write the report', true],
    ]);
    expect(await member('w1')).toEqual(before);
  });

  it('a teammate that dies before it is ready: its pane killed, the member put back as it was, still stopped (or hibernating)', async () => {
    await stopped('w1', { tmuxPaneId: '%old', backendType: 'tmux', isActive: false });
    await stopped('w2', { tmuxPaneId: '%old2', backendType: 'tmux', hibernatedAt: 7 });
    const before = [await member('w1'), await member('w2')];
    let n = 0;
    const backend = panes({ create: async () => ({ paneId: `%dies${++n}`, backendType: 'tmux', pid: await deadPid() }) });
    const results = await resumeTeammates(options(backend, ['w1', 'w2']));
    expect(results.map((r) => refusal(r).split('\n')[0])).toEqual([
      'resume of w1 failed: w1 exited before it was ready; w1 is still stopped',
      'resume of w2 failed: w2 exited before it was ready; w2 is still hibernating',
    ]);
    expect(backend.kills.sort()).toEqual(['%dies1', '%dies2']);
    expect([await member('w1'), await member('w2')]).toEqual(before);
  });

  it('a failed resume puts nothing back once the roster names another pane', async () => {
    await stopped('w1', { tmuxPaneId: '%old', backendType: 'tmux' });
    const backend = panes({ create: async () => ({ paneId: '%dies', backendType: 'tmux', pid: await deadPid() }) });
    // Another resume records its pane after ours is recorded and before ours is undone: readiness
    // asks whether our pane lives only once it is recorded. (A setImmediate from createPane raced
    // the recording itself on a loaded machine, and came first once.)
    const isAlive = backend.isAlive;
    backend.isAlive = async (pane) => {
      if (pane.paneId === '%dies' && (await member('w1')).tmuxPaneId === '%dies') await updateMember(team, 'w1', { tmuxPaneId: '%other' });
      return isAlive(pane);
    };
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(refusal(r).split('\n')[0]).toBe('resume of w1 failed: w1 exited before it was ready; w1 is still stopped');
    expect((await member('w1')).tmuxPaneId).toBe('%other');
  });

  it('a stderr log is part of the refusal', async () => {
    await stopped('w1');
    const backend = panes({
      create: async (spec) => {
        await fs.writeFile(spec.stderrLog!, 'fatal: cannot read logs/w1.jsonl\n');
        return { paneId: '%dies', backendType: 'tmux', pid: await deadPid() };
      },
    });
    const [r] = await resumeTeammates(options(backend, ['w1']));
    expect(refusal(r)).toContain('fatal: cannot read logs/w1.jsonl');
  });
});

describe('resume of a claude teammate (its Claude Code session)', () => {
  const SESSION = '0b7e4a3c-6f1d-4b2a-9c8e-1d2f3a4b5c6d';

  /** A claude member stopped with its session's transcript under this root (or not). */
  async function stoppedClaude(o: { transcript: boolean; sessionId?: string }): Promise<string> {
    const sessionId = o.sessionId ?? SESSION;
    await stopped('c1', { runtime: 'claude', prompt: 'write the report', sessionId, tmuxPaneId: '%old', backendType: 'tmux' });
    const transcript = claudeTranscript(root, cwd, sessionId);
    if (o.transcript) {
      await fs.mkdir(path.dirname(transcript), { recursive: true });
      await fs.writeFile(transcript, '{"type":"user"}\n');
    }
    return transcript;
  }

  /** Its new "pane": a live process; `writes` appends to its transcript as Claude Code does once it runs. */
  const claudePanes = (transcript: string, o: { writes: boolean; takePrompt?: boolean }): StandInPanes =>
    standInPanes(team, {
      paneIds: 'new',
      ...(o.takePrompt ? { takePrompt: true } : {}),
      started: () => {
        if (o.writes) setTimeout(() => void fs.appendFile(transcript, '{"type":"assistant"}\n'), 100);
      },
    });

  it('goes on with its session when its transcript is here: --resume <id>, no prompt sent again, ready once the transcript grows', async () => {
    const transcript = await stoppedClaude({ transcript: true });
    await new Mailbox({ team }).append('c1', { from: 'w2', text: 'unread for it' });
    const backend = claudePanes(transcript, { writes: true });
    const [r] = await resumeTeammates(options(backend, ['c1']));
    expect(r, refusal(r)).toMatchObject({ ok: true, runtime: 'claude', continued: true, unread: 1, restored: 0 });
    const argv = backend.made[0]!.argv;
    expect(argv.slice(argv.indexOf('--resume'), argv.indexOf('--resume') + 2)).toEqual(['--resume', SESSION]);
    expect(argv).not.toContain('--session-id');
    expect((await new Mailbox({ team }).read('c1')).map((m) => m.text)).toEqual(['unread for it']); // the prompt not sent again
    expect(await member('c1')).toMatchObject({ sessionId: SESSION, tmuxPaneId: '%new1', isActive: true });
  });

  it('a session it cannot go on with (no transcript here, or no session id): a new session, its prompt sent again after what is unread', async () => {
    for (const [i, o] of [{ transcript: false }, { transcript: true, sessionId: 'not-a-uuid' }].entries()) {
      if (i > 0) await updateTeam(team, (c) => void c.members.splice(1));
      const transcript = await stoppedClaude(o);
      await new Mailbox({ team }).append('c1', { from: 'w2', text: 'unread for it' });
      const backend = claudePanes(transcript, { writes: false, takePrompt: true });
      const [r] = await resumeTeammates(options(backend, ['c1']));
      expect(r, JSON.stringify(o)).toMatchObject({ ok: true, runtime: 'claude', continued: false });
      const argv = backend.made[0]!.argv;
      expect(argv).not.toContain('--resume');
      const sessionId = argv[argv.indexOf('--session-id') + 1]!;
      expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
      expect(sessionId).not.toBe(o.sessionId ?? SESSION);
      expect(await member('c1')).toMatchObject({ sessionId, isActive: true });
      const inbox = await new Mailbox({ team }).read('c1');
      expect(inbox.slice(-2).map((m) => [m.from, m.text])).toEqual([['w2', 'unread for it'], ['team-lead', 'write the report']]);
      await new Mailbox({ team }).consume('c1');
    }
  });

  it('a session to go on with needs no prompt recorded; the settings file it is started with is written first', async () => {
    const transcript = await stoppedClaude({ transcript: true });
    await updateTeam(team, (c) => void delete c.members.find((m) => m.name === 'c1')!.prompt);
    const backend = claudePanes(transcript, { writes: true });
    const [r] = await resumeTeammates(options(backend, ['c1']));
    expect(r, refusal(r)).toMatchObject({ ok: true, continued: true });
    const argv = backend.made[0]!.argv;
    const settings = argv[argv.indexOf('--settings') + 1]!;
    expect(settings).toBe(team.paths.claudeSettings('c1'));
    expect(JSON.parse(await fs.readFile(settings, 'utf8'))).toMatchObject({ permissions: { allow: expect.arrayContaining([expect.stringContaining('scratchpad')]) } });
  });

  it('one that never becomes ready: the pane killed, the prompt taken back, its session id put back', async () => {
    const transcript = await stoppedClaude({ transcript: false });
    const before = await member('c1');
    const backend = claudePanes(transcript, { writes: false });
    const [r] = await resumeTeammates(options(backend, ['c1'], { readyTimeoutMs: 1500 }));
    expect(refusal(r).split('\n')[0]).toMatch(/^resume of c1 failed: .*c1 is still stopped$/);
    expect(backend.kills).toEqual(['%new1']);
    expect(await member('c1')).toEqual(before);
    expect((await new Mailbox({ team }).read('c1')).map((m) => [m.text, m.read])).toEqual([['write the report', true]]);
  });
});
