// The agent-configuration list (runtime/tools/agent-config.ts): which paths configure other members
// (agent files, Claude Code settings, .mcp.json; anywhere and under the root), matched on the path as
// given and on its real path; everything else, and swarm's own worktrees, is not on it. And the files
// the commands of settings and .mcp.json name (configures, pathsNamedBy): which sources are read,
// which words are paths, and what a source that cannot be read names (nothing, without an error).
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AgentConfigPaths, configSummary, pathsNamedBy } from '../../../src/runtime/tools/agent-config.js';
import { useTempRoot } from '../../support/tmp-root.js';

let dir: string;
let root: string;
let config: AgentConfigPaths;

useTempRoot((d) => (dir = d), 'swarm-agent-config-');
beforeEach(async () => {
  root = path.join(dir, 'claude');
  await fs.mkdir(root);
  config = await AgentConfigPaths.create(root);
});

describe('agent configuration', () => {
  it('names the pattern each file matches, and leaves other files alone', () => {
    const cases: [string, string | undefined][] = [
      ['/srv/app/.claude/agents/verification.md', '**/.claude/agents/**'],
      ['/srv/app/.claude/agents/sub/x.md', '**/.claude/agents/**'],
      ['/srv/app/.claude/settings.json', '**/.claude/settings*.json'],
      ['/srv/app/.claude/settings.local.json', '**/.claude/settings*.json'],
      ['/srv/app/.mcp.json', '**/.mcp.json'],
      ['/home/u/.claude/agents/reviewer.md', '**/.claude/agents/**'],
      [path.join(root, 'agents/reviewer.md'), '<root>/agents/**'],
      [path.join(root, 'settings.json'), '<root>/settings*.json'],
      [path.join(root, 'settings.local.json'), '<root>/settings*.json'],
      // Not configuration: ordinary files, other .claude files, swarm's worktrees, the same names elsewhere.
      ['/srv/app/src/agents/x.md', undefined],
      ['/srv/app/settings.json', undefined],
      ['/srv/app/.claude/worktrees/t-w1/src/a.ts', undefined],
      ['/srv/app/.claude/CLAUDE.md', undefined],
      ['/srv/app/mcp.json', undefined],
      [path.join(root, 'projects/p/memory/team/MEMORY.md'), undefined],
      [path.join(root, 'agents-old.md'), undefined],
    ];
    for (const [p, expected] of cases) expect(config.match(p), p).toBe(expected);
  });

  it('matches the real path too: a link to a listed file, or a listed directory reached through a link', async () => {
    const work = path.join(dir, 'work');
    await fs.mkdir(path.join(work, '.claude', 'agents'), { recursive: true });
    await fs.symlink(path.join(work, '.claude'), path.join(work, 'innocent'));
    const real = await fs.realpath(path.join(work, 'innocent'));
    expect(config.match(path.join(work, 'innocent/agents/v.md'), path.join(real, 'agents/v.md'))).toBe('**/.claude/agents/**');
    // The root found by its real path.
    await fs.symlink(root, path.join(dir, 'root-link'));
    const viaLink = await AgentConfigPaths.create(path.join(dir, 'root-link'));
    expect(viaLink.match(path.join(root, 'agents/x.md'))).toBe('<root>/agents/**');
  });

  it('says why a write asks', () => {
    expect(configSummary('.mcp.json', '**/.mcp.json')).toBe('.mcp.json (protected agent configuration: **/.mcp.json)');
    expect(configSummary('src/a.ts', undefined)).toBe('src/a.ts');
  });
});

