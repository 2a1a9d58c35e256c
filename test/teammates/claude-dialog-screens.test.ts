// Claude Code's first-run dialogs on a `--runtime claude` teammate's screen, in process: the
// recogniser (teammates/claude-dialogs.ts) on screens read off the real Claude Code 2.1.112, the
// one-time fix, and the watch spawn keeps on the pane (teammates/dialog-watch.ts) with a scripted
// screen: one notice per dialog, the fix told once, the ready deadline stretched for a person to
// answer and started again once it is answered, the screen read once a second at most.
// The spawns that show them for real are in claude-dialogs.test.ts.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Backend, PaneOutput, PaneRef } from '../../src/backends/backend.js';
import { claudeSeedFix, recognizeClaudeDialog } from '../../src/teammates/claude-dialogs.js';
import { DialogWatch } from '../../src/teammates/dialog-watch.js';
import { tempRoot } from '../support/tmp-root.js';

/** Lines as `capture` returns them: non-blank, right-trimmed. */
const screen = (text: string): string[] => text.split('\n').map((l) => l.trimEnd()).filter((l) => l !== '');

describe('recognizeClaudeDialog (screens of Claude Code 2.1.112)', () => {
  it('names the API key, trust, onboarding and login screens, also when Claude Code wrapped a phrase', () => {
    const apiKey = screen(`
  Detected a custom API key in your
  environment
  ANTHROPIC_API_KEY:
  sk-ant-...00000000000000000000
  Do you want to use this API key?
    1. Yes
  ❯ 2. No (recommended) ✔
  Enter to confirm · Esc to cancel`);
    const trust = screen(`
 Accessing workspace:
 /tmp/ccx/work-c
 Quick safety check: Is this a project you created or one you trust? (Like your own code, a well-known open source
 project, or work from your team). If not, take a moment to review what's in this folder first.
 Claude Code'll be able to read, edit, and execute files here.
 Security guide
 ❯ 1. Yes, I trust this folder
   2. No, exit
 Enter to confirm · Esc to cancel`);
    const theme = screen(`
 Let's get started.
 Choose the text style that looks best with your terminal
 To change this later, run /theme
   1. Auto (match terminal)
 ❯ 2. Dark mode ✔`);
    expect(recognizeClaudeDialog(apiKey)?.id).toBe('api-key');
    expect(recognizeClaudeDialog(apiKey.filter((l) => !l.includes('Do you want')))?.id).toBe('api-key'); // the wrapped first line alone
    expect(recognizeClaudeDialog(trust)?.id).toBe('trust');
    expect(recognizeClaudeDialog(theme)?.id).toBe('onboarding');
    expect(recognizeClaudeDialog(['Select login method:', '❯ 1. Claude account with subscription'])).toMatchObject({ id: 'login', hint: expect.stringContaining('ANTHROPIC_API_KEY') });
    expect(recognizeClaudeDialog(screen('❯ \n  ? for shortcuts'))).toBeUndefined(); // the ready prompt
    // A phrase wrapped at the pane's edge with nothing before the second part still reads as one.
    expect(recognizeClaudeDialog(['Detected a custom API key in your', 'environment'])?.id).toBe('api-key');
    // Each is named in the notice as what it is.
    expect([apiKey, theme, ['Select login method:']].map((l) => recognizeClaudeDialog(l)?.what)).toEqual([
      'API key dialog ("Detected a custom API key in your environment … Do you want to use this API key?")',
      'first-run onboarding (theme) screen ("Choose the text style that looks best with your terminal")',
      'login screen ("Select login method")',
    ]);
    // Only the bottom of the screen counts: an answered dialog scrolled far up is not waiting.
    expect(recognizeClaudeDialog([...trust, ...Array.from({ length: 25 }, (_, i) => `line ${i}`)])).toBeUndefined();
  });

  it('the fix names the state file and the real cwd, never the key itself', () => {
    const [say, json] = claudeSeedFix({ stateFile: '/c/.claude.json', realCwd: '/w', hasApiKey: true });
    expect(say).toContain('/c/.claude.json');
    expect(JSON.parse(json!)).toEqual({
      hasCompletedOnboarding: true,
      customApiKeyResponses: { approved: ['<last 20 characters of $ANTHROPIC_API_KEY>'] },
      projects: { '/w': { hasTrustDialogAccepted: true } },
    });
    expect(JSON.parse(claudeSeedFix({ stateFile: '/c/.claude.json', realCwd: '/w', hasApiKey: false })[1]!)).not.toHaveProperty('customApiKeyResponses');
  });
});

const TRUST = screen(`
 Accessing workspace:
 Quick safety check: Is this a project you created or one you trust?
 ❯ 1. Yes, I trust this folder
   2. No, exit`);
const API_KEY = screen(`
  Detected a custom API key in your environment
  Do you want to use this API key?`);
const READY = screen('❯ \n  ? for shortcuts');

