// Where everything lives (docs/protocol.md#root-layout). The only place that looks at the home directory: the root is
// $CLAUDE_CONFIG_DIR if set, else ~/.claude (and Claude Code's own state file is beside it). Every path is built from a validated name, and every
// file path under inboxes/, permissions/, status/, logs/ or the task list is refused while that directory is a
// symlink (checked each time the path is built: the directory may be replaced at any moment).
import os from 'node:os';
import path from 'node:path';
import { assertInboxName, assertMemberName, assertTeamName } from '../protocol/names.js';
import type { HostedFileKind } from '../protocol/hosted.js';
import { isSafeRequestId } from '../protocol/ids.js';
import { isTaskId } from '../protocol/task.js';
import { SwarmError } from '../protocol/errors.js';
import { refuseLinkedDir } from '../storage/atomic.js';
import { projectKey, sessionsKey } from './project-key.js';

/** The user's home directory: $HOME when set (as Claude Code reads it), else the OS account's. */
export function homeDir(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HOME;
  return home && home.trim() !== '' ? path.resolve(home) : os.homedir();
}

export function resolveRoot(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== '' ? path.resolve(dir) : path.join(os.homedir(), '.claude');
}

export interface TeamPaths {
  root: string;
  team: string;
  dir: string;
  config: string;
  inboxes: string;
  inbox(name: string): string;
  archive(name: string): string;
  permissions: string;
  pending: string;
  resolved: string;
  pendingFile(id: string): string;
  resolvedFile(id: string): string;
  audit: string;
  /** `ratelimit.json`: the team-wide rate-limit backoff every swarm-runtime member honours (runtime/rate-limit.ts). */
  rateLimit: string;
  /** `spent.json`: what members that left had spent, still counted in the team's budget (team/spend.ts). */
  spent: string;
  /** `spawn`: the target of the lock held while a member is spawned or resumed (lock dir `spawn.lock`). */
  spawnLock: string;
  /** `plan-answer`: the target of the lock held while a plan approval request is answered. */
  planAnswerLock: string;
  /** `<root>/swarm/keys/<team>.key`: the team's lead signing key (permissions/keys.ts). */
  leadKey: string;
  /** `hosted/`: the in-process backend's files (layout in protocol/hosted.ts). */
  hosted: string;
  /** `hosted/<name>.<kind>.json`. */
  hostedFile(name: string, kind: HostedFileKind): string;
  statusDir: string;
  status(name: string): string;
  /** The leader's control messages a teammate acted on (runtime/acted.ts). */
  acted(name: string): string;
  logsDir: string;
  log(name: string): string;
  /** prompts/<name>.md: what swarm appends to a Claude Code teammate's system prompt (its team memory). */
  appendedPrompt(name: string): string;
  /**
   * prompts/<name>.settings.json: the `--settings` file a Claude Code member (or the Claude Code
   * lead, `team-lead`) starts with. A file, not the JSON itself: Claude Code copies inline JSON to
   * a /tmp file it never removes.
   */
  claudeSettings(name: string): string;
  /** logs/<name>.stderr: the teammate's stderr, kept beside what its pane shows. */
  stderrLog(name: string): string;
  /** The team's task list, Claude Code's layout (docs/protocol.md#task-list): `<root>/tasks/<team>/`. */
  tasks: TaskListPaths;
  /** `<root>/scratchpad/<team>/`: the directory every member reads and writes without asking (docs/scratchpad.md). */
  scratchpad: string;
}

export interface TaskListPaths {
  dir: string;
  /** `.lock`: the list lock's target (lock dir `.lock.lock`), held to create, delete or change dependencies. */
  lock: string;
  /** `.highwatermark`: the highest id ever issued, as decimal text. */
  highwatermark: string;
  /** `<id>.json` (its lock dir `<id>.json.lock`). */
  task(id: string): string;
}

/** The root's task lists (Claude Code's `tasks/`, beside `teams/`). */
export function tasksDir(root: string): string {
  return path.join(root, 'tasks');
}

/** The root's team scratchpads, `<root>/scratchpad/` (outside `teams/`: teammates write there). */
export function scratchpadsDir(root: string): string {
  return path.join(root, 'scratchpad');
}

/**
 * Claude Code's own state file (onboarding done, approved API keys, trusted folders), as the
 * `claude` a teammate runs reads it: $CLAUDE_CONFIG_DIR/.claude.json, else ~/.claude.json.
 */
export function claudeCodeStateFile(env: NodeJS.ProcessEnv | Record<string, string | undefined> = process.env): string {
  const dir = env.CLAUDE_CONFIG_DIR;
  return dir && dir.trim() !== '' ? path.join(path.resolve(dir), '.claude.json') : path.join(os.homedir(), '.claude.json');
}

export function teamsDir(root: string): string {
  return path.join(root, 'teams');
}

/** swarm's private state outside teams/ (keys, ssh sockets). */
export function swarmDir(root: string): string {
  return path.join(root, 'swarm');
}

/**
 * `<root>/swarm/demos/`: one record per running `swarm demo` this root started (cli/demo/root.ts),
 * so that `swarm doctor` looks only at the demos that are this root's, never another user's or
 * another root's in the shared temp dir.
 */
export function demosDir(root: string): string {
  return path.join(swarmDir(root), 'demos');
}

/** `<root>/swarm/keys`: every team's lead signing key, `<team>.key`. */
export function keysDir(root: string): string {
  return path.join(swarmDir(root), 'keys');
}

