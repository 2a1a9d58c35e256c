// Path globs, read one way everywhere (permission rules, the Glob and Grep tools): picomatch with
// its options fixed here, so the two callers cannot drift apart again. Pure; no file system.
//   `/` separates segments;  `**` as a whole segment: zero or more segments (`src/**` matches `src`);
//   `*`: any run within a segment;  `?`: one character;  `[abc]` `[a-z]` `[!a]` `[^a]` `[[:alpha:]]`:
//   a character class;  `{a,b}`: alternatives (no nesting), `{1..3}`: a range;  `\x`: a literal x.
// Everything else is literal, `(` `)` `|` `@` `+` and a leading `!` included: no extglobs and no
// negated patterns (`Edit(!secret)` must never mean "everything but secret"). Case-sensitive.
// Dot files: with `dot: false` a wildcard never matches a segment starting with `.` unless the
// pattern spells the dot (`.github/**`, `**/.env`, `{a,.b}`, a class naming it: `[.]env`; a negated
// class never matches it, though picomatch's would); `dot: true` lets wildcards match them.
// A path spelled exactly like the pattern also matches (`[x]` matches a file named `[x]`).
import picomatch from 'picomatch';
import { SwarmError } from './errors.js';

export interface GlobOptions {
  /** Let wildcards match segments starting with `.` (deny rules want this). Default false. */
  dot?: boolean;
}

/** Why `pattern` is not a glob we accept (a trailing `\`, an unclosed or nested `{`), or undefined. */
export function globError(pattern: string): string | undefined {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      if (i === pattern.length - 1) return 'a trailing \\ escapes nothing';
      i++;
    } else if (c === '[') {
      const end = pattern.indexOf(']', i + 2);
      if (end !== -1) i = end; // `{` inside a class is a character
    } else if (c === '{') {
      if (depth > 0) return 'nested { } is not supported';
      depth++;
    } else if (c === '}' && depth > 0) {
      depth--;
    }
  }
  return depth > 0 ? 'unclosed {' : undefined;
}

// picomatch reads `(` `)` as a regex group even with extglobs off (`a(b)c` would match `abc`).
function escapeGroups(pattern: string): string {
  return pattern.replace(/\\.|[()]/gs, (m) => (m.length === 1 ? `\\${m}` : m));
}

// picomatch lets a negated class at the start of a segment match a leading dot (`[!a]*` matches
// `.env` even with `dot: false`); adding `.` to the excluded characters there closes that hole.
function negatedClassesSkipDot(pattern: string): string {
  return pattern.replace(/(^|[/{,])\[([!^])/g, '$1[$2.');
}

/** A matcher of `/`-separated paths; SwarmError('invalid_input') for a pattern globError refuses. */
export function compileGlob(pattern: string, opts: GlobOptions = {}): (path: string) => boolean {
  const why = globError(pattern);
  if (why !== undefined) throw new SwarmError('invalid_input', `glob ${JSON.stringify(pattern)}: ${why}`);
  const source = escapeGroups(opts.dot === true ? pattern : negatedClassesSkipDot(pattern));
  return picomatch(source, {
    dot: opts.dot ?? false,
    posix: true, // `[!a]` negates a class (without it picomatch reads `!` as a member)
    nonegate: true,
    noextglob: true,
    windows: false,
  });
}
