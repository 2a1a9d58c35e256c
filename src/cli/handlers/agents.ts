// What `swarm agents [--cwd <dir>] [--json]` does (the command line is commands/agents.ts): the
// agent types a teammate may be spawned as (docs/protocol.md#agent-types-and-worktrees) — the
// built-ins, the user's `<root>/agents/*.md`, the project's `<cwd>/.claude/agents/*.md` (project
// wins) — with where each comes from, its tools and its model. Bad files are reported (stderr;
// `problems` in --json) without failing: the command exits 0.
import path from 'node:path';
import { agentTypeModel, type AgentType } from '../../protocol/agent-type.js';
import { agentDirs, loadAgentTypes } from '../../team/agent-types.js';
import { printJson, println, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { renderTable } from '../output/table.js';
import { cliIo } from '../io.js';

export interface AgentsArgs extends GlobalArgs {
  cwd?: string;
}

function toolsText(t: AgentType): string {
  const base = t.tools === undefined ? 'all' : t.tools.map((n) => (n === 'Bash' && t.readOnlyBash === true ? 'Bash (read-only)' : n)).join(', ');
  return t.disallowedTools.length > 0 ? `${base} except ${t.disallowedTools.join(', ')}` : base;
}

function modelText(t: AgentType): string {
  const id = agentTypeModel(t);
  return id === undefined ? 'inherit' : id === t.model ? id : `${t.model} (${id})`;
}

export function agents(args: AgentsArgs): void {
  const cwd = path.resolve(args.cwd ?? cliIo().cwd);
  const root = rootDir();
  const { types, problems } = loadAgentTypes({ cwd, root });
  for (const p of problems) cliIo().stderr.write(`${chalk.yellow('swarm: bad agent file:')} ${p.message}\n`);
  if (args.json) {
    return printJson({
      ...agentDirs({ cwd, root }),
      types: types.map((t) => ({
        name: t.name,
        source: t.source,
        ...(t.file ? { file: t.file } : {}),
        description: t.description,
        tools: t.tools ?? null,
        disallowedTools: t.disallowedTools,
        ...(t.readOnlyBash ? { readOnlyBash: true } : {}),
        model: t.model ?? 'inherit',
        modelId: agentTypeModel(t) ?? null,
        ...(t.permissionMode ? { permissionMode: t.permissionMode } : {}),
        ...(t.color ? { color: t.color } : {}),
      })),
      problems,
    });
  }
  const rows = [
    ['NAME', 'SOURCE', 'TOOLS', 'MODEL', 'DESCRIPTION'].map((text) => ({ text, style: chalk.bold })),
    ...types.map((t) => [{ text: t.name }, { text: t.source, style: chalk.dim }, { text: toolsText(t) }, { text: modelText(t) }, { text: t.description }]),
  ];
  for (const line of renderTable(rows)) println(line);
}
