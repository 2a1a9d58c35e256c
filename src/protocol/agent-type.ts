// Agent types (docs/protocol.md#agent-types-and-worktrees): Claude Code's subagent files — Markdown with YAML front matter (name,
// description, tools, disallowedTools, model, permissionMode, color; the body is the system
// prompt) — parsed and checked here (pure), and the four built-in types. Loading the files from
// `<cwd>/.claude/agents` and `<root>/agents` is team/agent-types.ts.
import { parseDocument } from 'yaml';
import * as z from 'zod';
import { PermissionModeSchema, type PermissionMode } from './config.js';
import { SwarmError } from './errors.js';
import { isKnownToolName, type ToolName } from './tool-names.js';

export type AgentTypeSource = 'built-in' | 'project' | 'user';

export interface AgentType {
  name: string;
  description: string;
  /** Allowed tools; undefined = every tool. */
  tools?: readonly string[];
  disallowedTools: readonly string[];
  /** As written: sonnet | opus | haiku | inherit | a model id; undefined = inherit. */
  model?: string;
  permissionMode?: PermissionMode;
  color?: string;
  /** The body: added to the teammate's system prompt. */
  prompt: string;
  source: AgentTypeSource;
  /** The file it came from (project and user types). */
  file?: string;
  /** Bash runs read-only commands only (Explore, Plan, verification). */
  readOnlyBash?: boolean;
}

/** The team tools every teammate keeps whatever its type allows: it must be able to report and use the task list. */
export const TEAM_TOOL_NAMES: readonly ToolName[] = ['SendMessage', 'TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'];

/** A current model of each family the `model` field may name (ids the price table knows). */
export const MODEL_ALIASES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-5-5',
  opus: 'claude-opus-5-5',
  haiku: 'claude-haiku-5-5',
};

/** The model id a type asks for, or undefined for `inherit` (and no model): the leader's/team's default. */
export function agentTypeModel(t: Pick<AgentType, 'model'>): string | undefined {
  if (t.model === undefined || t.model === 'inherit') return undefined;
  return MODEL_ALIASES[t.model] ?? t.model;
}

const NAME_RE = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

const toolList = z
  .union([z.string(), z.array(z.string())], { error: 'expected a comma-separated list or an array of tool names' })
  .transform((v) => (typeof v === 'string' ? v.split(',') : v).map((s) => s.trim()).filter((s) => s !== ''))
  .superRefine((names, ctx) => {
    for (const n of names) if (!isKnownToolName(n)) ctx.addIssue({ code: 'custom', message: `unknown tool ${JSON.stringify(n)} (expected names like Read, Grep, Glob, Bash, Edit, Write)` });
  });

/** The front matter. Other keys Claude Code knows (hooks, skills, …) are ignored. */
export const AgentFrontMatterSchema = z.object({
  name: z.string({ error: 'expected a name (letters, digits, _ and -)' }).regex(NAME_RE, 'expected a name of letters, digits, _ and - starting with a letter'),
  description: z.string({ error: 'expected a one-line description of when to use this agent' }).min(1, 'expected a non-empty description'),
  tools: toolList.optional(),
  disallowedTools: toolList.optional(),
  model: z.string({ error: 'expected sonnet, opus, haiku, inherit or a model id' }).min(1, 'expected sonnet, opus, haiku, inherit or a model id').optional(),
  permissionMode: z
    .enum(PermissionModeSchema.options, { error: (iss) => `expected ${PermissionModeSchema.options.join('|')}, got ${JSON.stringify(iss.input)}` })
    .optional(),
  color: z.string({ error: 'expected a colour name' }).optional(),
});
export type AgentFrontMatter = z.infer<typeof AgentFrontMatterSchema>;

function fileError(file: string, field: string, message: string): SwarmError {
  return new SwarmError('invalid_input', `${file}: ${field}: ${message}`);
}

const FRONT_MATTER_RE = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/;

