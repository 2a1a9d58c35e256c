// The teammate command line (SPEC §4.3) as a pure function: flags, forwarded env, the
// SWARM_TEAMMATE_COMMAND override, `--runtime claude` (with the team's scratchpad), and a shell line
// that a real `sh` reads back into exactly the same words.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { quote } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import {
  SWARM_BIN,
  TEAMMATE_NODE_FLAGS,
  buildTeammateCommand,
  claudeSettingsArgs,
  findOnPath,
  forwardedEnv,
  parseCommandOverride,
  resolveClaude,
  scratchpadAllowRules,
  shellLine,
  userPathFor,
  type TeammateCommandInput,
} from '../../src/teammates/command-line.js';
import { isSwarmError } from '../../src/protocol/errors.js';
import { TEAMMATE_FLAGS } from '../../src/protocol/teammate-flags.js';
import { generateLeadKeyPair } from '../../src/permissions/signing.js';
import { flagsFromArgv, parseFlags } from '../../src/runtime/args.js';
import { tempRoot } from '../support/tmp-root.js';

const base: TeammateCommandInput = {
  runtime: 'swarm',
  team: 'sq',
  name: 'alice',
  color: 'blue',
  leadSessionId: 'sess-1',
  leadVerifyKey: '1700000000000.abc_DEF-123',
  env: {},
  swarmExecutable: ['/usr/bin/node', '/opt/swarm/bin/swarm.js'],
};

const SHARED = ['--agent-id', 'alice@sq', '--agent-name', 'alice', '--team-name', 'sq', '--agent-color', 'blue', '--parent-session-id', 'sess-1'];

describe('buildTeammateCommand: swarm runtime', () => {
  it('minimal: the swarm executable, `teammate`, and the required flags in order', () => {
    expect(buildTeammateCommand(base).argv).toEqual([
      '/usr/bin/node', '/opt/swarm/bin/swarm.js', 'teammate', ...SHARED, '--lead-verify-key', '1700000000000.abc_DEF-123',
    ]);
  });

  it('every optional flag', () => {
    const cmd = buildTeammateCommand({
      ...base,
      agentType: 'reviewer',
      model: 'claude-x',
      planModeRequired: true,
      permissionMode: 'acceptEdits',
      cwd: '/w/my dir',
    });
    expect(cmd.argv.slice(3)).toEqual([
      ...SHARED, '--lead-verify-key', '1700000000000.abc_DEF-123', '--agent-type', 'reviewer', '--model', 'claude-x',
      '--plan-mode-required', '--permission-mode', 'acceptEdits', '--cwd', '/w/my dir',
    ]);
  });

  it('defaults to this node, the teammate node flags and the absolute bin/swarm.js', () => {
    const { swarmExecutable: _, ...rest } = base;
    const cmd = buildTeammateCommand(rest);
    expect(cmd.argv.slice(0, TEAMMATE_NODE_FLAGS.length + 3)).toEqual([process.execPath, ...TEAMMATE_NODE_FLAGS, SWARM_BIN, 'teammate']);
    expect(SWARM_BIN).toMatch(/\/bin\/swarm\.js$/);
  });

  it('SWARM_TEAMMATE_COMMAND replaces `swarm teammate` (split like a shell), flags appended', () => {
    const env = { SWARM_TEAMMATE_COMMAND: `env FAKE_REJECT=1 node '/a b/fake.mjs' --x "y z"` };
    const cmd = buildTeammateCommand({ ...base, env });
    expect(cmd.argv).toEqual(['env', 'FAKE_REJECT=1', 'node', '/a b/fake.mjs', '--x', 'y z', ...SHARED, '--lead-verify-key', base.leadVerifyKey]);
    expect(cmd.env.SWARM_TEAMMATE_COMMAND).toBe(env.SWARM_TEAMMATE_COMMAND);
  });

  it('SWARM_TEAMMATE_COMMAND with shell operators or nothing in it is refused', () => {
    for (const bad of ['node x.mjs | tee log', 'node x > out', 'node *.mjs', 'node x # c', '  ""  ']) {
      let err: unknown;
      try {
        parseCommandOverride(bad, {});
      } catch (e) {
        err = e;
      }
      expect(isSwarmError(err, 'invalid_input'), bad).toBe(true);
    }
    expect(parseCommandOverride('$HOME/bin/t --v', { HOME: '/h' })).toEqual(['/h/bin/t', '--v']);
    // Each says what is wrong with it, in one line.
    expect(() => parseCommandOverride('node x | tee', {})).toThrow(
      'SWARM_TEAMMATE_COMMAND must be a plain command line (no pipes, redirections, globs or comments), got "node x | tee"',
    );
    expect(() => parseCommandOverride('  ""  ', {})).toThrow('SWARM_TEAMMATE_COMMAND names no command: "  \\"\\"  "');
    expect(() => parseCommandOverride('', {})).toThrow('SWARM_TEAMMATE_COMMAND names no command: ""');
    // A variable the leader does not have expands to nothing, not to "undefined".
    expect(parseCommandOverride('t $NOPE', { NOPE: undefined })).toEqual(['t', '']);
  });

  it('SWARM_TEAMMATE_COMMAND set but blank is the usual teammate command', () => {
    expect(buildTeammateCommand({ ...base, env: { SWARM_TEAMMATE_COMMAND: '  ' } }).argv).toEqual(buildTeammateCommand(base).argv);
  });
});

