// The agent types a teammate may be spawned as (docs/protocol.md#agent-types-and-worktrees): the built-ins, then the user's files
// `<root>/agents/*.md`, then the project's `<cwd>/.claude/agents/*.md`; a later source replaces an
// earlier type of the same name (project wins). A file that does not parse is a problem, not a
// failure: `swarm agents` lists it, and spawning a type fails only when its own file is the bad one
// (or the type is unknown while a file is bad). Read synchronously: a handful of small files, read
// by spawn's input check before anything is written and once when a teammate starts.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILTIN_AGENT_TYPES, parseAgentFile, type AgentType } from '../protocol/agent-type.js';
import { SwarmError, errnoCode } from '../protocol/errors.js';
import { userAgentsDir } from './paths.js';

export interface AgentFileProblem {
  file: string;
  /** One line: `<file>: <field>: <what is wrong>`. */
  message: string;
}

export interface AgentCatalog {
  /** Every usable type, built-ins first, each name once. */
  types: AgentType[];
  problems: AgentFileProblem[];
}

/** The user's agent files (`<root>/agents`) and the project's (`<cwd>/.claude/agents`). */
export function agentDirs(o: { cwd: string; root: string }): { user: string; project: string } {
  return { user: userAgentsDir(o.root), project: path.join(o.cwd, '.claude', 'agents') };
}

function readDir(dir: string, source: 'project' | 'user', problems: AgentFileProblem[]): AgentType[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.md')).sort();
  } catch (e) {
    if (errnoCode(e) === 'ENOENT' || errnoCode(e) === 'ENOTDIR') return [];
    problems.push({ file: dir, message: `${dir}: cannot be read (${errnoCode(e) ?? String(e)})` });
    return [];
  }
  const out: AgentType[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    try {
      out.push(parseAgentFile(readFileSync(file, 'utf8'), file, source));
    } catch (e) {
      problems.push({ file, message: e instanceof SwarmError ? e.message : `${file}: cannot be read (${errnoCode(e) ?? String(e)})` });
    }
  }
  return out;
}

export function loadAgentTypes(o: { cwd: string; root: string }): AgentCatalog {
  const dirs = agentDirs(o);
  const problems: AgentFileProblem[] = [];
  const byName = new Map<string, AgentType>();
  for (const t of [...BUILTIN_AGENT_TYPES, ...readDir(dirs.user, 'user', problems), ...readDir(dirs.project, 'project', problems)]) {
    byName.delete(t.name); // a replacement moves to its source's place
    byName.set(t.name, t);
  }
  return { types: [...byName.values()], problems };
}

/**
 * Type `name` of the catalog; otherwise a one-line SwarmError: its own file's problem (a file
 * named `<name>.md` that does not parse), or "unknown agent type" listing the known ones (and the
 * first bad file, which may be the one meant).
 */
export function findAgentType(catalog: AgentCatalog, name: string): AgentType {
  const own = catalog.problems.find((p) => path.basename(p.file, '.md') === name);
  if (own) throw new SwarmError('invalid_input', own.message);
  const found = catalog.types.find((t) => t.name === name);
  if (found) return found;
  const bad = catalog.problems[0];
  const known = catalog.types.map((t) => t.name).join(', ');
  throw new SwarmError(
    'invalid_input',
    `unknown agent type ${JSON.stringify(name)}; known: ${known}${bad ? `; a bad agent file may be the one meant: ${bad.message}` : ''} (swarm agents lists them)`,
  );
}

/** Load and find in one step (spawn, the runtime). */
export function resolveAgentType(o: { cwd: string; root: string }, name: string): AgentType {
  return findAgentType(loadAgentTypes(o), name);
}