describe('DialogWatch (the pane spawn waits on)', () => {
  afterEach(() => vi.useRealTimers());

  /** A pane whose screen the test sets; counts the reads. */
  function pane(): { backend: Backend; show: (lines: string[] | Error) => void; reads: () => number } {
    let shown: string[] | Error = [];
    let reads = 0;
    const backend = {
      capture: async (_p: PaneRef, lines: number): Promise<PaneOutput> => {
        reads += 1;
        expect(lines).toBe(20);
        if (shown instanceof Error) throw shown;
        return { lines: shown };
      },
      howToReach: () => 'tmux attach -t swarm-cc',
    } as unknown as Backend;
    return { backend, show: (l) => (shown = l), reads: () => reads };
  }

  it('a dialog: one notice with the way to the pane and the fix, the deadline stretched; answered, a fresh ready timeout from then', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(1_000_000);
    const dir = await tempRoot('swarm-dw-');
    const real = path.join(dir, 'real');
    await fs.mkdir(real);
    await fs.symlink(real, path.join(dir, 'link'));
    const p = pane();
    const notices: string[] = [];
    const watch = new DialogWatch({ backend: p.backend, pane: { paneId: '%1', backendType: 'tmux' }, name: 'c1', cwd: path.join(dir, 'link'), env: { CLAUDE_CONFIG_DIR: '/c', ANTHROPIC_API_KEY: 'sk-x' }, waitMs: 300_000, onNotice: (t) => notices.push(t) });
    const deadline = 1_000_000 + 30_000;

    p.show(READY);
    expect(await watch.check(deadline, 30_000)).toBe(deadline); // nothing shown: as it was
    p.show(TRUST);
    expect(await watch.check(deadline, 30_000)).toBe(deadline); // within a second of the last look: not read
    expect(p.reads()).toBe(1);
    vi.setSystemTime(1_001_000);
    expect(await watch.check(deadline, 30_000)).toBe(1_001_000 + 300_000);
    expect(watch.showing?.id).toBe('trust');
    expect(notices).toHaveLength(1);
    const [first, waiting, fix, json] = notices[0]!.split('\n');
    expect(first).toBe(`c1 is waiting on Claude Code's folder trust dialog ("Is this a project you created or one you trust?"); answer it in its pane: tmux attach -t swarm-cc`);
    expect(waiting).toBe('(spawn keeps waiting for the answer, up to 5 min)');
    expect(fix).toContain('/c/.claude.json');
    expect(JSON.parse(json!)).toMatchObject({ customApiKeyResponses: expect.anything(), projects: { [real]: { hasTrustDialogAccepted: true } } }); // the real path, as Claude Code keys it
    // Still shown: no second notice, no more time.
    vi.setSystemTime(1_002_000);
    expect(await watch.check(1_301_000, 30_000)).toBe(1_301_000);
    expect(notices).toHaveLength(1);
    // Another dialog: its own notice, the fix not again.
    vi.setSystemTime(1_003_000);
    p.show(API_KEY);
    expect(await watch.check(1_301_000, 30_000)).toBe(1_303_000);
    expect(notices[1]!.split('\n')).toHaveLength(2);
    // Answered: the ready timeout starts again from now, never earlier than the deadline it had.
    vi.setSystemTime(1_004_000);
    p.show(READY);
    expect(await watch.check(1_303_000, 30_000)).toBe(1_303_000);
    expect(watch.showing).toBeUndefined();
    vi.setSystemTime(1_005_000);
    p.show(TRUST);
    expect(await watch.check(1_000_000, 30_000)).toBe(1_305_000);
    vi.setSystemTime(1_006_000);
    p.show(READY);
    expect(await watch.check(1_000_000, 30_000)).toBe(1_036_000);
    vi.setSystemTime(1_007_000);
    expect(await watch.check(1_100_000, 30_000)).toBe(1_100_000);
    expect(notices).toHaveLength(3);
  });

  it('a wait of a minute or more is said in minutes', async () => {
    const p = pane();
    const notices: string[] = [];
    const watch = new DialogWatch({ backend: p.backend, pane: { paneId: '%1', backendType: 'tmux' }, name: 'c1', cwd: '/w', env: {}, waitMs: 60_000, onNotice: (t) => notices.push(t) });
    p.show(TRUST);
    await watch.check(Date.now(), 30_000);
    expect(notices[0]!.split('\n')[1]).toBe('(spawn keeps waiting for the answer, up to 1 min)');
  });

  it('a screen that cannot be read is no dialog; a wait under a minute is said in seconds, the login hint shown', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(2_000_000);
    const p = pane();
    const notices: string[] = [];
    const watch = new DialogWatch({ backend: p.backend, pane: { paneId: '%1', backendType: 'tmux' }, name: 'c1', cwd: '/nonexistent/dir', env: { CLAUDE_CONFIG_DIR: '/c' }, waitMs: 45_000, onNotice: (t) => notices.push(t) });
    p.show(new Error('capture failed'));
    expect(await watch.check(2_010_000, 30_000)).toBe(2_010_000);
    vi.setSystemTime(2_001_000);
    p.show(['Select login method:']);
    expect(await watch.check(2_010_000, 30_000)).toBe(2_046_000);
    const lines = notices[0]!.split('\n');
    expect(lines[1]).toBe('(spawn keeps waiting for the answer, up to 45 s)');
    expect(lines[2]).toContain('set ANTHROPIC_API_KEY');
    expect(JSON.parse(lines[4]!)).toEqual({ hasCompletedOnboarding: true, projects: { '/nonexistent/dir': { hasTrustDialogAccepted: true } } }); // no key: no approval; a path that does not resolve as given
  });
});
