// Every `docs/<file>.md#<anchor>` cited in src/ names a file in docs/ and a heading in it: the
// anchor GitHub makes from the heading's text (lower case, punctuation dropped, spaces as dashes).
// Also: no citation of the product contract (`SPEC §N`), which lives outside the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/cli.js';

/** GitHub's anchor for a heading's text. */
export function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

function anchorsIn(doc: string): Set<string> {
  let fenced = false;
  const anchors = new Set<string>();
  if (!existsSync(doc)) return anchors;
  for (const line of readFileSync(doc, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const h = fenced ? null : /^#{1,6}\s+(.*)$/.exec(line);
    if (h) anchors.add(anchorOf(h[1]!));
  }
  return anchors;
}

const cited = sourceFiles(path.join(REPO, 'src')).flatMap((file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line, i) => [...line.matchAll(/docs\/([\w.-]+\.md)#([\w-]+)/g)].map((m) => ({ where: `${path.relative(REPO, file)}:${i + 1}`, doc: m[1]!, anchor: m[2]! }))),
);

describe('links from src/ into docs/', () => {
  it('anchorOf makes the anchors GitHub makes', () => {
    expect(anchorOf('Kept-aside corrupt files')).toBe('kept-aside-corrupt-files');
    expect(anchorOf('The swarm directory')).toBe('the-swarm-directory');
    expect(anchorOf('Team file (config.json)')).toBe('team-file-configjson');
  });

  it('every cited anchor is a heading of the cited file', () => {
    expect(cited.length).toBeGreaterThan(100);
    const docs = new Map<string, Set<string>>();
    const missing = cited.flatMap(({ where, doc, anchor }) => {
      const file = path.join(REPO, 'docs', doc);
      if (!docs.has(doc)) docs.set(doc, anchorsIn(file));
      return docs.get(doc)!.has(anchor) ? [] : [`${where}: docs/${doc}#${anchor}`];
    });
    expect(missing, 'cited anchors with no such heading').toEqual([]);
  });

  it('no citation of the SPEC outside the repository', () => {
    const spec = sourceFiles(path.join(REPO, 'src')).filter((f) => /SPEC\s*(\n\s*\/\/\s*)?§/.test(readFileSync(f, 'utf8')));
    expect(spec.map((f) => path.relative(REPO, f))).toEqual([]);
  });
});
