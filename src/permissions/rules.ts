// Permission rules (docs/protocol.md#permission-requests step 5): data plus a pure evaluator. No I/O; symlinks are not
// resolved here (the caller passes real paths if it cares).
//
// A rule is `Tool` or `Tool(pattern)`, in the spirit of Claude Code's permission rules:
//   Bash                  any command (compound ones included)
//   Bash(npm test)        exactly the command `npm test` (surrounding whitespace ignored)
//   Bash(npm test:*)      `npm test` or `npm test <anything>` (the prefix, then a space or tab)
//   Edit(src/**)          a path glob on the tool's file; relative globs are relative to the
//   Read(/etc/hosts)      worker's cwd, absolute ones start with `/`
//   Glob(src/**)          a path glob on the searched directory (`path`, default: the cwd)
//   mcp__server__tool     any other tool by exact name; `mcp__server` covers all of its tools
// Rule families, as in Claude Code: `Edit` rules also cover MultiEdit, Write and NotebookEdit;
// `Read` rules also cover Glob and Grep. `Write`, `Glob`, `Grep`, ... cover only themselves.
//
// Bash safety: a Bash exact or prefix rule never ALLOWS a command containing a shell control
// operator or substitution: `;` `&` `|` (so `&&` `||` too) backtick `$(` `<` `>` newline or CR,
// even inside quotes (we do not parse shell quoting; such commands are simply asked). A DENY rule
// is checked against the whole command and against every piece between those characters (also
// `(` `)` `{` `}`), after dropping leading `VAR=value` words and the wrappers sudo, env, command,
// exec, nohup, time, nice, then, do, else, `!`, and with `/bin/rm` also tried as `rm`. That is
// best effort, not a sandbox: `sh -c "rm ..."` does not match `Bash(rm:*)`.
// A Bash pattern may contain `*` only as the trailing `:*`, and never a control operator (such a
// rule could never match).
//
// Path globs are protocol/glob.ts's (picomatch): `**` as a whole segment is zero or more segments
// (so `src/**` also matches `src` itself); `*` any run within a segment; `?` one character;
// `[abc]` / `[!a]` a character class; `{a,b}` alternatives (no nesting); `\` escapes the next
// character; `(`, `)`, `|` and a leading `!` are literal. A pattern ending in `/` means `/**`. `./` prefixes and repeated `/` are normalised away; `..`
// segments and `~` are rejected. Targets are resolved against the cwd and normalised first, so
// `src/../secret` is `secret`, and a target outside the cwd never matches a relative glob.
// Dot files: in ALLOW rules a wildcard never matches a segment starting with `.` unless the
// pattern spells the dot (`.github/**`, `**/.env`); in DENY rules wildcards match dot files too.
// Case-sensitive. For Glob, an allow glob does not match when the Glob `pattern` input is absolute
// or has a `..` segment (it could search outside `path`).
//
// Evaluation: any matching deny rule → 'deny', else any matching allow rule → 'allow', else 'ask'.
import path from 'node:path';
import * as z from 'zod';
import { SwarmError } from '../protocol/errors.js';
import { compileGlob, globError } from '../protocol/glob.js';
import { ENV_NAME_RE, sameName } from '../protocol/names.js';
import { nearest } from '../protocol/spelling.js';
import { KNOWN_TOOL_NAMES, isKnownToolName, isOneOfTools, isTool, type ToolName } from '../protocol/tool-names.js';

const posix = path.posix;

export const RuleSchema = z.strictObject({
  tool: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,127}$/),
  pattern: z.string().min(1).optional(),
});
export type Rule = z.infer<typeof RuleSchema>;

export interface RuleSet {
  allow: readonly string[];
  deny: readonly string[];
}

export interface ToolRequest {
  toolName: string;
  input: unknown;
  /** The worker's absolute working directory. */
  cwd: string;
}

export type Decision = 'allow' | 'deny' | 'ask';