/** `<root>/swarm/ssh`: the shared ssh connections' control sockets (backends/ssh/connection.ts). */
export function sshControlDir(root: string): string {
  return path.join(swarmDir(root), 'ssh');
}

/** `<root>/projects`: Claude Code's per-project directories (transcripts, memory), one per project key. */
export function projectsDir(root: string): string {
  return path.join(root, 'projects');
}

/**
 * `<root>/projects/<project key>/memory/team`: the team memory of the project `cwd` belongs to
 * (docs/memory.md), Claude Code's directory for it; the key is Claude Code's (project-key.ts).
 */
export function memoryDir(root: string, cwd: string): string {
  return path.join(projectsDir(root), projectKey(cwd), 'memory', 'team');
}

/**
 * `<root>/projects/<cwd's key>/<sessionId>.jsonl`: the transcript of the Claude Code session
 * `sessionId` started in `cwd` (a claude teammate's, docs/claude-code.md#resume), which `claude
 * --resume <sessionId>` reads. Claude Code writes it; swarm only looks whether it is there.
 */
export function claudeTranscript(root: string, cwd: string, sessionId: string): string {
  return path.join(projectsDir(root), sessionsKey(cwd), `${sessionId}.jsonl`);
}

/** `<root>/agents`: the user's agent type files (Claude Code's layout). */
export function userAgentsDir(root: string): string {
  return path.join(root, 'agents');
}

/** The root's Claude Code settings files: `settings.json`, then `settings.local.json`. */
export function rootSettingsFiles(root: string): string[] {
  return [path.join(root, 'settings.json'), path.join(root, 'settings.local.json')];
}

/**
 * The Claude Code settings files whose `hooks` a swarm-runtime teammate runs (runtime/hooks.ts), in
 * Claude Code's order: the user's `<root>/settings.json`, the project's `<cwd>/.claude/settings.json`,
 * the local `<cwd>/.claude/settings.local.json`.
 */
export function hookSettingsFiles(root: string, cwd: string): { source: 'user' | 'project' | 'local'; file: string }[] {
  return [
    { source: 'user', file: path.join(root, 'settings.json') },
    { source: 'project', file: path.join(cwd, '.claude', 'settings.json') },
    { source: 'local', file: path.join(cwd, '.claude', 'settings.local.json') },
  ];
}

function taskId(id: string): string {
  if (!isTaskId(id)) throw new SwarmError('invalid_input', `invalid task id "${id}": expected a number like 3 (see swarm tasks)`);
  return id;
}

function requestId(id: string): string {
  if (!isSafeRequestId(id)) {
    throw new SwarmError('invalid_name', `invalid request id "${id}": expected an id like perm-1733140000000-a1b2c3 (see 'swarm permissions')`);
  }
  return id;
}

/** `dirs` checked to be real directories (not symlinks), then `file` joined to the last. */
function inside(dirs: readonly string[], file: string): string {
  for (const d of dirs) refuseLinkedDir(d);
  return path.join(dirs[dirs.length - 1]!, file);
}

export function teamPaths(root: string, team: string): TeamPaths {
  assertTeamName(team);
  const dir = path.join(teamsDir(root), team);
  const inboxes = path.join(dir, 'inboxes');
  const permissions = path.join(dir, 'permissions');
  const pending = path.join(permissions, 'pending');
  const resolved = path.join(permissions, 'resolved');
  const statusDir = path.join(dir, 'status');
  const logsDir = path.join(dir, 'logs');
  const tasks = path.join(tasksDir(root), team);
  const hosted = path.join(dir, 'hosted');
  return {
    root,
    team,
    dir,
    config: path.join(dir, 'config.json'),
    inboxes,
    inbox: (name) => inside([inboxes], `${assertInboxName(name)}.json`),
    archive: (name) => inside([inboxes], `${assertInboxName(name)}.archive.jsonl`),
    permissions,
    pending,
    resolved,
    pendingFile: (id) => inside([permissions, pending], `${requestId(id)}.json`),
    resolvedFile: (id) => inside([permissions, resolved], `${requestId(id)}.json`),
    audit: path.join(permissions, 'audit.jsonl'),
    rateLimit: path.join(dir, 'ratelimit.json'),
    spent: path.join(dir, 'spent.json'),
    spawnLock: path.join(dir, 'spawn'),
    planAnswerLock: path.join(dir, 'plan-answer'),
    leadKey: path.join(keysDir(root), `${team}.key`),
    hosted,
    hostedFile: (name, kind) => path.join(hosted, `${assertMemberName(name)}.${kind}.json`),
    statusDir,
    status: (name) => inside([statusDir], `${assertInboxName(name)}.json`),
    acted: (name) => inside([statusDir], `${assertInboxName(name)}.acted.jsonl`),
    logsDir,
    log: (name) => inside([logsDir], `${assertInboxName(name)}.jsonl`),
    appendedPrompt: (name) => inside([path.join(dir, 'prompts')], `${assertMemberName(name)}.md`),
    claudeSettings: (name) => inside([path.join(dir, 'prompts')], `${assertInboxName(name)}.settings.json`),
    stderrLog: (name) => inside([logsDir], `${assertInboxName(name)}.stderr`),
    tasks: {
      dir: tasks,
      lock: path.join(tasks, '.lock'),
      highwatermark: path.join(tasks, '.highwatermark'),
      task: (id) => inside([tasks], `${taskId(id)}.json`),
    },
    scratchpad: path.join(scratchpadsDir(root), team),
  };
}
