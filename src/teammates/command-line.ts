// The teammate's command line and environment (docs/protocol.md#teammate-command-line), built as data: an argv array (run as the
// pane's command, never typed into a shell) and the variables forwarded from the leader. The flags
// themselves are declared once, in protocol/teammate-flags.ts.
//
//   swarm runtime:  <node> [TEAMMATE_NODE_FLAGS] <abs bin/swarm.js> teammate --agent-id <name@team> --agent-name <name>
//                   --team-name <team> --agent-color <c> --parent-session-id <id>
//                   --lead-verify-key <key> [--agent-type t] [--model m] [--plan-mode-required]
//                   [--permission-mode m] [--cwd dir] [--resume]
//                   (SWARM_TEAMMATE_COMMAND, split with shell-quote, replaces `<node> <bin> teammate`)
//   claude runtime: <abs path of claude on PATH> --agent-id --agent-name --team-name --agent-color
//                   --parent-session-id [--agent-type] [--model] [--plan-mode-required]
//                   [--session-id <id> | --resume <id>] [--permission-mode m | --dangerously-skip-permissions]
//                   --settings <its settings file: {"permissions":{"allow":["Read(/<scratchpad>/**)",
//                   "Edit(/<scratchpad>/**)","Edit(/<team memory>/*.md)"]}}> (on another machine the JSON
//                   itself) (after --append-system-prompt-file <its memory prompt>), plus
//                   CLAUDECODE=1 CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 CLAUDE_CODE_TASK_LIST_ID=<team>
//                   CLAUDE_CODE_ENABLE_TODO_TOOLS=1 (no swarm-only flags)
// `shellLine` renders the same thing as one POSIX shell line, every word quoted (for --dry-run).
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, quote } from 'shell-quote';
import which from 'which';
import type { PermissionMode } from '../protocol/config.js';
import { SwarmError } from '../protocol/errors.js';
import { agentId, assertEnvName } from '../protocol/names.js';
import { flagWords, type TeammateFlags } from '../protocol/teammate-flags.js';

export type Env = Record<string, string | undefined>;

export const TEAMMATE_RUNTIMES = ['swarm', 'claude'] as const;
export type TeammateRuntime = (typeof TEAMMATE_RUNTIMES)[number];

/**
 * The model credentials: forwarded to a teammate (its model calls need them), never printed (the dry
 * run shows `<redacted>`), never handed to the commands a swarm teammate runs (its Bash tool).
 */
export const CREDENTIAL_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const;

/** Variables forwarded from the leader's environment as they are, besides every `SWARM_*`. */
export const FORWARDED_ENV = [
  'CLAUDE_CONFIG_DIR',
  ...CREDENTIAL_ENV,
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'NODE_EXTRA_CA_CERTS',
  'SSL_CERT_FILE',
  // The colour choice (cli/output/color.ts), so panes follow the shell they were launched from.
  'NO_COLOR',
  'FORCE_COLOR',
] as const;

/**
 * Set for a real `claude` teammate: it runs as an agent-team member and its Task tools use the
 * team's task list (docs/protocol.md#task-list). Newer Claude Code builds hide the Task tools on newer models unless
 * CLAUDE_CODE_ENABLE_TODO_TOOLS is set.
 */
export function claudeTeammateEnv(team: string): Record<string, string> {
  return {
    CLAUDECODE: '1',
    CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS: '1',
    CLAUDE_CODE_TASK_LIST_ID: team,
    CLAUDE_CODE_ENABLE_TODO_TOOLS: '1',
  };
}

/**
 * Claude Code's allow rules for the team's scratchpad (docs/scratchpad.md): its file tools read and
 * write there without asking. In a rule `//` starts an absolute path (a single `/` is relative to
 * the settings file, and Claude Code asks), and an Edit rule covers every tool that edits files,
 * Write included (Claude Code looks up no path rules under Write's own name).
 */
export function scratchpadAllowRules(scratchpad: string): string[] {
  return ['Read', 'Edit'].map((tool) => `${tool}(/${scratchpad}/**)`);
}

/** Settings as Claude Code reads them from `--settings`: allow rules only. */
export interface ClaudeSettings {
  permissions: { allow: string[] };
}

/**
 * The settings a claude teammate starts with: allow rules for the scratchpad and the team memory
 * (none: undefined, no flag). Not `--add-dir`: Claude Code 2.1.332 stops at a trust dialog for a
 * directory added so ("Is this a directory you created or one you trust?"), which nobody answers in
 * a teammate's pane; the rules alone let 2.1.112 and 2.1.332 write and read there unasked
 * (test/teammates/claude-scratchpad.test.ts), and the memory directory is Claude Code's own.
 */
export function claudeSettings(scratchpad: string | undefined, memoryDir: string | undefined): ClaudeSettings | undefined {
  const allow = [...(scratchpad === undefined ? [] : scratchpadAllowRules(scratchpad)), ...claudeMemoryRules(memoryDir)];
  return allow.length === 0 ? undefined : { permissions: { allow } };
}