/** One agent file's text → its type; a SwarmError `<file>: <field>: <what is wrong>` (one line) otherwise. */
export function parseAgentFile(text: string, file: string, source: Exclude<AgentTypeSource, 'built-in'>): AgentType {
  const m = FRONT_MATTER_RE.exec(text.replace(/^\uFEFF/, ''));
  if (!m) throw fileError(file, 'front matter', 'expected the file to start with a --- line, YAML fields, and a closing --- line');
  const doc = parseDocument(m[1] ?? '', { prettyErrors: false });
  if (doc.errors.length > 0) throw fileError(file, 'front matter', `not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`);
  const data: unknown = doc.toJS() ?? {};
  if (typeof data !== 'object' || Array.isArray(data)) throw fileError(file, 'front matter', 'expected YAML fields (key: value)');
  const parsed = AgentFrontMatterSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw fileError(file, issue.path.map(String).join('.') || 'front matter', issue.message);
  }
  const f = parsed.data;
  return {
    name: f.name,
    description: f.description,
    ...(f.tools !== undefined ? { tools: f.tools } : {}),
    disallowedTools: f.disallowedTools ?? [],
    ...(f.model !== undefined ? { model: f.model } : {}),
    ...(f.permissionMode !== undefined ? { permissionMode: f.permissionMode } : {}),
    ...(f.color !== undefined ? { color: f.color } : {}),
    prompt: text.slice(m[0].length).trim(),
    source,
    file,
  };
}

const READ_ONLY_TOOLS: readonly ToolName[] = ['Read', 'Glob', 'Grep', 'Bash'];
const READ_ONLY_NOTE =
  'You are read-only: you have Read, Glob, Grep, and Bash for read-only commands only (ls, cat, head, wc, grep, find, git status/log/diff/show, …; ' +
  'no redirections, no chains with ; or &&). Never try to change files.';

export const VERDICT_VALUES = ['PASS', 'FAIL', 'PARTIAL'] as const;
export type Verdict = (typeof VERDICT_VALUES)[number];

/** The built-in types (docs/protocol.md#agent-types-and-worktrees). */
export const BUILTIN_AGENT_TYPES: readonly AgentType[] = [
  {
    name: 'general-purpose',
    description: 'General-purpose agent: researches, writes and runs code with every tool',
    disallowedTools: [],
    prompt: '',
    source: 'built-in',
  },
  {
    name: 'Explore',
    description: 'Fast read-only agent for finding files, searching code and answering questions about the codebase',
    tools: READ_ONLY_TOOLS,
    disallowedTools: [],
    prompt: `You explore the codebase to answer questions. ${READ_ONLY_NOTE} Search broadly, then read what matters, and report what you found with file paths and line numbers.`,
    source: 'built-in',
    readOnlyBash: true,
  },
  {
    name: 'Plan',
    description: 'Read-only planning agent: studies the code and returns a step-by-step implementation plan',
    tools: READ_ONLY_TOOLS,
    disallowedTools: [],
    prompt: `You plan; you do not implement. ${READ_ONLY_NOTE} Study the code, then send the team lead a concrete plan: the files to change, the steps in order, the risks, and how to test it.`,
    source: 'built-in',
    readOnlyBash: true,
  },
  {
    name: 'verification',
    description: 'Read-only verifier: checks independently that the work meets the goal and ends with a verdict',
    tools: READ_ONLY_TOOLS,
    disallowedTools: [],
    prompt:
      `You verify the team's work independently: do not trust reports, check the files and the facts yourself. ${READ_ONLY_NOTE} ` +
      'Report to the team lead what meets the goal and what does not, with evidence. The LAST line of your report (your SendMessage to team-lead and your final text) ' +
      `must be exactly one of: ${VERDICT_VALUES.map((v) => `VERDICT: ${v}`).join(', ')}.`,
    source: 'built-in',
    readOnlyBash: true,
  },
];

const VERDICT_RE = new RegExp(`^[*_\\s]*VERDICT:\\s*(${VERDICT_VALUES.join('|')})[*_.\\s]*$`);

/** `VERDICT: PASS|FAIL|PARTIAL` on the last non-blank line of `text`, if there. */
export function verdictOf(text: string): Verdict | undefined {
  const last = text.trimEnd().split('\n').at(-1) ?? '';
  return VERDICT_RE.exec(last)?.[1] as Verdict | undefined;
}
