// The agent-configuration list (runtime/tools/agent-config.ts): which paths configure other members
// (agent files, Claude Code settings, .mcp.json; anywhere and under the root), matched on the path as
// given and on its real path; everything else, and swarm's own worktrees, is not on it.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { AgentConfigPaths, configSummary } from '../../../src/runtime/tools/agent-config.js';
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