describe('forwarded environment', () => {
  const leader = {
    CLAUDE_CONFIG_DIR: '/r',
    ANTHROPIC_API_KEY: 'sk-1',
    ANTHROPIC_AUTH_TOKEN: 't',
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:1/v1',
    ANTHROPIC_MODEL: 'm',
    HTTP_PROXY: 'hp',
    HTTPS_PROXY: 'hsp',
    NO_PROXY: 'np',
    http_proxy: 'lhp',
    https_proxy: 'lhsp',
    no_proxy: 'lnp',
    NODE_EXTRA_CA_CERTS: '/ca.pem',
    SSL_CERT_FILE: '/cert.pem',
    SWARM_PROBE: 'p',
    SWARM_TMUX_SOCKET: 's',
    HOME: '/home/x',
    PATH: '/bin',
    ANTHROPIC_OTHER: 'no',
    MY_SWARM_X: 'no',
    UNSET: undefined,
  };

  it('forwards exactly the listed variables and every SWARM_*', () => {
    const out = forwardedEnv(leader);
    const { HOME: _h, PATH: _p, ANTHROPIC_OTHER: _o, MY_SWARM_X: _m, UNSET: _u, ...expected } = leader;
    expect(out).toEqual(expected);
    expect(buildTeammateCommand({ ...base, env: leader }).env).toEqual(expected);
    // No key for an unset variable (a child's env would get the text "undefined"), SWARM_* in name order.
    expect(Object.keys(forwardedEnv({ CLAUDE_CONFIG_DIR: undefined, SWARM_Z: '1', SWARM_UNSET: undefined, SWARM_A: '2' }))).toEqual(['SWARM_A', 'SWARM_Z']);
  });
});

