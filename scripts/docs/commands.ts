// The command reference in docs/commands.md, made from the commands' own --help (run in-process
// through main(argv, io)) so the two cannot drift: every command and subcommand `swarm --help` lists, its help verbatim. `npm run docs`
// rewrites the part between the markers; a test (test/docs/commands-reference.test.ts) fails
// while the file is out of date.
import { createReadStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from '../../src/cli/main.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const REFERENCE_FILE = path.join(REPO, 'docs/commands.md');
const START = '<!-- commands:start (made by `npm run docs` from each command\'s --help; do not edit) -->';
const END = '<!-- commands:end -->';

/** `swarm <words> --help`, as a terminal-less run prints it (100 columns, no colour), in-process (main(argv, io)). */
async function help(words: readonly string[]): Promise<string> {
  let out = '';
  const sink = { write: (t: string): boolean => ((out += t), true) };
  const env = { NO_COLOR: '1', SWARM_TEAM: '', CLAUDE_CONFIG_DIR: '/nonexistent-swarm-docs-root', PATH: process.env.PATH };
  const stdin = createReadStream('/dev/null');
  try {
    const code = await main([...words, '--help'], { env, cwd: REPO, stdin, stdout: sink, stderr: { write: () => true } });
    if (code !== 0) throw new Error(`swarm ${words.join(' ')} --help exited ${code}`);
  } finally {
    stdin.destroy();
  }
  return out.replace(/\s+$/, '');
}

/** The command words a help text lists under "Commands:" right below `parent`. */
function commandsOf(text: string, parent: readonly string[]): string[][] {
  const section = /^Commands:\n([^]*?)(?:\n\n|(?![^]))/m.exec(text)?.[1] ?? '';
  const prefix = ['swarm', ...parent].join(' ');
  return [...section.matchAll(/^ {2}(swarm [a-z][a-z -]*?)(?= <| \[|  |$)/gm)]
    .map((m) => m[1]!.trim())
    .filter((c) => c.startsWith(`${prefix} `) && c.split(' ').length === parent.length + 2)
    .map((c) => c.split(' ').slice(1));
}

/** The generated reference: one `### swarm <command>` section per command, its help in a block. */
export async function commandReference(): Promise<string> {
  const top = await help([]);
  const commands = commandsOf(top, []);
  const texts = await Promise.all(commands.map((words) => help(words)));
  const subs = await Promise.all(
    commands.map(async (words, i) => Promise.all(commandsOf(texts[i]!, words).map(async (sub) => [sub, await help(sub)] as const))),
  );
  const block = (level: string, words: readonly string[], text: string): string[] => [`${level} \`swarm ${words.join(' ')}\``, '', '```', text, '```', ''];
  const out = ['## Reference', '', "Each command's `--help`, as it prints it.", '', '```', top, '```', ''];
  commands.forEach((words, i) => {
    out.push(...block('###', words, texts[i]!));
    for (const [sub, text] of subs[i]!) out.push(...block('####', sub, text));
  });
  return out.join('\n');
}

/** docs/commands.md with its generated part replaced by `reference`. */
export function withReference(page: string, reference: string): string {
  const a = page.indexOf(START);
  const b = page.indexOf(END);
  if (a < 0 || b < a) throw new Error(`docs/commands.md has no ${START} … ${END} markers`);
  return `${page.slice(0, a + START.length)}\n${reference}\n${page.slice(b)}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const page = await readFile(REFERENCE_FILE, 'utf8');
  await writeFile(REFERENCE_FILE, withReference(page, await commandReference()));
  process.stdout.write(`wrote ${path.relative(process.cwd(), REFERENCE_FILE)}\n`);
}
