// Which tmux is installed: `tmux -V`, parsed once, judged against the oldest version swarm is
// tested with. Used by backend selection (a note) and by `swarm doctor` (a finding).
import type { Exec } from '../process.js';

/** tmux 3.2 is the oldest checked: it sets TERM_PROGRAM in panes and has every verb used. */
export const TMUX_MIN = { major: 3, minor: 2 } as const;
export const TMUX_MIN_VERSION = `${TMUX_MIN.major}.${TMUX_MIN.minor}`;

/** `tmux 3.3a` → {3, 3}; `tmux next-3.4` → {3, 4}; `tmux master` → undefined. */
export function parseTmuxVersion(text: string): { major: number; minor: number } | undefined {
  const m = /(\d+)\.(\d+)/.exec(text);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/** True for a numbered version older than TMUX_MIN (an unnumbered build counts as recent). */
export function tmuxTooOld(version: { major: number; minor: number } | undefined): boolean {
  return version !== undefined && (version.major < TMUX_MIN.major || (version.major === TMUX_MIN.major && version.minor < TMUX_MIN.minor));
}

export type TmuxInstall =
  | { state: 'missing' }
  | { state: 'broken'; exitCode: number; text: string }
  /** `version` is undefined for unnumbered builds (`tmux master`), assumed recent. */
  | { state: 'ok'; text: string; version: { major: number; minor: number } | undefined; tooOld: boolean };

/** Ask `tmux -V` (exit 127: not on PATH). */
export async function probeTmuxInstall(exec: Exec): Promise<TmuxInstall> {
  const r = await exec('tmux', ['-V']);
  if (r.exitCode === 127) return { state: 'missing' };
  const text = (r.stdout || r.stderr).trim();
  if (r.exitCode !== 0) return { state: 'broken', exitCode: r.exitCode, text };
  const version = parseTmuxVersion(text);
  return { state: 'ok', text, version, tooOld: tmuxTooOld(version) };
}
