// Member colours (docs/protocol.md#names-and-ids): assigned round-robin, leader first, with their tmux equivalents.

export const COLORS = ['red', 'blue', 'green', 'yellow', 'purple', 'orange', 'pink', 'cyan'] as const;
export type ColorName = (typeof COLORS)[number];

export const TMUX_COLORS: Record<ColorName, string> = {
  red: 'red',
  blue: 'blue',
  green: 'green',
  yellow: 'yellow',
  purple: 'magenta',
  orange: 'colour208',
  pink: 'colour205',
  cyan: 'cyan',
};

/** Colour for the member at roster index `index` (0 = leader). */
export function colorForIndex(index: number): ColorName {
  return COLORS[((index % COLORS.length) + COLORS.length) % COLORS.length]!;
}

/** Colour for a new member: the first palette colour not yet used, else round-robin by count. */
export function nextColor(used: readonly (string | undefined)[]): ColorName {
  const free = COLORS.find((c) => !used.includes(c));
  return free ?? colorForIndex(used.length);
}

export function isColorName(s: string | undefined): s is ColorName {
  return s !== undefined && (COLORS as readonly string[]).includes(s);
}
