// Member colours on a terminal: the one colour-name → chalk mapping (the names are protocol/colors.ts),
// shared by the pane view (runtime/) and every CLI output. An unknown or missing colour is bold.
import type { ChalkInstance } from 'chalk';
import { isColorName, type ColorName } from '../protocol/colors.js';

const STYLES: Record<ColorName, (chalk: ChalkInstance) => (text: string) => string> = {
  red: (c) => c.red,
  blue: (c) => c.blue,
  green: (c) => c.green,
  yellow: (c) => c.yellow,
  purple: (c) => c.magenta,
  orange: (c) => c.ansi256(208),
  pink: (c) => c.ansi256(205),
  cyan: (c) => c.cyan,
};

/** The chalk style for a member colour. */
export function painter(chalk: ChalkInstance, color: string | undefined): (text: string) => string {
  return isColorName(color) ? STYLES[color](chalk) : chalk.bold;
}
