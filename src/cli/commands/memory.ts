// `swarm memory [topic] [--cwd <dir>] [--json]` (docs/memory.md): a project's team memory — Claude
// Code's `<root>/projects/<project key>/memory/team/`, kept across teams. Without a topic: the index
// and every topic file with its size and its line in MEMORY.md (entries that are no memory file are
// named on stderr and left alone); with one (`build` or `build.md`, `MEMORY` for the index): its text.
// The project is the current directory's, --cwd's, or with --team the team's (its lead's cwd in
// config.json). Nothing is written. The command line only; what it does is cli/handlers/memory.ts,
// loaded when it runs.
import type { CommandModule } from 'yargs';
import type { GlobalArgs } from '../global-flags.js';
import type { MemoryArgs } from '../handlers/memory.js';

export const memoryCommand: CommandModule<GlobalArgs, MemoryArgs> = {
  command: 'memory [topic]',
  describe: "the project's team memory, kept across teams: list its topics, or print one",
  builder: (y) =>
    y
      .positional('topic', { type: 'string', describe: 'the topic to print: build or build.md (MEMORY: the index)' })
      .option('cwd', { type: 'string', describe: "the project's directory (default: the current one; --team: the team's)" })
      .example('$0 memory', 'the topics saved for the project of the current directory')
      .example('$0 memory build', 'print the topic file build.md')
      .example('$0 memory --team review-squad --json', "the team's project, machine-readable"),
  handler: async (args) => (await import('../handlers/memory.js')).memory(args),
};