describe('files the commands of agent configuration name', () => {
  const settingsWith = (command: string) => JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command }] }] }, n: null, on: true, x: 1 });

  it('the words of a command that are paths: relative to the base, $CLAUDE_PROJECT_DIR, $HOME and ~/ expanded, one level of sh -c', () => {
    expect(pathsNamedBy('node bin/a.js --flag x /abs/b.sh ../c.sh', '/w', '/h')).toEqual(['/w/bin/a.js', '/abs/b.sh', '/c.sh']);
    expect(pathsNamedBy('"$CLAUDE_PROJECT_DIR"/d.sh $HOME/e.sh ~/f.sh a~/g.sh', '/w', '/h')).toEqual(['/w/d.sh', '/h/e.sh', '/h/f.sh', '/w/a~/g.sh']);
    // Another variable is not guessed; a URL is not a file.
    expect(pathsNamedBy('$OTHER/x.sh ${OTHER}/y.sh https://example.invalid/z HTTP://example.invalid/z git+ssh://h/r', '/w', '/h')).toEqual([]);
    expect(pathsNamedBy("sh -c 'python3 tools/wrap.py && ./b.sh'", '/w', '/h')).toEqual(['/w/tools/wrap.py', '/w/b.sh']);
    // Operators are not words; a quoted word is one path, whatever it holds; a scheme only at the start is a URL.
    expect(pathsNamedBy('./a.sh && ./b.sh | c > ./out.log; "./odd;name.sh" ./cache/https://x.sh', '/w', '/h')).toEqual(['/w/a.sh', '/w/b.sh', '/w/out.log', '/w/odd;name.sh', '/w/cache/https:/x.sh']);
    // One level: a command nested deeper is taken whole, as one word with a slash.
    expect(pathsNamedBy(`sh -c "sh -c 'x/y.sh'"`, '/w', '/h')).toEqual(['/w/x/y.sh']);
    expect(pathsNamedBy(`sh -c "sh -c 'sh -c x/y.sh'"`, '/w', '/h')).toEqual(['/w/sh -c x/y.sh']);
  });

  it("without a cwd, the root's settings.json and settings.local.json, relative to the root", async () => {
    await fs.writeFile(path.join(root, 'settings.local.json'), settingsWith('helpers/stop.sh'));
    expect(await config.configures(path.join(root, 'helpers/stop.sh'))).toBe(`a command in ${path.join(root, 'settings.local.json')} names it`);
    await fs.writeFile(path.join(root, 'settings.json'), settingsWith('~/bin/status.sh'));
    expect(await config.configures(path.join(root, 'bin/status.sh'))).toBe(`a command in ${path.join(root, 'settings.json')} names it`); // home defaults to the root
    expect(await config.configures(path.join(root, 'helpers/other.sh'))).toBeUndefined();
    // A listed file is answered by its pattern first.
    expect(await config.configures(path.join(root, 'settings.json'))).toBe('<root>/settings*.json');
  });

  it("with a cwd, the project's .claude/settings.json, settings.local.json and .mcp.json, relative to the cwd", async () => {
    const cwd = path.join(dir, 'work');
    await fs.mkdir(path.join(cwd, '.claude'), { recursive: true });
    const withCwd = await AgentConfigPaths.create(root, { cwd, home: path.join(dir, 'home') });
    for (const [source, named] of [['.claude/settings.json', 'a.sh'], ['.claude/settings.local.json', 'b.sh'], ['.mcp.json', 'c.sh']]) {
      await fs.writeFile(path.join(cwd, source!), settingsWith(`./${named}`));
      expect(await withCwd.configures(path.join(cwd, named!)), source).toBe(`a command in ${path.join(cwd, source!)} names it`);
    }
    await fs.writeFile(path.join(root, 'settings.json'), settingsWith('./d.sh'));
    expect(await withCwd.configures(path.join(cwd, 'd.sh'))).toBe(`a command in ${path.join(root, 'settings.json')} names it`);
  });

  it('a named link protects its target; a named link loop, a source that is not JSON or past 1 MiB names nothing, without an error', async () => {
    await fs.mkdir(path.join(root, 'scripts'));
    await fs.writeFile(path.join(root, 'scripts/real.sh'), 'exit 0\n');
    await fs.symlink(path.join(root, 'scripts/real.sh'), path.join(root, 'link.sh'));
    await fs.symlink('loop', path.join(root, 'loop'));
    await fs.writeFile(path.join(root, 'settings.json'), settingsWith('loop/x.sh ./link.sh'));
    expect(await config.configures(path.join(root, 'scripts/real.sh'))).toBe(`a command in ${path.join(root, 'settings.json')} names it`);
    expect(await config.configures(path.join(root, 'scripts/other.sh'))).toBeUndefined();
    await fs.writeFile(path.join(root, 'settings.json'), `${settingsWith('./link.sh')}x`);
    expect(await config.configures(path.join(root, 'scripts/real.sh'))).toBeUndefined();
    // Exactly 1 MiB is read; one byte more is not.
    const json = settingsWith('./link.sh');
    await fs.writeFile(path.join(root, 'settings.json'), json.padEnd(1 << 20));
    expect(await config.configures(path.join(root, 'scripts/real.sh'))).toBe(`a command in ${path.join(root, 'settings.json')} names it`);
    await fs.writeFile(path.join(root, 'settings.json'), json.padEnd((1 << 20) + 1));
    expect(await config.configures(path.join(root, 'scripts/real.sh'))).toBeUndefined();
    // Each source read is closed again.
    const open = async () => (await Promise.all((await fs.readdir('/proc/self/fd')).map((fd) => fs.readlink(`/proc/self/fd/${fd}`).catch(() => '')))).filter((t) => t.startsWith(root));
    const before = await open();
    for (let i = 0; i < 3; i++) await config.configures(path.join(root, 'scripts/other.sh'));
    expect(await open()).toEqual(before);
  });
});
