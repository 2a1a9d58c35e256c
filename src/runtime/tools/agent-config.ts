// Files that configure other members: agent types (docs/protocol.md#agent-types-and-worktrees: `<cwd>/.claude/agents/*.md` and
// `<root>/agents/*.md`, whose front matter sets tools, model and permissionMode of the next teammate
// of that type), Claude Code's settings (permissions, hooks, MCP servers: `.claude/settings*.json`,
// `<root>/settings*.json`) and project MCP servers (`.mcp.json`). A teammate that could write them
// unasked could widen what the next member may do, so Write and Edit of such a path ask team-lead
// in every permission mode (acceptEdits and bypassPermissions included; plan refuses edits anyway),
// and the pane and the request say why (`configSummary`). Reads stay free: they are not secrets.
// Team allow/deny rules decide first, as for any asked call (a rule naming the path, or a bare
// `Write`/`Edit` allow rule, is the person's standing answer).
// Matched on the path as given and its real path (a symlink to one is caught), wildcards matching
// dot files (path-patterns.ts). What these files point to is protected the same way: every file a
// command in the project's or the root's settings (hooks, status line, helpers) or in `.mcp.json`
// (server commands and their arguments) names by a path — read afresh at each Write and Edit, so a
// hook added later counts at once — and the usual homes of such scripts and of skills and slash
// commands, whose front matter can grant tools (`.claude/{hooks,skills,commands}/**`). A command
// naming a program found on PATH (a word without `/`) is not a path here. Not recognised: a hard
// link to one under another name (Write/Edit refuse any file with other links: checked-file.ts), a
// script named only inside another script, and Bash: its commands are not inspected (in bypassPermissions Bash runs unasked and can write
// these files; in every other mode each command asks anyway). What a rewritten agent file can grant
// is bounded anyway: its permissionMode never exceeds the person's (protocol/mode-ceiling.ts).
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { parse } from 'shell-quote';
import { rootSettingsFiles } from '../../team/paths.js';
import { PathPatterns } from './path-patterns.js';
import { realpathLoose } from './paths.js';

/** Anywhere (shown as is): `settings*.json` covers settings.json and settings.local.json. */
export const ANYWHERE_AGENT_CONFIG = [
  '**/.claude/agents/**',
  '**/.claude/settings*.json',
  '**/.mcp.json',
  '**/.claude/hooks/**',
  '**/.claude/skills/**',
  '**/.claude/commands/**',
] as const;
/** Under the root ($CLAUDE_CONFIG_DIR, shown as `<root>/…`): the user's agent types and settings. */
export const ROOT_AGENT_CONFIG = ['agents/**', 'settings*.json'] as const;

/** What the pane and team-lead see for a write of `shown`: why it is asked, when it is. */
export function configSummary(shown: string, pattern: string | undefined): string {
  return pattern === undefined ? shown : `${shown} (protected agent configuration: ${pattern})`;
}

/** The files whose commands name scripts: the project's (relative to the cwd) and the root's. */
function commandSources(root: string, cwd: string | undefined): string[] {
  const project = cwd === undefined ? [] : ['.claude/settings.json', '.claude/settings.local.json', '.mcp.json'].map((f) => path.join(cwd, f));
  return [...project, ...rootSettingsFiles(root)];
}

/** A settings file is at most this big; past it (or not a regular file) it names nothing here. */
const MAX_SOURCE_BYTES = 1 << 20;

/** A source's parsed JSON, or undefined: missing, not a regular file (a FIFO must not hang a Write), too big, not JSON. */
async function readSource(file: string): Promise<unknown> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) return undefined;
    return JSON.parse(await handle.readFile('utf8')) as unknown;
  } catch {
    return undefined;
  } finally {
    await handle.close();
  }
}

/** Every string in a parsed JSON value (commands, arguments, helpers: wherever they sit). */
function* stringsIn(v: unknown): Generator<string> {
  if (typeof v === 'string') yield v;
  else if (Array.isArray(v)) for (const x of v) yield* stringsIn(x);
  else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) yield* stringsIn(x);
}

/** The absolute paths a command line names: its words with a `/` (`$CLAUDE_PROJECT_DIR` and `~/` expanded), one level of `sh -c '…'` too. */
export function pathsNamedBy(command: string, cwd: string, home: string, depth = 0): string[] {
  const words = parse(command, (key) => (key === 'CLAUDE_PROJECT_DIR' ? cwd : key === 'HOME' ? home : `$${key}`)).filter((w): w is string => typeof w === 'string');
  const out: string[] = [];
  for (const w of words) {
    if (/\s/.test(w) && depth === 0) out.push(...pathsNamedBy(w, cwd, home, 1));
    else if (w.includes('/') && !w.includes('$') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(w)) out.push(path.resolve(cwd, w.startsWith('~/') ? path.join(home, w.slice(2)) : w));
  }
  return out;
}

/** The agent-configuration list, matched on every form of a path given, and the files its commands name. */
export class AgentConfigPaths {
  private constructor(
    private readonly patterns: PathPatterns,
    private readonly root: string,
    private readonly cwd: string | undefined,
    private readonly home: string,
  ) {}

  /** `cwd` is the member's (its project's settings and `.mcp.json`), `home` expands `~/` in commands. */
  static async create(root: string, where: { cwd?: string; home?: string } = {}): Promise<AgentConfigPaths> {
    const patterns = await PathPatterns.compile({ bases: [{ label: '<root>', dir: root, patterns: ROOT_AGENT_CONFIG }], anywhere: ANYWHERE_AGENT_CONFIG });
    return new AgentConfigPaths(patterns, root, where.cwd, where.home ?? root);
  }

  /** The listed pattern any of these absolute paths matches (as shown to people), or undefined. */
  match(...paths: string[]): string | undefined {
    return this.patterns.match(...paths);
  }

  /** `match`, else which settings file's command names one of these paths (by path or real path). */
  async configures(...paths: string[]): Promise<string | undefined> {
    const listed = this.match(...paths);
    if (listed !== undefined) return listed;
    const targets = new Set(paths);
    for (const source of commandSources(this.root, this.cwd)) {
      const json = await readSource(source);
      if (json === undefined) continue;
      const base = this.cwd ?? path.dirname(source);
      for (const s of stringsIn(json)) {
        for (const named of pathsNamedBy(s, base, this.home)) {
          if (targets.has(named) || targets.has(await realpathLoose(named).catch(() => named))) return `a command in ${source} names it`;
        }
      }
    }
    return undefined;
  }
}
