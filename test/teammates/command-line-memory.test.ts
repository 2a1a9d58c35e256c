// A claude teammate's way into the team memory (docs/memory.md): its command line's --settings carries
// the allow rule `Edit(//<memory dir>/*.md)` (with the scratchpad's), the directory being its
// project's (the member's cwd, by Claude Code's key) — Claude Code's own project memory, so no
// --add-dir (2.1.332 would stop at a trust dialog for one); the recipe gives it to claude members on
// this machine only, and spawn/resume create the directory first. A swarm member gets none: its
// runtime finds the directory itself.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { memoryDir } from '../../src/team/paths.js';
import { Team } from '../../src/team/team.js';
import { buildTeammateCommand, claudeMemoryRules, scratchpadAllowRules, type TeammateCommandInput } from '../../src/teammates/command-line.js';
import { readTeamMemory } from '../../src/team/memory.js';
import { memorySection } from '../../src/team/memory-prompt.js';
import { memberPane, prepareMemberDirs, type MemberPaneInput } from '../../src/teammates/recipe.js';
import { makeRepo } from '../support/git-repo.js';
import { tempRoot } from '../support/tmp-root.js';

const which = (cmd: string): string | undefined => (cmd === 'claude' ? '/opt/claude/bin/claude' : undefined);
const base: TeammateCommandInput = { runtime: 'claude', team: 'sq', name: 'cc', color: 'blue', leadSessionId: 's', leadVerifyKey: 'k', env: {}, which };

describe('the claude command line', () => {
  it('ends with --settings allowing Edit of *.md directly in it (// starts an absolute path), and no --add-dir', () => {
    const dir = '/home/u/.claude/projects/-home-u-app/memory/team';
    const cmd = buildTeammateCommand({ ...base, permissionMode: 'bypassPermissions', memoryDir: dir });
    expect(cmd.argv.slice(-3)).toEqual(['--dangerously-skip-permissions', '--settings', JSON.stringify({ permissions: { allow: [`Edit(/${dir}/*.md)`] } })]);
    expect(claudeMemoryRules(dir)).toEqual(['Edit(//home/u/.claude/projects/-home-u-app/memory/team/*.md)']);
    expect(cmd.argv).not.toContain('--add-dir');
    expect(buildTeammateCommand(base).argv).not.toContain('--settings');
    expect(buildTeammateCommand({ ...base, runtime: 'swarm', memoryDir: dir }).argv).not.toContain('--settings');
  });
});

describe('the recipe', () => {
  async function input(runtime: 'claude' | 'swarm', remote = false): Promise<MemberPaneInput & { repo: string; root: string }> {
    const root = await tempRoot('swarm-clmem-');
    const repo = await makeRepo(path.join(root, 'repo'));
    await fs.mkdir(path.join(repo, 'pkg'));
    return {
      root,
      repo,
      team: new Team(root, 'sq'),
      member: { name: 'cc', color: 'blue', cwd: path.join(repo, 'pkg') },
      runtime,
      lead: { sessionId: 's', verifyKey: 'k' },
      env: {},
      backend: { teammateExecutable: undefined, remoteProcesses: remote },
      which,
    };
  }

  it("a claude member here gets its project's memory directory (the repository's, from a subdirectory), made before its pane", async () => {
    const i = await input('claude');
    const dir = memoryDir(i.root, i.repo);
    const settings = memberPane(i).argv.at(-1)!;
    expect(settings).toBe(i.team.paths.claudeSettings(i.member.name)); // its settings file, written with the directory
    await expect(fs.stat(dir)).rejects.toThrow(); // building the pane (a dry run) makes nothing
    await expect(fs.stat(settings)).rejects.toThrow();
    await prepareMemberDirs(i);
    expect((await fs.stat(dir)).isDirectory()).toBe(true);
    // Its appended prompt: the team memory section, as a swarm teammate's system prompt has it.
    const argv = memberPane(i).argv;
    const prompt = argv[argv.indexOf('--append-system-prompt-file') + 1]!;
    expect(prompt).toBe(i.team.paths.appendedPrompt('cc'));
    expect(await fs.readFile(prompt, 'utf8')).toBe(`${memorySection(await readTeamMemory(dir), 'teammate').join('\n')}\n`);
    expect(await fs.readFile(prompt, 'utf8')).toMatch(/^# Team memory\n[^]*[^\n]\n$/);
    expect(argv[0]).toBe('/opt/claude/bin/claude'); // the claude found here
    expect((JSON.parse(await fs.readFile(settings, 'utf8')) as { permissions: { allow: string[] } }).permissions.allow).toContain(`Edit(/${dir}/*.md)`);
  });

  it('a swarm member, and a claude member on another machine, get none and nothing is made', async () => {
    for (const i of [await input('swarm'), await input('claude', true)]) {
      expect(memberPane(i).argv.join(' ')).not.toContain('memory/team');
      expect(memberPane(i).argv).not.toContain('--append-system-prompt-file');
      if (i.runtime === 'claude') {
        expect(memberPane(i).argv[0]).toBe('claude'); // that machine's, found on its PATH there
        expect(memberPane(i).argv.slice(-2)).toEqual(['--settings', JSON.stringify({ permissions: { allow: scratchpadAllowRules(i.team.paths.scratchpad) } })]); // no file of ours there
      }
      await prepareMemberDirs(i);
      await expect(fs.stat(path.join(i.root, 'projects'))).rejects.toThrow();
    }
  });
});
