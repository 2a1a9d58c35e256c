// No dead end without a key: `swarm run` (console and -p) and `swarm lead --agent` check for model
// credentials before creating anything, and say in one error (exit 2) what to set, that `swarm
// demo` runs offline, and how to run a goal on the stand-in here; no team, key or file is left.
// In-process through main(argv, io): these are argument and error checks (test/cli/run/ runs the real executable).
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTeam } from '../../../src/team/team-store.js';
import { swarmInProcess } from '../../support/cli.js';
import { useTempRoot } from '../../support/tmp-root.js';

let root = '';
useTempRoot((r) => (root = r), 'swarm-nokey-');

// PATH names no directory: no `claude` is found (this machine may have one installed), so no hint for it.
const NO_CLAUDE = '/nonexistent-swarm-test-bin';
const NO_KEY = { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: '', ANTHROPIC_BASE_URL: ' ', PATH: NO_CLAUDE };

describe('without model credentials', () => {
  it('swarm run and run -p: one error saying what to set, the offline demo and the stand-in; nothing created', async () => {
    for (const args of [['run', '-p', 'add a flag'], ['run', 'add a flag'], ['run', 'add a flag', '--team', 'named']]) {
      const r = await swarmInProcess(root, args, NO_KEY);
      expect(r.exitCode, args.join(' ')).toBe(2);
      const [first, ...rest] = r.stderr.trim().split('\n');
      expect(first).toBe('swarm: swarm run needs a model for its agent lead: no model credentials: set ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN (or ANTHROPIC_BASE_URL for a local endpoint); nothing was created');
      expect(rest[0]).toMatch(/swarm demo runs the whole thing offline/);
      expect(rest[1]).toMatch(/--script \S+examples\/goal\.scenario\.json --port 8788 & ANTHROPIC_BASE_URL=http:\/\/127\.0\.0\.1:8788 swarm run -p/);
    }
    expect(await readdir(root)).toEqual([]); // no team, no key, no directory
  });

  it('swarm lead --agent: the same, before the terminal check; the team is untouched', async () => {
    await createTeam(root, { name: 'crew' });
    const before = (await readdir(root, { recursive: true })).sort();
    const r = await swarmInProcess(root, ['lead', '--agent', '--team', 'crew'], NO_KEY);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/^swarm: swarm lead --agent needs a model for its agent lead: no model credentials/);
    expect((await readdir(root, { recursive: true })).sort()).toEqual(before);
  });

  it('with Claude Code on PATH, the error says how it leads with no key (swarm run --lead claude; claude mcp add for swarm lead --agent)', async () => {
    const bin = path.join(root, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'claude'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const env = { ...NO_KEY, PATH: `${bin}:${NO_CLAUDE}` };
    const run = await swarmInProcess(root, ['run', '-p', 'add a flag'], env);
    expect(run.exitCode).toBe(2);
    expect(run.stderr.split('\n')[1]?.trim()).toBe('or let Claude Code lead, no key needed (your Claude subscription): swarm run --lead claude "<goal>"');
    await createTeam(root, { name: 'crew' });
    const lead = await swarmInProcess(root, ['lead', '--agent', '--team', 'crew'], env);
    expect(lead.stderr.split('\n')[1]?.trim()).toBe('or let Claude Code lead, no key needed (your Claude subscription): claude mcp add swarm -- swarm mcp --team <team>, then ask Claude Code to lead it');
    // Without it on PATH, no such line (the first test).
  });

  it('--lead claude needs no key, but claude on PATH, its own flags, and a key for --runtime swarm teammates; each refusal creates nothing', async () => {
    const missing = await swarmInProcess(root, ['run', '-p', '--lead', 'claude', 'add a flag'], NO_KEY);
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.trim()).toBe('swarm: swarm run --lead claude needs Claude Code: the `claude` CLI on PATH (npm install -g @anthropic-ai/claude-code, then log in once); or let swarm lead with --lead swarm and an API key');
    const bin = path.join(root, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'claude'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const env = { ...NO_KEY, PATH: `${bin}:${NO_CLAUDE}` };
    const turns = await swarmInProcess(root, ['run', '-p', '--lead', 'claude', '--max-turns', '3', 'add a flag'], env);
    expect(turns.stderr.trim()).toBe("swarm: --max-turns is swarm's lead's, not Claude Code's (Claude Code counts its own turns): leave it out with --lead claude");
    const runtime = await swarmInProcess(root, ['run', '-p', '--lead', 'claude', '--runtime', 'swarm', 'add a flag'], env);
    expect(runtime.exitCode).toBe(2);
    expect(runtime.stderr).toMatch(/^swarm: swarm run --lead claude --runtime swarm needs a model for its teammates \(or leave --runtime out: Claude Code teammates\): no model credentials/);
    expect(await readdir(root)).toEqual(['bin']);
  });

  it('a base URL alone is enough (a local endpoint): the check lets it through', async () => {
    const r = await swarmInProcess(root, ['run', 'add a flag'], { ...NO_KEY, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' });
    expect(r.stderr).not.toMatch(/no model credentials/);
    expect(r.stderr).toMatch(/needs a terminal/); // the next check: no terminal here
  });
});
