// The leader console's slash commands (docs/protocol.md#cli, "Leader console"), pure: parsing a typed line into
// a command, and tab completion of command names, member names and fixed words. Each command maps
// one-to-one onto a plain CLI command, listed in HELP, so scripts and the console can be mixed.

export type SlashCommand =
  | { kind: 'send'; to: string; text: string }
  | { kind: 'broadcast'; text: string }
  | { kind: 'spawn'; name: string; prompt: string }
  | { kind: 'shutdown'; target: { all: true } | { all: false; name: string } }
  | { kind: 'kill'; name: string }
  | { kind: 'status' }
  | { kind: 'tasks' }
  | { kind: 'permissions' }
  | { kind: 'plan'; name: string; approve: boolean; feedback?: string }
  | { kind: 'help' }
  | { kind: 'quit' };

export type ParsedLine =
  | { kind: 'empty' }
  | { kind: 'text'; text: string }
  | { kind: 'command'; command: SlashCommand }
  | { kind: 'error'; message: string };

/** Command, usage, what it does, and the plain command that does the same. */
export const HELP: readonly { name: string; usage: string; does: string; plain: string }[] = [
  { name: 'send', usage: '/send <name> <text>', does: 'message a teammate', plain: 'swarm send <name> <text>' },
  { name: 'broadcast', usage: '/broadcast <text>', does: 'message every teammate', plain: 'swarm send "*" <text>' },
  { name: 'spawn', usage: '/spawn <name> <prompt>', does: 'add a teammate', plain: 'swarm spawn <name> --prompt <prompt>' },
  { name: 'shutdown', usage: '/shutdown <name|--all>', does: 'ask to shut down (verified)', plain: 'swarm shutdown <name|--all>' },
  { name: 'kill', usage: '/kill <name>', does: 'hard stop now (verified)', plain: 'swarm kill <name>' },
  { name: 'status', usage: '/status', does: 'the status table', plain: 'swarm status' },
  { name: 'tasks', usage: '/tasks', does: "the team's task list", plain: 'swarm tasks' },
  { name: 'permissions', usage: '/permissions', does: 'pending permission requests', plain: 'swarm permissions' },
  { name: 'plan', usage: '/plan <name> approve|reject [feedback]', does: "answer a teammate's plan", plain: 'swarm plan <name> --approve|--reject' },
  { name: 'help', usage: '/help', does: 'this list', plain: 'swarm --help' },
  { name: 'quit', usage: '/quit', does: 'leave the console (tmux teammates keep running)', plain: '' },
];

export const COMMAND_NAMES: readonly string[] = HELP.map((h) => h.name);

/** Split off the first whitespace-separated word: [word, rest (trimmed)]. */
function firstWord(s: string): [string, string] {
  const t = s.trim();
  const m = /^(\S+)\s*([\s\S]*)$/.exec(t);
  return m ? [m[1]!, m[2]!.trim()] : ['', ''];
}

function usage(name: string): ParsedLine {
  const h = HELP.find((x) => x.name === name);
  return { kind: 'error', message: `usage: ${h?.usage ?? `/${name}`}` };
}

/** Parse one typed line. Lines not starting with `/` are `text`. */
export function parseLine(line: string): ParsedLine {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (!trimmed.startsWith('/')) return { kind: 'text', text: trimmed };
  const [word, rest] = firstWord(trimmed.slice(1));
  const name = word.toLowerCase();
  const matches = COMMAND_NAMES.filter((c) => c.startsWith(name));
  const cmd = COMMAND_NAMES.includes(name) ? name : matches.length === 1 && name !== '' ? matches[0]! : undefined;
  if (cmd === undefined) {
    const hint = matches.length > 1 ? ` (did you mean ${matches.map((m) => `/${m}`).join(' or ')}?)` : '';
    return { kind: 'error', message: `unknown command "/${word}"${hint}; /help lists them` };
  }
  const ok = (command: SlashCommand): ParsedLine => ({ kind: 'command', command });
  switch (cmd) {
    case 'send': {
      const [to, text] = firstWord(rest);
      return to && text ? ok({ kind: 'send', to, text }) : usage(cmd);
    }
    case 'broadcast':
      return rest ? ok({ kind: 'broadcast', text: rest }) : usage(cmd);
    case 'spawn': {
      const [n, prompt] = firstWord(rest);
      return n && prompt ? ok({ kind: 'spawn', name: n, prompt }) : usage(cmd);
    }
    case 'shutdown': {
      const [target, extra] = firstWord(rest);
      if (!target || extra) return usage(cmd);
      return ok({ kind: 'shutdown', target: target === '--all' || target === '*' ? { all: true } : { all: false, name: target } });
    }
    case 'kill': {
      const [n, extra] = firstWord(rest);
      return n && !extra ? ok({ kind: 'kill', name: n }) : usage(cmd);
    }
    case 'plan': {
      const [n, afterName] = firstWord(rest);
      const [verdict, feedback] = firstWord(afterName);
      const v = verdict.toLowerCase();
      if (!n || !['approve', 'reject', 'y', 'n'].includes(v)) return usage(cmd);
      const approve = v === 'approve' || v === 'y';
      return ok({ kind: 'plan', name: n, approve, ...(feedback ? { feedback } : {}) });
    }
    case 'status':
    case 'tasks':
    case 'permissions':
    case 'help':
    case 'quit':
      return rest ? usage(cmd) : ok({ kind: cmd });
    default:
      return usage(cmd);
  }
}

/** Commands whose first argument is a member name. */
const TAKES_MEMBER = new Set(['send', 'shutdown', 'kill', 'plan']);

/**
 * readline completer: `[candidates, the word being completed]`. Completes `/command` names, then
 * member names (plus `--all` for /shutdown), then approve|reject for /plan. Case-insensitive.
 */
export function complete(line: string, members: readonly string[]): [string[], string] {
  if (!line.startsWith('/')) return [[], line];
  const words = line.split(/\s+/);
  const current = words[words.length - 1] ?? '';
  const pick = (options: readonly string[]): [string[], string] => {
    const hits = options.filter((o) => o.toLowerCase().startsWith(current.toLowerCase()));
    return [hits, current];
  };
  if (words.length === 1) return pick(COMMAND_NAMES.map((c) => `/${c}`));
  const cmd = (words[0] ?? '').slice(1).toLowerCase();
  if (words.length === 2 && TAKES_MEMBER.has(cmd)) return pick(cmd === 'shutdown' ? [...members, '--all'] : members);
  if (words.length === 3 && cmd === 'plan') return pick(['approve', 'reject']);
  return [[], current];
}
