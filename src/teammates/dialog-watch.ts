// Watching a `--runtime claude` teammate's screen while spawn waits for it (spawn.ts): every
// SCREEN_CHECK_MS the bottom of its pane is read (Backend.capture) and matched against Claude
// Code's first-run dialogs (claude-dialogs.ts). A dialog newly on screen is reported once through
// `onNotice` — which one, how to reach the pane (Backend.howToReach), and, the first time, the
// one-time fix — and gives the ready deadline `waitMs` more; once it is gone (answered) the normal
// ready timeout starts again from then.
import { realpathSync } from 'node:fs';
import type { Backend, PaneOutput, PaneRef } from '../backends/backend.js';
import { claudeCodeStateFile } from '../team/paths.js';
import { DIALOG_SCREEN_LINES, claudeSeedFix, recognizeClaudeDialog, type ClaudeDialog } from './claude-dialogs.js';
import type { Env } from './command-line.js';

const SCREEN_CHECK_MS = 1000;

export interface DialogWatchOptions {
  backend: Backend;
  pane: PaneRef;
  name: string;
  /** The teammate's working directory (absolute): the folder Claude Code asks to trust. */
  cwd: string;
  /** The leader's environment: where Claude Code's state file is, whether a key is set. */
  env: Env;
  /** How long a dialog may wait for someone to answer it. */
  waitMs: number;
  onNotice?: (text: string) => void;
}

export class DialogWatch {
  /** The dialog on screen at the last look, if any. */
  showing: ClaudeDialog | undefined;
  private nextCheck = 0;
  private toldFix = false;

  constructor(private readonly o: DialogWatchOptions) {}

  /** The ready deadline after a look at the screen (when one is due). Never throws. */
  async check(deadline: number, readyTimeoutMs: number): Promise<number> {
    const now = Date.now();
    if (now < this.nextCheck) return deadline;
    this.nextCheck = now + SCREEN_CHECK_MS;
    const screen = await this.o.backend.capture(this.o.pane, DIALOG_SCREEN_LINES).catch((): PaneOutput => ({ lines: [] }));
    const dialog = recognizeClaudeDialog(screen.lines);
    if (dialog === undefined) {
      if (this.showing === undefined) return deadline;
      this.showing = undefined; // answered: it gets a fresh ready timeout from now
      return Math.max(deadline, now + readyTimeoutMs);
    }
    if (dialog.id === this.showing?.id) return deadline;
    this.showing = dialog;
    this.o.onNotice?.(this.notice(dialog));
    return Math.max(deadline, now + this.o.waitMs);
  }

  private notice(dialog: ClaudeDialog): string {
    const lines = [
      `${this.o.name} is waiting on Claude Code's ${dialog.what}; answer it in its pane: ${this.o.backend.howToReach(this.o.pane)}`,
      `(spawn keeps waiting for the answer, up to ${formatWait(this.o.waitMs)})`,
      ...(dialog.hint === undefined ? [] : [dialog.hint]),
    ];
    if (!this.toldFix) {
      this.toldFix = true;
      const hasApiKey = (this.o.env.ANTHROPIC_API_KEY ?? '') !== '';
      lines.push(...claudeSeedFix({ stateFile: claudeCodeStateFile(this.o.env), realCwd: realPath(this.o.cwd), hasApiKey }));
    }
    return lines.join('\n');
  }
}

/** Claude Code keys projects by the real path of the folder. */
function realPath(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

function formatWait(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.round(ms / 1000)} s`;
}
