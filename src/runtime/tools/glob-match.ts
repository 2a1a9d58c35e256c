// A small glob matcher for Glob and Grep's `glob` filter (no dependency). Paths use `/`.
//   `**` as a whole segment: zero or more directories;  `*`: any run within a segment;
//   `?`: one character;  `[abc]` / `[!a-z]`: a character class;  `{a,b}`: alternatives (no nesting);
//   `\x`: a literal x. Wildcards do not match a leading `.` of a segment unless the pattern spells it.
// splitGlob() separates the literal directory prefix (where a walk can start) from the rest.
import { SwarmError } from '../../protocol/errors.js';

const MAGIC = /[*?[\]{}\\]/;

function escapeRe(c: string): string {
  return c.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function segmentRe(seg: string, pattern: string): string {
  let re = '';
  let inBrace = false;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i]!;
    const atStart = i === 0 || (inBrace && (seg[i - 1] === '{' || seg[i - 1] === ','));
    if (c === '\\') {
      const next = seg[++i];
      if (next === undefined) throw new SwarmError('invalid_input', `glob ${JSON.stringify(pattern)}: a trailing \\ escapes nothing`);
      re += escapeRe(next);
    } else if (c === '*') {
      re += atStart ? '(?!\\.)[^/]*' : '[^/]*';
    } else if (c === '?') {
      re += atStart ? '(?!\\.)[^/]' : '[^/]';
    } else if (c === '[') {
      const end = seg.indexOf(']', i + 2);
      if (end === -1) {
        re += '\\[';
        continue;
      }
      let body = seg.slice(i + 1, end);
      if (body.startsWith('!')) body = `^${body.slice(1)}`;
      re += `[${body.replace(/\\/g, '\\\\')}]`;
      i = end;
    } else if (c === '{') {
      if (inBrace) throw new SwarmError('invalid_input', `glob ${JSON.stringify(pattern)}: nested { } is not supported`);
      inBrace = true;
      re += '(?:';
    } else if (c === '}' && inBrace) {
      inBrace = false;
      re += ')';
    } else if (c === ',' && inBrace) {
      re += '|';
    } else {
      re += escapeRe(c);
    }
  }
  if (inBrace) throw new SwarmError('invalid_input', `glob ${JSON.stringify(pattern)}: unclosed {`);
  return re;
}

/** Compile a relative glob to a matcher of `/`-separated relative paths. */
export function compileGlob(pattern: string): (rel: string) => boolean {
  const segs = pattern.split('/').filter((s, i, all) => s !== '' || i === all.length - 1);
  let re = '^';
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === '**') {
      re += last ? '(?:(?!\\.)[^/]*(?:/(?!\\.)[^/]*)*)?' : '(?:(?!\\.)[^/]*/)*';
    } else {
      re += segmentRe(seg, pattern) + (last ? '' : '/');
    }
  });
  const compiled = new RegExp(`${re}$`, 's');
  return (rel) => compiled.test(rel);
}

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
