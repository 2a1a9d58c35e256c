// A list of protected path patterns, matched the way every such list is (secrets.ts, agent-config.ts):
// patterns under named base directories (the root, the home directory), each base matched on its
// path as given and on its real path, and patterns that match anywhere (against the absolute path
// without its leading `/`). Wildcards match dot files (protocol/glob.ts with `dot: true`). A caller
// passes every form of the path it touches (as given, real), so a symlink to a listed file is caught.
import path from 'node:path';
import { compileGlob } from '../../protocol/glob.js';
import { isInside, realpathLoose } from './paths.js';

type Matcher = (p: string) => boolean;

export interface PathPatternSpec {
  /** Patterns relative to a directory, shown as `<label>/<pattern>`. */
  bases: readonly { label: string; dir: string; patterns: readonly string[] }[];
  /** Patterns matched anywhere, shown as is. */
  anywhere: readonly string[];
  /** Paths never matched (anywhere patterns), e.g. templates that only name variables. */
  exempt?: readonly string[];
}

interface Base {
  label: string;
  /** The directory as given and its real form. */
  dirs: readonly string[];
  patterns: readonly { shown: string; match: Matcher }[];
}

function compiled(patterns: readonly string[]): { shown: string; match: Matcher }[] {
  return patterns.map((p) => ({ shown: p, match: compileGlob(p, { dot: true }) }));
}

export class PathPatterns {
  private constructor(
    private readonly bases: readonly Base[],
    private readonly anywhere: readonly { shown: string; match: Matcher }[],
    private readonly exempt: readonly Matcher[],
  ) {}

  static async compile(spec: PathPatternSpec): Promise<PathPatterns> {
    const forms = async (d: string): Promise<string[]> => [...new Set([path.resolve(d), await realpathLoose(path.resolve(d))])];
    const bases: Base[] = [];
    for (const b of spec.bases) bases.push({ label: b.label, dirs: await forms(b.dir), patterns: compiled(b.patterns) });
    return new PathPatterns(bases, compiled(spec.anywhere), (spec.exempt ?? []).map((p) => compileGlob(p, { dot: true })));
  }

  /** The pattern (as shown to people) that any of these absolute paths matches, or undefined. */
  match(...paths: string[]): string | undefined {
    for (const p of paths) {
      const found = this.matchOne(p);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  private matchOne(p: string): string | undefined {
    const fromSlash = p.slice(1);
    if (this.exempt.some((m) => m(fromSlash))) return undefined;
    for (const base of this.bases) {
      for (const dir of base.dirs) {
        if (!isInside(dir, p)) continue;
        const rel = path.relative(dir, p);
        const hit = base.patterns.find((x) => rel !== '' && x.match(rel));
        if (hit) return `${base.label}/${hit.shown}`;
      }
    }
    return this.anywhere.find((x) => x.match(fromSlash))?.shown;
  }
}