// Which input field holds the path a path rule looks at, per tool.
const PATH_FIELD: Record<string, string> = {
  Read: 'file_path',
  Edit: 'file_path',
  MultiEdit: 'file_path',
  Write: 'file_path',
  NotebookEdit: 'notebook_path',
  Glob: 'path',
  Grep: 'path',
};
// Tools whose path field is optional and defaults to the cwd.
const PATH_DEFAULTS_TO_CWD: readonly ToolName[] = ['Glob', 'Grep'];

const FAMILY: Record<string, readonly ToolName[]> = {
  Edit: ['Edit', 'MultiEdit', 'Write', 'NotebookEdit'],
  Read: ['Read', 'Glob', 'Grep'],
};

const EXPECTED =
  'expected Tool, Tool(pattern) such as Bash(npm test), Bash(npm test:*), Edit(src/**), Read(/abs/path/*)';

// --- parsing ------------------------------------------------------------------------------------

const CONTROL_RE = /[;&|`<>\n\r]|\$\(/;
const DENY_SPLIT_RE = /[;&|`<>\n\r(){}]|\$\(/;

function invalid(s: string, why: string): SwarmError {
  return new SwarmError('invalid_input', `bad permission rule ${JSON.stringify(s)}: ${why}`);
}

/** Parse `Tool` or `Tool(pattern)` into a normalised Rule; SwarmError('invalid_input') otherwise. */
export function parseRule(s: string): Rule {
  const m = /^([^()\s]+)(?:\((.*)\))?$/s.exec(s.trim());
  if (!m) throw invalid(s, EXPECTED);
  const tool = m[1]!;
  const raw = m[2];
  if (!RuleSchema.shape.tool.safeParse(tool).success) {
    throw invalid(s, `tool name ${JSON.stringify(tool)} must be letters, digits, _ . - (${EXPECTED})`);
  }
  if (raw === undefined) return RuleSchema.parse({ tool });
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw invalid(s, 'control characters are not allowed');
  let pattern: string;
  if (isTool(tool, 'Bash')) pattern = checkBashPattern(s, raw);
  else if (tool in PATH_FIELD) pattern = normaliseGlob(s, raw);
  else throw invalid(s, `${tool} takes no pattern; write just ${tool} (patterns: Bash, ${Object.keys(PATH_FIELD).join(', ')})`);
  return RuleSchema.parse({ tool, pattern });
}

/**
 * A rule a person typed (CLI, console "always"), validated and normalised: parseRule's checks plus
 * a tool name that exists (protocol/tool-names), since a rule for `bash` or `Bsh` is stored fine
 * but never matches anything. The error suggests the rule as probably meant: `deny "bash(rm:*)"`
 * → did you mean "Bash(rm:*)"? parseRule itself stays lenient, so a hand-edited config.json rule
 * for a tool swarm does not know is simply never matched rather than breaking every evaluation.
 */
export function checkRule(s: string): string {
  const tool = /^([^()\s]+)/.exec(s.trim())?.[1];
  if (tool !== undefined && !isKnownToolName(tool)) {
    const sameLetters = KNOWN_TOOL_NAMES.find((k) => sameName(k, tool));
    const meant = sameLetters ?? nearest(tool, KNOWN_TOOL_NAMES);
    if (meant === undefined) {
      throw invalid(s, `unknown tool ${JSON.stringify(tool)}; use one of ${KNOWN_TOOL_NAMES.join(', ')}, or mcp__<server>[__<tool>]`);
    }
    const rewritten = `${meant}${s.trim().slice(tool.length)}`;
    let suggestion = meant;
    try {
      suggestion = formatRule(parseRule(rewritten));
    } catch {
      // the rest of the rule is wrong too: suggest the tool name alone
    }
    const hint = sameLetters === undefined ? '' : ' (tool names are case-sensitive)';
    throw invalid(s, `unknown tool ${JSON.stringify(tool)}${hint}; did you mean ${JSON.stringify(suggestion)}?`);
  }
  return formatRule(parseRule(s));
}

/** The rule as a normalised string (validated like parseRule); `formatRule(parseRule(s))` normalises `s`. */
export function formatRule(rule: Rule): string {
  const join = (r: Rule): string => (r.pattern === undefined ? r.tool : `${r.tool}(${r.pattern})`);
  return join(parseRule(join(rule)));
}

function checkBashPattern(s: string, raw: string): string {
  const pattern = raw.trim();
  const isPrefix = pattern.endsWith(':*');
  const command = isPrefix ? pattern.slice(0, -2).trim() : pattern;
  if (command === '' || command === '*') throw invalid(s, 'write Bash to allow every command');
  if (command.includes('*')) throw invalid(s, 'Bash patterns take `*` only as a trailing `:*` prefix marker, e.g. Bash(npm run:*)');
  if (CONTROL_RE.test(command)) {
    throw invalid(s, 'a Bash rule cannot contain ; & | ` $( < > (commands with them are never matched)');
  }
  return isPrefix ? `${command}:*` : command;
}

function normaliseGlob(s: string, raw: string): string {
  let g = raw.trim();
  if (g === '') throw invalid(s, 'empty path pattern');
  if (g.startsWith('~')) throw invalid(s, 'use an absolute path instead of ~');
  const absolute = g.startsWith('/');
  g = g.replace(/\/{2,}/g, '/');
  if (g.endsWith('/')) g = `${g}**`;
  const segments = g.split('/').filter((seg, i) => !(absolute && i === 0) && seg !== '.');
  if (segments.length === 0) return absolute ? '/**' : '**';
  if (segments.includes('..')) throw invalid(s, '`..` is not allowed in a path pattern');
  const normalised = `${absolute ? '/' : ''}${segments.join('/')}`;
  const why = globError(normalised);
  if (why !== undefined) throw invalid(s, why);
  return normalised;
}

// --- matching a rule against a request ----------------------------------------------------------

/** Which list a rule comes from; ambiguous cases are read the safe way for each. */
export type RuleMode = 'allow' | 'deny';
type Mode = RuleMode;

function field(input: unknown, name: string): unknown {
  return typeof input === 'object' && input !== null ? (input as Record<string, unknown>)[name] : undefined;
}

function toolCovered(ruleTool: string, toolName: string): boolean {
  if (ruleTool === toolName) return true;
  if (isOneOfTools(toolName, FAMILY[ruleTool] ?? [])) return true;
  // `mcp__server` covers `mcp__server__<tool>`.
  return /^mcp__[^_]+(?:_[^_]+)*$/.test(ruleTool) && toolName.startsWith(`${ruleTool}__`);
}

function commandMatches(pattern: string, command: string): boolean {
  const cmd = command.trim();
  if (!pattern.endsWith(':*')) return cmd === pattern;
  const prefix = pattern.slice(0, -2);
  return cmd === prefix || (cmd.startsWith(prefix) && /^[ \t]/.test(cmd.slice(prefix.length)));
}

const WRAPPERS = new Set(['sudo', 'env', 'command', 'exec', 'nohup', 'time', 'nice', 'then', 'do', 'else', '!']);

/** `NAME=value`, a leading assignment of a shell command. */
function isAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  return eq > 0 && ENV_NAME_RE.test(word.slice(0, eq));
}

