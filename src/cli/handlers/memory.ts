// What `swarm memory` does (its command line: cli/commands/memory.ts): list a project's team memory
// or print one topic (docs/memory.md). Loaded when the command runs.
import path from 'node:path';
import { SwarmError } from '../../protocol/errors.js';
import { printJson, println, requireTeam, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { cliIo } from '../io.js';
import { chalk } from '../output/render.js';
import { renderTable } from '../output/table.js';

export interface MemoryArgs extends GlobalArgs {
  topic?: string;
  cwd?: string;
}

/** The directory whose project is meant: --team's lead cwd, else --cwd, else the current one. */
async function projectCwd(args: MemoryArgs): Promise<string> {
  const { isDirectory } = await import('../../storage/atomic.js');
  if (args.team !== undefined) {
    if (args.cwd !== undefined) throw new SwarmError('invalid_input', '--cwd and --team both name the project: pass one');
    const { readTeam, findMember } = await import('../../team/team-store.js');
    const { LEAD_NAME } = await import('../../protocol/names.js');
    const team = await requireTeam(args);
    const cwd = findMember(await readTeam(team), LEAD_NAME)?.cwd;
    if (!cwd) throw new SwarmError('invalid_input', `team ${team.name} records no cwd for ${LEAD_NAME} in config.json; pass the project directory with --cwd`);
    return cwd;
  }
  const cwd = path.resolve(cliIo().cwd, args.cwd ?? '.');
  if (!isDirectory(cwd)) throw new SwarmError('invalid_input', `--cwd ${cwd} is not a directory; pass the project's directory`);
  return cwd;
}

/** `build` → `build.md`; `MEMORY` → the index. */
function topicFile(topic: string): string {
  return topic.endsWith('.md') ? topic : `${topic}.md`;
}

function size(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} kB`;
}

export async function memory(args: MemoryArgs): Promise<void> {
    const { memoryDir } = await import('../../team/paths.js');
    const { projectBase } = await import('../../team/project-key.js');
    const memory = await import('../../team/memory.js');
    const cwd = await projectCwd(args);
    const project = projectBase(cwd);
    const dir = memoryDir(rootDir(), cwd);
    if (args.topic !== undefined) {
      const name = topicFile(args.topic);
      const problem = memory.memoryNameProblem(name);
      if (problem !== undefined) throw new SwarmError('invalid_input', `topic ${JSON.stringify(args.topic)} ${problem}: name one as swarm memory lists it (build or build.md)`);
      const text = await memory.readMemoryFile(dir, name);
      if (text === undefined) throw new SwarmError('not_found', `no ${name} in the team memory of ${project} (${dir}); swarm memory lists what there is`);
      if (args.json) return printJson({ project, dir, name, text });
      cliIo().stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
      return;
    }
    const listing = await memory.listMemory(dir);
    for (const s of listing.skipped) cliIo().stderr.write(`${chalk.yellow('swarm: not a memory file:')} ${s.problem}\n`);
    if (args.json) {
      const { index } = listing;
      const indexInfo = index.state === 'read' ? { state: index.state, lines: index.lines, chars: index.chars, cut: index.cut } : index;
      return printJson({ project, dir, exists: listing.exists, index: indexInfo, topics: listing.topics, skipped: listing.skipped });
    }
    println(`team memory of ${project}: ${dir}`);
    if (!listing.exists) return println(chalk.dim('nothing saved yet: teammates save memories there as they work (docs/memory.md)'));
    const index = listing.index;
    const indexText =
      index.state === 'read'
        ? `${index.lines} line${index.lines === 1 ? '' : 's'}${index.cut ? `: members see the first ${memory.INDEX_MAX_LINES} lines, at most ${memory.INDEX_MAX_CHARS} characters` : ''}`
        : index.state === 'missing'
          ? 'missing: members see no memory'
          : `unusable: ${index.problem}`;
    const rows = [
      [{ text: memory.MEMORY_INDEX, style: chalk.bold }, { text: '' }, { text: indexText, ...(index.state === 'read' ? {} : { style: chalk.yellow }) }],
      ...listing.topics.map((t) => [{ text: t.name }, { text: size(t.bytes) }, t.indexLine !== undefined ? { text: t.indexLine } : { text: `(not in ${memory.MEMORY_INDEX})`, style: chalk.dim }]),
    ];
    for (const line of renderTable(rows)) println(line);
}
