// Free text shown in one line (event lines, pane previews, status activities, error excerpts):
// whitespace runs collapsed to one space, and at most `max` characters, the last one `…` when cut.

export function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
