// The one place that decides whether swarm's output is coloured, and how richly (chalk's `level`:
// 0 none, 1 basic, 2 256 colours, 3 truecolor). chalk 5 reads FORCE_COLOR but not NO_COLOR, so the
// level is decided here and set once when the CLI starts; the teammate pane view gets the same level.
//
// Precedence, most specific first (https://no-color.org: a command-line flag overrides NO_COLOR):
//   --no-color → none;  --color → colour even into a pipe;
//   NO_COLOR (any non-empty value) → none, even with FORCE_COLOR;
//   FORCE_COLOR (0/false → none; ''/true/1/2/3 → at least that level) → colour even into a pipe;
//   not a terminal, or TERM=dumb → none;  else what the terminal says (COLORTERM, TERM).
// An explicit flag is also written into the environment (NO_COLOR=1, or FORCE_COLOR=<level>), so
// what this command starts — teammates, a console in a tmux pane — follows the same choice.

import type { ColorSupportLevel } from 'chalk';

export type ColorLevel = ColorSupportLevel;

export interface ColorInputs {
  /** `--color` (true), `--no-color` (false), or neither. */
  flag?: boolean | undefined;
  env: NodeJS.ProcessEnv;
  /** Whether the output is a terminal. */
  isTTY: boolean;
}

/** FORCE_COLOR as chalk reads it: undefined when unset, 0 when it turns colour off. */
function forcedLevel(value: string | undefined): ColorLevel | undefined {
  if (value === undefined) return undefined;
  if (value === '' || value === 'true') return 1;
  if (value === 'false') return 0;
  const n = Number.parseInt(value, 10);
  if (Number.isNaN(n)) return 1;
  return Math.max(0, Math.min(3, n)) as ColorLevel;
}

/** The richest colour the terminal announces (at least basic). */
function terminalLevel(env: NodeJS.ProcessEnv): 1 | 2 | 3 {
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  if (/-256(colou?r)?$/i.test(env.TERM ?? '')) return 2;
  return 1;
}

export function decideColorLevel({ flag, env, isTTY }: ColorInputs): ColorLevel {
  if (flag === false) return 0;
  const forced = forcedLevel(env.FORCE_COLOR);
  if (flag === true) return Math.max(forced || 1, terminalLevel(env)) as ColorLevel;
  if (env.NO_COLOR) return 0;
  if (forced === 0) return 0;
  if (forced !== undefined) return Math.max(forced, terminalLevel(env)) as ColorLevel;
  if (!isTTY || env.TERM === 'dumb') return 0;
  return terminalLevel(env);
}

/**
 * Make the environment say what decideColorLevel decides, before anything else reads it: an empty
 * NO_COLOR counts as unset, and a non-empty one drops FORCE_COLOR. Node itself lets FORCE_COLOR win
 * and warns "The 'NO_COLOR' env is ignored" when a dependency asks it about colours (execa's
 * yoctocolors does at import), which would contradict what swarm does. Run first, by bin/swarm.js.
 */
export function normalizeColorEnv(env: NodeJS.ProcessEnv): void {
  if (env.NO_COLOR === '') delete env.NO_COLOR;
  else if (env.NO_COLOR !== undefined) delete env.FORCE_COLOR;
}

/** Write an explicit `--color` / `--no-color` into `env`, for the processes this command starts. */
export function exportColorChoice(flag: boolean | undefined, level: ColorLevel, env: NodeJS.ProcessEnv): void {
  if (flag === false) {
    env.NO_COLOR = '1';
    delete env.FORCE_COLOR;
  } else if (flag === true) {
    delete env.NO_COLOR;
    env.FORCE_COLOR = String(level);
  }
}
