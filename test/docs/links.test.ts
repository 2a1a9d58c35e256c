// The docs hold together: every relative link in README.md, CONTRIBUTING.md and docs/*.md names a
// file that exists (and, with a #fragment, a heading in it), and every `swarm …` / `npx swarm …`
// command the README prints is a command the CLI has.
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../support/cli.js';

const pages = ['README.md', 'CONTRIBUTING.md', ...readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** GitHub's anchor for a heading: lower case, punctuation but - and _ dropped, spaces to -. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\-_ ]/gu, '').replace(/ /g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/^```[^]*?^```/gm, '');
  return new Set([...text.matchAll(/^#+ (.*)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Markdown links outside code blocks: [text](target). */
function linksOf(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/^```[^]*?^```/gm, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!);
}

/** The broken links of one page, as `target (why)`. */
export function brokenLinks(page: string): string[] {
  const file = path.join(REPO, page);
  return linksOf(file).flatMap((target) => {
    if (/^[a-z]+:/i.test(target)) return [];
    const [rel, fragment] = target.split('#') as [string, string | undefined];
    const dest = rel === '' ? file : path.resolve(path.dirname(file), rel);
    if (!existsSync(dest)) return [`${target} (no such file)`];
    if (fragment !== undefined && dest.endsWith('.md') && !anchorsOf(dest).has(fragment)) return [`${target} (no such heading)`];
    return [];
  });
}

describe('the docs', () => {
  it.each(pages)('%s: every relative link resolves', (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it('the link check sees a broken link and a missing heading', () => {
    expect(anchorOf('Launch a team: `swarm launch <team.yaml>`')).toBe('launch-a-team-swarm-launch-teamyaml');
    expect(anchorsOf(path.join(REPO, 'docs/launch.md')).has('launch-a-team-swarm-launch-teamyaml')).toBe(true);
    expect(anchorsOf(path.join(REPO, 'docs/launch.md')).has('no-such-heading')).toBe(false);
  });

  it('the README is a front door: about a hundred lines, the two set-up commands first', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(110);
    expect(readme.split('\n').slice(0, 6).join('\n')).toBe('# swarm\n\n```sh\nnpm install && npx swarm demo\nnpm test\n```');
  });

  it('every command the README prints is a swarm command', () => {
    const readme = readFileSync(path.join(REPO, 'README.md'), 'utf8');
    const reference = readFileSync(path.join(REPO, 'docs/commands.md'), 'utf8');
    const top = /## Reference[^]*?```\n([^]*?)```/.exec(reference)?.[1] ?? '';
    const known = new Set([...top.matchAll(/^ {2}swarm ([a-z][a-z-]*)/gm)].map((m) => m[1]!));
    expect(known.size).toBeGreaterThan(15);
    // What the README prints: its sh blocks and its inline code.
    const code = [...readme.matchAll(/^```sh\n([^]*?)^```/gm), ...readme.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!).join('\n');
    const used = [...code.matchAll(/(?:^|[\s;&|(])(?:npx )?swarm ([a-z][a-z-]*)/gm)].map((m) => m[1]!);
    expect(used.length).toBeGreaterThan(8);
    expect(used.filter((w) => !known.has(w))).toEqual([]);
  });
});
