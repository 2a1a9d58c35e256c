// Aligned columns for human output: each cell is plain text plus an optional style, widths are
// measured on the plain text (so colours never break the alignment), two spaces between columns,
// the last column unpadded and no trailing spaces.

export interface Cell {
  text: string;
  style?: (s: string) => string;
}

/** The rows as aligned lines. */
export function renderTable(rows: readonly (readonly Cell[])[]): string[] {
  const columns = Math.max(0, ...rows.map((r) => r.length));
  const widths = Array.from({ length: columns }, (_, c) => Math.max(0, ...rows.map((r) => r[c]?.text.length ?? 0)));
  return rows.map((cells) =>
    cells
      .map((cell, c) => {
        const padded = c === cells.length - 1 ? cell.text : cell.text.padEnd(widths[c]!);
        return cell.style ? cell.style(padded) : padded;
      })
      .join('  ')
      .trimEnd(),
  );
}
