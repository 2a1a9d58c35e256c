// Where a Glob search starts: splitGlob() separates a pattern's literal directory prefix (the
// directory to walk) from the rest (matched by protocol/glob.ts's compileGlob). Paths use `/`.

const MAGIC = /[*?[\]{}\\]/;

export function hasMagic(s: string): boolean {
  return MAGIC.test(s);
}

/** `src/**\/*.ts` → {base: 'src', rest: '**\/*.ts'}; `/abs/x/*.md` → {base: '/abs/x', rest: '*.md'}. */
export function splitGlob(pattern: string): { base: string; rest: string } {
  const absolute = pattern.startsWith('/');
  const segs = pattern.split('/').filter((s) => s !== '' && s !== '.');
  const firstMagic = segs.findIndex(hasMagic);
  const cut = firstMagic === -1 ? segs.length - 1 : firstMagic;
  const baseSegs = segs.slice(0, Math.max(cut, 0));
  const base = (absolute ? '/' : '') + baseSegs.join('/');
  return { base: base === '' ? '.' : base, rest: segs.slice(baseSegs.length).join('/') };
}