// Forms of a (piece of a) command a deny rule is tried against: as written, and with leading
// assignments/wrappers dropped and the first word's directory stripped.
function denyForms(piece: string): string[] {
  const words = piece.trim().split(/[ \t]+/).filter((w) => w !== '');
  while (words.length > 0 && (WRAPPERS.has(words[0]!) || isAssignment(words[0]!))) words.shift();
  if (words.length === 0) return [piece];
  const bare = words.join(' ');
  const base = [posix.basename(words[0]!), ...words.slice(1)].join(' ');
  return [piece, bare, base];
}

function bashMatches(pattern: string, command: string, mode: Mode): boolean {
  if (mode === 'allow') return !CONTROL_RE.test(command) && commandMatches(pattern, command);
  const pieces = [command, ...command.split(DENY_SPLIT_RE)];
  return pieces.some((piece) => denyForms(piece).some((form) => commandMatches(pattern, form)));
}

function pathMatches(pattern: string, request: ToolRequest, mode: Mode): boolean {
  const name = PATH_FIELD[request.toolName];
  if (name === undefined) return false;
  const value = field(request.input, name);
  let target: string;
  if (typeof value === 'string' && value !== '') target = posix.resolve(request.cwd, value);
  else if (value === undefined && isOneOfTools(request.toolName, PATH_DEFAULTS_TO_CWD)) target = posix.normalize(request.cwd);
  else return false;
  if (mode === 'allow' && isTool(request.toolName, 'Glob')) {
    const g = field(request.input, 'pattern');
    if (typeof g === 'string' && (g.startsWith('/') || g.split('/').includes('..'))) return false;
  }
  // Both sides relative (to `/` or to the cwd): picomatch's `/**/x` does not match `/x`. The root
  // itself is the empty path, zero segments, which only an all-`**` glob matches.
  const absolute = pattern.startsWith('/');
  const glob = absolute ? pattern.slice(1) : pattern;
  const rel = absolute ? target.slice(1) : posix.relative(request.cwd, target);
  if (rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel)) return false;
  if (rel === '') return glob.split('/').every((seg) => seg === '**');
  return compileGlob(glob, { dot: mode === 'deny' })(rel);
}