/**
 * `--settings` for a claude teammate: the file its settings were written to (teammates/recipe.ts
 * prepareMemberDirs), or, with none (another machine: no file there), the JSON itself, which
 * Claude Code copies to a file in its temp directory and never removes.
 */
export function claudeSettingsArgs(scratchpad: string | undefined, memoryDir: string | undefined, file?: string): string[] {
  const settings = claudeSettings(scratchpad, memoryDir);
  return settings === undefined ? [] : ['--settings', file ?? JSON.stringify(settings)];
}

/** The absolute path of this package's `bin/swarm.js` (the same from src/ and dist/). */
export const SWARM_BIN = fileURLToPath(new URL('../../bin/swarm.js', import.meta.url));

// Node flags for the swarm teammate process (idle and I/O-bound, and a team runs many; issue 35, an
// idle teammate under 60 MB; `npm run bench -- runtime`, BENCHMARKS.md): a 1 MB young generation (V8
// otherwise commits up to 16 MB of semi-space), about 16 MB; no optimizing compiler (`--no-opt`: a
// tool's own JavaScript runs on V8's baseline tiers, a Grep over 300 files about 15 % slower), about
// 4 MB. Left out: `--single-threaded` and `--single-threaded-gc` (4 MB less, but V8's idle-time GC
// then costs an idle teammate 0.2-0.4 % of a core, ten times more), `--v8-pool-size=1` (the same),
// `--lite-mode` (no WebAssembly), MALLOC_ARENA_MAX (no change once `--no-opt` is given).
export const TEAMMATE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--no-opt'];

export interface TeammateCommandInput {
  runtime: TeammateRuntime;
  team: string;
  name: string;
  color: string;
  leadSessionId: string;
  leadVerifyKey: string;
  agentType?: string | undefined;
  model?: string | undefined;
  planModeRequired?: boolean | undefined;
  permissionMode?: PermissionMode | undefined;
  cwd?: string | undefined;
  /**
   * A swarm teammate restores its conversation from its transcript (`swarm resume`); a claude one
   * continues its session `claudeSession` (`--resume <id>`).
   */
  resume?: boolean | undefined;
  /** A claude teammate's Claude Code session (config.json `sessionId`): started with `--session-id <id>`, or continued (`resume`). A swarm one has none. */
  claudeSession?: string | undefined;
  /** The team's scratchpad (team/paths.ts): a claude teammate is given it (`claudeSettingsArgs`); a swarm one finds it itself. */
  scratchpad?: string | undefined;
  /** A claude teammate's team memory directory (team/paths.ts memoryDir): see claudeMemoryRules. A swarm one finds its own. */
  memoryDir?: string | undefined;
  /** A claude teammate's appended system prompt (its team memory: teammates/recipe.ts claudeMemberPrompt). */
  appendPromptFile?: string | undefined;
  /** The file a claude teammate's `claudeSettings` are in (teammates/recipe.ts); without it, the JSON goes on the command line. */
  settingsFile?: string | undefined;
  /** The leader's environment: forwarded variables, SWARM_TEAMMATE_COMMAND, PATH (for claude). */
  env: Env;
  /** Default [process.execPath, ...TEAMMATE_NODE_FLAGS, SWARM_BIN]. */
  swarmExecutable?: readonly string[];
  /** Finds `claude` on PATH; default `findOnPath`. */
  which?: (command: string, env: Env) => string | undefined;
  /** The pane runs on another machine: `claude` is that machine's, found on its PATH there (not looked up here). */
  remote?: boolean;
}

export interface TeammateCommand {
  argv: string[];
  /** Only the variables to set for the teammate (forwarded + runtime ones), not a whole env. */
  env: Record<string, string>;
}

/** The forwarded subset of `env` (docs/protocol.md#teammate-command-line), in a stable order. */
export function forwardedEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of FORWARDED_ENV) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  for (const k of Object.keys(env).filter((k) => k.startsWith('SWARM_')).sort()) {
    const v = env[k];
    if (v !== undefined) out[k] = v;
  }
  return out;
}

/** `SWARM_TEAMMATE_COMMAND` split into words; only a plain command line is accepted. */
export function parseCommandOverride(text: string, env: Env): string[] {
  const vars: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) vars[k] = v;
  const words = parse(text, vars);
  const bad = words.find((w) => typeof w !== 'string');
  if (bad !== undefined) {
    throw new SwarmError(
      'invalid_input',
      `SWARM_TEAMMATE_COMMAND must be a plain command line (no pipes, redirections, globs or comments), got ${JSON.stringify(text)}`,
    );
  }
  const argv = words as string[];
  if (argv.length === 0 || argv[0] === '') {
    throw new SwarmError('invalid_input', `SWARM_TEAMMATE_COMMAND names no command: ${JSON.stringify(text)}`);
  }
  return argv;
}

