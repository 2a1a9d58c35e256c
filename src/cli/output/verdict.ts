// A verifier's verdict (docs/protocol.md#agent-types-and-worktrees) as a line of its own, `verdict: PASS (verifier)`: highlighted by
// the console, plain in the headless run. Which entries carry one, and once each, is the lead's
// inbox rule (runtime/lead/verdicts.ts).
import type { Verdict } from '../../protocol/agent-type.js';
import { chalk } from './render.js';

/** `verdict: PASS (verifier)`; `highlight` colours it (green, red, yellow) and makes it bold. */
export function verdictLine(v: Verdict, from: string, highlight = false): string {
  const text = `verdict: ${v} (${from})`;
  if (!highlight) return text;
  const colour = v === 'PASS' ? chalk.green : v === 'FAIL' ? chalk.red : chalk.yellow;
  return colour.bold(`★ ${text}`);
}
