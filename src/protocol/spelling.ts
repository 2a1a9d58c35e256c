// "Did you mean …?" for a near-miss name (a team file key, a permission rule's tool, a flag):
// the candidate at the smallest edit distance, ignoring case, when it is close enough to be a typo.

/** Levenshtein distance; letters that differ only in case count as equal. */
export function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate `word` is most likely a typo of (at most 2 edits, or a quarter of its length), else undefined. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const best = [...candidates].sort((x, y) => editDistance(word, x) - editDistance(word, y))[0];
  return best !== undefined && editDistance(word, best) <= Math.max(2, Math.floor(word.length / 4)) ? best : undefined;
}