/** The input as teammate flags (protocol/teammate-flags.ts declares them). */
function teammateFlags(i: TeammateCommandInput): TeammateFlags {
  return {
    agentId: agentId(i.name, i.team),
    agentName: i.name,
    teamName: i.team,
    agentColor: i.color,
    parentSessionId: i.leadSessionId,
    leadVerifyKey: i.leadVerifyKey,
    agentType: i.agentType,
    model: i.model,
    planModeRequired: i.planModeRequired,
    permissionMode: i.permissionMode,
    cwd: i.cwd,
    resume: i.resume,
  };
}

/**
 * The PATH to look for the user's `claude` on. Under npm (`npx swarm`, `npm run`: npm_command is
 * set), npm put every `node_modules/.bin` from the cwd up in front of the user's PATH, so the
 * Claude Code a project depends on (swarm's own devDependency, in the clone) would win over the
 * one the user installed: those entries are left out.
 */
export function userPathFor(env: Env): string | undefined {
  if (env.npm_command === undefined || env.PATH === undefined) return env.PATH;
  const npmAdded = (dir: string): boolean => /[/\\]node_modules[/\\]\.bin[/\\]?$/.test(dir) || /[/\\]node-gyp-bin[/\\]?$/.test(dir);
  return env.PATH.split(path.delimiter).filter((d) => !npmAdded(d)).join(path.delimiter);
}

/** The absolute path of the user's `claude` on PATH (see userPathFor), or a SwarmError saying how to get it. */
export function resolveClaude(env: Env, which: (command: string, env: Env) => string | undefined = findOnPath): string {
  const claude = which('claude', { ...env, PATH: userPathFor(env) });
  if (claude === undefined) {
    throw new SwarmError(
      'not_found',
      '--runtime claude needs the `claude` CLI (Claude Code) on PATH; install it (npm install -g @anthropic-ai/claude-code) or use --runtime swarm',
    );
  }
  return claude;
}

/**
 * A claude teammate's rule for the project's team memory (docs/memory.md): Write/Edit of a `*.md`
 * directly in it allowed without a question (a Claude Code `Edit` rule covers every file-editing
 * tool; `//` starts an absolute path in its rules). The directory is Claude Code's own project
 * memory, so no `--add-dir` is needed (and 2.1.332 would stop at a trust dialog for one).
 */
export function claudeMemoryRules(memoryDir: string | undefined): string[] {
  return memoryDir === undefined ? [] : [`Edit(/${memoryDir}/*.md)`];
}

/** The teammate's argv and the variables to set for it. Throws SwarmError when it cannot be built. */
export function buildTeammateCommand(i: TeammateCommandInput): TeammateCommand {
  if (i.runtime === 'claude') {
    const claude = i.remote === true ? 'claude' : resolveClaude(i.env, i.which);
    // claude spells bypassPermissions as its own flag.
    const bypass = i.permissionMode === 'bypassPermissions';
    const flags = flagWords({ ...teammateFlags(i), ...(bypass ? { permissionMode: undefined } : {}) }, (f) => f.claude);
    return {
      argv: [
        claude,
        ...flags,
        ...(i.claudeSession === undefined ? [] : [i.resume === true ? '--resume' : '--session-id', i.claudeSession]),
        ...(bypass ? ['--dangerously-skip-permissions'] : []),
        ...(i.appendPromptFile !== undefined ? ['--append-system-prompt-file', i.appendPromptFile] : []),
        ...claudeSettingsArgs(i.scratchpad, i.memoryDir, i.settingsFile),
      ],
      env: { ...forwardedEnv(i.env), ...claudeTeammateEnv(i.team) },
    };
  }
  const override = i.env.SWARM_TEAMMATE_COMMAND;
  const exe =
    override !== undefined && override.trim() !== ''
      ? parseCommandOverride(override, i.env)
      : [...(i.swarmExecutable ?? [process.execPath, ...TEAMMATE_NODE_FLAGS, SWARM_BIN]), 'teammate'];
  return {
    argv: [...exe, ...flagWords(teammateFlags(i))],
    env: forwardedEnv(i.env),
  };
}

/** One POSIX shell line: `[cd <cwd> && ]env K=V ... argv...`, every word shell-quoted. */
export function shellLine(cmd: TeammateCommand, cwd?: string): string {
  const pairs = Object.entries(cmd.env).map(([k, v]) => {
    assertEnvName(k);
    return `${k}=${v}`;
  });
  const words = pairs.length > 0 ? ['env', ...pairs, ...cmd.argv] : cmd.argv;
  return `${cwd === undefined ? '' : `cd ${quote([cwd])} && `}${quote(words)}`;
}

/** The absolute path of an executable file `command` on `env.PATH`, like `command -v`. */
export function findOnPath(command: string, env: Env): string | undefined {
  // Only the PATH we are given counts: `which` reads process.env.PATH when `path` is undefined, and
  // treats an empty entry as the cwd, so empty entries are dropped and an empty PATH finds nothing.
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((d) => d !== '').join(path.delimiter);
  if (dirs === '' && !command.includes('/')) return undefined;
  const found = which.sync(command, { path: dirs, nothrow: true });
  return found === null ? undefined : path.resolve(found);
}
