// Bash for the read-only agent types (Explore, Plan, verification; docs/protocol.md#agent-types-and-worktrees): the same tool, but
// `prepare` refuses any command that is not plainly read-only. A conservative check, not a
// sandbox: the command is split with shell-quote; only simple commands joined by `|` pass, each
// starting with a program of a small allowlist, without the options of those programs that write
// or run other programs (find -exec, sort -o, git diff --output, …). Redirections, `;`, `&&`,
// `||`, `&`, command substitution, process substitution, variable assignments and newlines are
// refused. A refusal is an is_error result naming what to do instead.
import { parse } from 'shell-quote';
import { SwarmError } from '../../protocol/errors.js';
import { bashTool } from './bash.js';
import { defineTool, type AnyTool } from './types.js';

const PLAIN = ['ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'file', 'stat', 'du', 'df', 'basename', 'dirname', 'realpath', 'readlink', 'which', 'whoami', 'uname', 'diff', 'cmp', 'cut', 'tr', 'nl', 'grep', 'egrep', 'fgrep', 'true', 'false'];

/** Programs with options that write files or run other programs: those options are refused. */
const GUARDED: Readonly<Record<string, readonly string[]>> = {
  find: ['-exec', '-execdir', '-ok', '-okdir', '-delete', '-fprint', '-fprint0', '-fprintf', '-fls'],
  sort: ['-o', '--output'],
  rg: ['--pre'],
  tree: ['-o'],
  date: ['-s', '--set'],
};

const GIT_READ = ['status', 'log', 'diff', 'show', 'ls-files', 'blame', 'rev-parse', 'grep', 'describe', 'shortlog'];
/** git's options that write a file (diff, log, show: --output=<file>); `-o` is read-only in git (grep --only-matching, ls-files --others). */
const GIT_WRITE_OPTIONS = ['--output'];
/** `git grep -O[<pager>]` / `--open-files-in-pager` runs a program; a short cluster holding O (`-nO`) does too. */
const runsPager = (w: string): boolean => w === '--open-files-in-pager' || w.startsWith('--open-files-in-pager=') || /^-[^-]*O/.test(w);

export const READ_ONLY_PROGRAMS: readonly string[] = [...PLAIN, ...Object.keys(GUARDED), 'git'].sort();

function optionHit(words: readonly string[], options: readonly string[]): string | undefined {
  return words.find((w) => options.some((o) => w === o || w.startsWith(`${o}=`) || (o.startsWith('-') && !o.startsWith('--') && o.length === 2 && w.startsWith(o) && !w.startsWith('--'))));
}

function segmentRefusal(words: readonly string[]): string | undefined {
  const [program, ...rest] = words;
  if (program === undefined) return 'an empty command in the pipeline';
  if (PLAIN.includes(program)) return undefined;
  const guarded = GUARDED[program];
  if (guarded) {
    const hit = optionHit(rest, guarded);
    return hit === undefined ? undefined : `${program} ${hit} can write files or run programs`;
  }
  if (program === 'git') {
    const sub = rest[0];
    if (sub === undefined || !GIT_READ.includes(sub)) return `git${sub === undefined ? '' : ` ${sub}`} is not one of the read-only git commands (${GIT_READ.join(', ')})`;
    const hit = optionHit(rest.slice(1), GIT_WRITE_OPTIONS);
    if (hit !== undefined) return `git ${sub} ${hit} writes a file`;
    const pager = sub === 'grep' ? rest.slice(1).find(runsPager) : undefined;
    return pager === undefined ? undefined : `git grep ${pager} runs a program (a pager)`;
  }
  return `${program} is not on the read-only list (${READ_ONLY_PROGRAMS.join(', ')})`;
}

/** Why `command` is not plainly read-only, or undefined when it is. */
export function readOnlyRefusal(command: string): string | undefined {
  if (/[\n\r]/.test(command)) return 'a command over several lines';
  if (/`|\$\(|[<>]\(/.test(command)) return 'command or process substitution';
  const tokens = parse(command, (key) => `$${key}`);
  const segments: string[][] = [[]];
  for (const t of tokens) {
    if (typeof t === 'string') segments.at(-1)!.push(t);
    else if ('op' in t && t.op === 'glob') segments.at(-1)!.push(t.pattern);
    else if ('op' in t && t.op === '|') segments.push([]);
    else if ('op' in t) return `the shell operator ${t.op} (redirections, ; && || & are not allowed)`;
    else return 'a comment';
  }
  for (const s of segments) {
    const why = segmentRefusal(s);
    if (why !== undefined) return why;
  }
  return undefined;
}

export const readOnlyBashTool: AnyTool = defineTool({
  name: bashTool.name,
  kind: bashTool.kind,
  description: `Run a READ-ONLY shell command in your working directory: simple commands joined by | only, each one of ${READ_ONLY_PROGRAMS.join(', ')} (git: ${GIT_READ.join(', ')}). No redirections, ; && || &, or substitutions. Anything else is refused.`,
  schema: bashTool.schema,
  prepare: async (input, ctx) => {
    const command = (input as { command: string }).command;
    const why = readOnlyRefusal(command);
    if (why !== undefined) throw new SwarmError('invalid_input', `Refused: this agent type may only run read-only commands, and this one has ${why}. Use Read, Glob or Grep, or a plain read-only command.`);
    return bashTool.prepare(input, ctx);
  },
});