describe('buildTeammateCommand: claude runtime', () => {
  const which = (cmd: string): string | undefined => (cmd === 'claude' ? '/opt/claude/bin/claude' : undefined);

  it("claude's flags only, the agent-team env, the absolute claude path", () => {
    const cmd = buildTeammateCommand({
      ...base,
      runtime: 'claude',
      which,
      agentType: 'reviewer',
      model: 'opus',
      planModeRequired: true,
      permissionMode: 'acceptEdits',
      cwd: '/w',
      env: { ANTHROPIC_API_KEY: 'k', SWARM_TEAMMATE_COMMAND: 'ignored for claude', HOME: '/h' },
    });
    expect(cmd.argv).toEqual([
      '/opt/claude/bin/claude', ...SHARED, '--agent-type', 'reviewer', '--model', 'opus', '--plan-mode-required',
      '--permission-mode', 'acceptEdits',
    ]);
    expect(cmd.argv).not.toContain('--lead-verify-key');
    expect(cmd.argv).not.toContain('--cwd');
    expect(cmd.env).toEqual({
      ANTHROPIC_API_KEY: 'k',
      SWARM_TEAMMATE_COMMAND: 'ignored for claude',
      CLAUDECODE: '1',
      CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
      CLAUDE_CODE_TASK_LIST_ID: base.team,
      CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
    });
  });

  it('bypassPermissions becomes --dangerously-skip-permissions; no mode, no flag', () => {
    const bypass = buildTeammateCommand({ ...base, runtime: 'claude', which, permissionMode: 'bypassPermissions' });
    expect(bypass.argv.slice(-1)).toEqual(['--dangerously-skip-permissions']);
    expect(bypass.argv).not.toContain('--permission-mode');
    const none = buildTeammateCommand({ ...base, runtime: 'claude', which });
    expect(none.argv).toEqual(['/opt/claude/bin/claude', ...SHARED]);
  });

  it('its Claude Code session: --session-id <id> to start it, --resume <id> to go on in it; a swarm teammate gets neither', () => {
    const id = '0b6f5c1e-3a0d-4c2b-9f3e-5d6a7b8c9d0e';
    expect(buildTeammateCommand({ ...base, runtime: 'claude', which, claudeSession: id }).argv).toEqual(['/opt/claude/bin/claude', ...SHARED, '--session-id', id]);
    expect(buildTeammateCommand({ ...base, runtime: 'claude', which, claudeSession: id, resume: true }).argv).toEqual(['/opt/claude/bin/claude', ...SHARED, '--resume', id]);
    const swarmArgv = buildTeammateCommand({ ...base, runtime: 'swarm', claudeSession: id, resume: true }).argv;
    expect(swarmArgv).not.toContain(id);
    expect(swarmArgv.at(-1)).toBe('--resume');
  });

  it("the team's scratchpad: a --settings whose allow rules cover it ('//' starts an absolute path; Edit covers Write), no --add-dir", () => {
    const scratchpad = '/home/u/.claude/scratchpad/sq';
    const cmd = buildTeammateCommand({ ...base, runtime: 'claude', which, permissionMode: 'acceptEdits', scratchpad });
    expect(cmd.argv).toEqual([
      '/opt/claude/bin/claude', ...SHARED, '--permission-mode', 'acceptEdits',
      '--settings', '{"permissions":{"allow":["Read(//home/u/.claude/scratchpad/sq/**)","Edit(//home/u/.claude/scratchpad/sq/**)"]}}',
    ]);
    // --add-dir would stop Claude Code 2.1.332 at a trust dialog for the directory (claude-scratchpad.test.ts).
    expect(cmd.argv).not.toContain('--add-dir');
    expect(scratchpadAllowRules(scratchpad)).toEqual(['Read(//home/u/.claude/scratchpad/sq/**)', 'Edit(//home/u/.claude/scratchpad/sq/**)']);
    const bypass = buildTeammateCommand({ ...base, runtime: 'claude', which, permissionMode: 'bypassPermissions', scratchpad });
    expect(bypass.argv.slice(SHARED.length + 1)).toEqual(['--dangerously-skip-permissions', ...claudeSettingsArgs(scratchpad, undefined)]);
    // A swarm teammate finds it itself (its system prompt and its path guard): no flag for it.
    expect(buildTeammateCommand({ ...base, scratchpad }).argv).toEqual(buildTeammateCommand(base).argv);
    // With the file the recipe wrote them to (a member on this machine), its path instead of the JSON.
    const filed = buildTeammateCommand({ ...base, runtime: 'claude', which, scratchpad, settingsFile: '/r/teams/sq/prompts/w.settings.json' });
    expect(filed.argv.slice(-2)).toEqual(['--settings', '/r/teams/sq/prompts/w.settings.json']);
    expect(buildTeammateCommand({ ...base, runtime: 'claude', which, settingsFile: '/r/f.json' }).argv).not.toContain('--settings'); // no rules, no flag
  });

  it('a clear error when claude is not on PATH', () => {
    expect(() => buildTeammateCommand({ ...base, runtime: 'claude', which: () => undefined })).toThrow(
      /--runtime claude needs the `claude` CLI \(Claude Code\) on PATH/,
    );
  });

  it('findOnPath finds an executable file, like command -v', () => {
    const nodeDir = process.execPath.slice(0, process.execPath.lastIndexOf('/'));
    expect(findOnPath('node', { PATH: `/nonexistent:${nodeDir}` })).toBe(`${nodeDir}/node`);
    expect(findOnPath('node', { PATH: '/nonexistent' })).toBeUndefined();
    expect(findOnPath('definitely-not-a-command-x1', { PATH: nodeDir })).toBeUndefined();
    expect(findOnPath(process.execPath, {})).toBe(process.execPath);
  });

  it('findOnPath searches only the PATH it is given, never the process PATH', () => {
    // `node` is on the process PATH (the tests run under it), but not on an empty or missing one.
    expect(findOnPath('node', { PATH: '' })).toBeUndefined();
    expect(findOnPath('node', {})).toBeUndefined();
    expect(findOnPath('node', { PATH: ':' })).toBeUndefined();
  });

  it('findOnPath never takes an empty PATH entry as the current directory', async () => {
    // `which` reads an empty entry as the cwd: a `claude` planted in a repository would run.
    const dir = await tempRoot('swarm-which-');
    writeFileSync(path.join(dir, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      for (const PATH of ['', ':', ':/nonexistent', '/nonexistent:']) expect(findOnPath('tool', { PATH }), JSON.stringify(PATH)).toBeUndefined();
      expect(findOnPath('tool', { PATH: dir })).toBe(path.join(dir, 'tool'));
    } finally {
      process.chdir(cwd);
    }
  });

  it('findOnPath skips a directory of that name and a file without the execute bit', async () => {
    const dir = await tempRoot('swarm-which-');
    mkdirSync(path.join(dir, 'a', 'tool'), { recursive: true });
    mkdirSync(path.join(dir, 'b'));
    writeFileSync(path.join(dir, 'b', 'tool'), '#!/bin/sh\n', { mode: 0o644 });
    mkdirSync(path.join(dir, 'c'));
    writeFileSync(path.join(dir, 'c', 'tool'), '#!/bin/sh\n', { mode: 0o755 });
    const PATH = ['a', 'b', 'c'].map((d) => path.join(dir, d)).join(':');
    expect(findOnPath('tool', { PATH })).toBe(path.join(dir, 'c', 'tool'));
  });
});

describe("the user's claude (--runtime claude)", () => {
  it('under npm (npx swarm in the clone), the project\'s node_modules/.bin claude is passed over for the user\'s', async () => {
    const dir = await tempRoot('swarm-which-');
    const project = path.join(dir, 'clone', 'node_modules', '.bin');
    const user = path.join(dir, 'home', 'bin');
    for (const d of [project, user]) {
      mkdirSync(d, { recursive: true });
      writeFileSync(path.join(d, 'claude'), '#!/bin/sh\n', { mode: 0o755 });
    }
    const PATH = [project, user, '/usr/bin'].join(':');
    expect(resolveClaude({ PATH, npm_command: 'exec' })).toBe(path.join(user, 'claude'));
    expect(resolveClaude({ PATH })).toBe(path.join(project, 'claude')); // not under npm: the PATH as it is
    expect(userPathFor({ PATH: `${project}/:${user}:/x/node_modules/@npmcli/run-script/lib/node-gyp-bin`, npm_command: 'run-script' })).toBe(user);
    // Only npm's one: the user's own claude under node_modules/.bin is the only one: not found, said.
    expect(() => resolveClaude({ PATH: project, npm_command: 'exec' })).toThrow(/--runtime claude needs the `claude` CLI/);
    expect(() => resolveClaude({ PATH: project, npm_command: 'exec' })).toThrow(expect.objectContaining({ kind: 'not_found' }));
    // Only npm's own entries go: a directory below one, or one merely named like it, stays.
    const kept = ['/p/node_modules/.bin/tools', '/p/node_modules/.binx', '/p/node-gyp-bin/x', '/p/node-gyp-binx'];
    expect(userPathFor({ PATH: kept.join(':'), npm_command: 'exec' })).toBe(kept.join(':'));
  });
});

describe('shellLine', () => {
  const odd = ['a b', "it's", '"dq"', '$HOME', '`id`', ';', 'x;', '-n', '--', '#{pane_id}', '*', '', 'new\nline', '!bang', '~', 'é'];

  it('quotes every word so that sh reads back exactly the same argv and env', async () => {
    const cmd = {
      argv: ['sh', '-c', 'printf "%s\\0" "$SWARM_PROBE" "$@"', 'sh', ...odd],
      env: { SWARM_PROBE: `v "q" 'sq' $HOME; #{x} \\ end;` },
    };
    const line = shellLine(cmd, '/tmp');
    expect(line.startsWith(`cd /tmp && env `)).toBe(true);
    const { stdout } = await promisify(execFile)('sh', ['-c', line], { env: { PATH: process.env.PATH ?? '/bin:/usr/bin', HOME: '/nowhere' } });
    expect(stdout.split('\0').slice(0, -1)).toEqual([cmd.env.SWARM_PROBE, ...odd]);
  });

  it('without env or cwd it is just the quoted argv; bad variable names are refused', () => {
    expect(shellLine({ argv: ['node', 'a b'], env: {} })).toBe(quote(['node', 'a b']));
    expect(() => shellLine({ argv: ['x'], env: { 'A B': '1' } })).toThrow(/invalid environment variable name/);
  });
});

describe('one flag table: what the builder writes is what the runtime reads', () => {
  it('every flag of protocol/teammate-flags.ts, set, survives argv → flagsFromArgv → parseFlags', () => {
    const { argv } = buildTeammateCommand({
      ...base,
      leadVerifyKey: generateLeadKeyPair(Date.now()).verifyKey,
      agentType: 'reviewer',
      model: 'claude-x',
      planModeRequired: true,
      permissionMode: 'acceptEdits',
      cwd: '/tmp/w',
      resume: true,
    });
    const flags = flagsFromArgv(argv);
    expect(Object.keys(flags).sort()).toEqual(Object.keys(TEAMMATE_FLAGS).sort());
    expect(argv.filter((w) => w.startsWith('--')).map((w) => w.slice(2))).toEqual(Object.values(TEAMMATE_FLAGS).map((f) => f.flag));
    expect(parseFlags(flags)).toMatchObject({ agentId: 'alice@sq', planModeRequired: true, permissionMode: 'acceptEdits', mode: 'acceptEdits', cwd: '/tmp/w', resume: true });
  });

  it('a missing required flag is named with its value shape', () => {
    expect(() => parseFlags({ agentName: 'alice', teamName: 'sq', leadVerifyKey: 'k' })).toThrow('swarm teammate: expected --agent-id <name@team>');
    expect(() => parseFlags({ agentId: 'alice@sq', agentName: 'alice', teamName: 'sq', leadVerifyKey: '' })).toThrow(
      'swarm teammate: expected --lead-verify-key <createdAtMs>.<base64url key>',
    );
  });
});