/** Does `rule` cover `request`? `mode` picks the safe reading of ambiguous cases (see header). */
export function ruleMatches(rule: Rule, request: ToolRequest, mode: Mode): boolean {
  if (!toolCovered(rule.tool, request.toolName)) return false;
  if (rule.pattern === undefined) return true;
  if (isTool(rule.tool, 'Bash')) {
    const command = field(request.input, 'command');
    return typeof command === 'string' && bashMatches(rule.pattern, command, mode);
  }
  return pathMatches(rule.pattern, request, mode);
}

export interface Evaluation {
  decision: Decision;
  /** The rule (as written) that decided, when one did. */
  rule?: string;
}

/**
 * Deny beats allow; no match asks. Throws SwarmError('invalid_input') for a bad rule string or a
 * relative cwd (configuration errors), never for odd tool input.
 */
export function evaluateWithReason(rules: RuleSet, request: ToolRequest): Evaluation {
  if (!posix.isAbsolute(request.cwd)) {
    throw new SwarmError('invalid_input', `permission request cwd: expected an absolute path, got ${JSON.stringify(request.cwd)}`);
  }
  const deny = rules.deny.map((s) => [s, parseRule(s)] as const);
  const allow = rules.allow.map((s) => [s, parseRule(s)] as const);
  for (const [s, rule] of deny) if (ruleMatches(rule, request, 'deny')) return { decision: 'deny', rule: s };
  for (const [s, rule] of allow) if (ruleMatches(rule, request, 'allow')) return { decision: 'allow', rule: s };
  return { decision: 'ask' };
}

export function evaluate(rules: RuleSet, request: ToolRequest): Decision {
  return evaluateWithReason(rules, request).decision;
}

// --- suggestions for "always allow" ---------------------------------------------------------------

const COMMAND_WORD_RE = /^[A-Za-z0-9_./@+-]+$/;
const SUBCOMMAND_RE = /^[a-z0-9][a-z0-9-]*$/;

function escapeGlob(s: string): string {
  return s.replace(/[\\*?{}[\],]/g, '\\$&');
}

function suggestBash(command: string): string | undefined {
  const head = command.split(CONTROL_RE)[0] ?? '';
  const words = head.trim().split(/[ \t]+/).filter((w) => w !== '');
  const first = words[0];
  if (first === undefined || !COMMAND_WORD_RE.test(first) || first.includes('*')) return undefined;
  const picked = [first];
  const second = words[1];
  if (second !== undefined && SUBCOMMAND_RE.test(second)) {
    picked.push(second);
    const third = words[2];
    if ((second === 'run' || second === 'exec') && third !== undefined && SUBCOMMAND_RE.test(third)) picked.push(third);
  }
  return `Bash(${picked.join(' ')}:*)`;
}

// `p` as a literal glob: relative to cwd when inside it, else absolute. The cwd itself is
// absolute: its relative spelling is empty, and `Tool()` is no rule.
function relOrAbs(cwd: string, p: string): string {
  const rel = posix.relative(cwd, p);
  const inside = rel !== '' && !(rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel));
  return (inside ? rel : p).split('/').map(escapeGlob).join('/');
}

function suggestPath(request: ToolRequest, value: unknown): string | undefined {
  const tool = request.toolName;
  let dir: string;
  if (isTool(tool, 'Glob') || isTool(tool, 'Grep')) {
    if (value !== undefined && (typeof value !== 'string' || value === '')) return undefined;
    dir = posix.resolve(request.cwd, value ?? '.');
  } else {
    if (typeof value !== 'string' || value === '') return undefined;
    const file = posix.resolve(request.cwd, value);
    // Allow globs skip dot files, so a dot file gets a rule for itself alone.
    if (posix.basename(file).startsWith('.')) return `${tool}(${relOrAbs(request.cwd, file)})`;
    dir = posix.dirname(file);
  }
  const rel = posix.relative(request.cwd, dir);
  const inside = !(rel === '..' || rel.startsWith('../') || posix.isAbsolute(rel));
  const escaped = relOrAbs(request.cwd, dir);
  // The cwd (or `/`) itself: only its direct entries, not the whole tree.
  if (inside && rel === '') return `${tool}(${isTool(tool, 'Glob') || isTool(tool, 'Grep') ? '**' : '*'})`;
  if (!inside && dir === '/') return `${tool}(/*)`;
  return `${tool}(${escaped}/**)`;
}

/**
 * The rule "always allow" adds for `request`, or undefined when no safe rule exists:
 * - Bash: a prefix rule of the command's first word, plus its second word when that looks like a
 *   subcommand (lowercase word, no dots/slashes/flags), plus a third after `run`/`exec`:
 *   `npm test` → Bash(npm test:*), `git status --short` → Bash(git status:*), `ls -la` → Bash(ls:*),
 *   `npm run build` → Bash(npm run build:*). Only the part before any control operator counts
 *   (a compound command is still asked next time). Undefined when the first word is not a plain
 *   command name (e.g. `FOO=1 npm test`, `$(x)`).
 * - Read/Edit/MultiEdit/Write/NotebookEdit: the file's directory, recursively, relative to the cwd
 *   when inside it (`Edit(src/**)`), else absolute (`Edit(/tmp/x/**)`); a file directly in the cwd
 *   gives `Edit(*)` (not the whole tree); a dot file gives a rule for that file alone
 *   (`Edit(src/.env)`), since allow globs skip dot files. Glob/Grep: the searched directory (`Grep(src/**)`,
 *   `Grep(**)` for the cwd).
 * - Any other tool: the bare tool name.
 */
export function suggestRule(request: ToolRequest): string | undefined {
  if (!posix.isAbsolute(request.cwd)) return undefined;
  if (isTool(request.toolName, 'Bash')) {
    const command = field(request.input, 'command');
    return typeof command === 'string' ? suggestBash(command) : undefined;
  }
  const name = PATH_FIELD[request.toolName];
  if (name !== undefined) return suggestPath(request, field(request.input, name));
  return RuleSchema.shape.tool.safeParse(request.toolName).success ? request.toolName : undefined;
}
