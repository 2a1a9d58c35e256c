// `swarm mcp --team <team>` (docs/claude-code-lead.md): the team's lead tools as a Model Context
// Protocol server on stdio (cli/mcp/server.ts), for Claude Code or any MCP client to lead the team
// with: `claude mcp add swarm -- swarm mcp --team <team>`, or `swarm run --lead claude`, which
// wires it. Stdout is the protocol's; notices go to stderr. It ends when the client goes (stdin
// closes) or on an interrupt, and leaves the teammates running: they are the team's, stopped by
// the lead's tools, `swarm shutdown`, or the `swarm run` that started them.
import type { Readable, Writable } from 'node:stream';
import type { CommandModule } from 'yargs';
import { SwarmError } from '../../protocol/errors.js';
import { refuseGlobals, requireTeam, type GlobalArgs } from '../context.js';
import { catchInterrupts } from '../interrupts.js';
import { cliIo } from '../io.js';
import { teamOptions, teamSettings, type TeamArgs } from '../run/options.js';

type McpArgs = GlobalArgs & TeamArgs & { 'wait-ready'?: number | undefined };

export const mcpCommand: CommandModule<GlobalArgs, McpArgs> = {
  command: 'mcp',
  describe: "the team's lead tools as an MCP server on stdio, for Claude Code (or any MCP client) to lead the team with",
  builder: (y) =>
    teamOptions(refuseGlobals(y, 'mcp', { json: 'the server speaks MCP (JSON-RPC) on stdout already' }), 'claude')
      .option('wait-ready', {
        type: 'number',
        describe: "serve nothing: wait up to this many seconds until a swarm MCP server leads the team, then exit 0 (the SessionStart hook of swarm run --lead claude)",
      })
      .example('claude mcp add swarm -- swarm mcp --team review-squad', 'your Claude Code session leads team review-squad')
      .example('$0 mcp --team review-squad --runtime swarm --max-teammates 2', 'what the client runs: teammates on swarm\'s own runtime, two at a time'),
  handler: async (args) => {
    const team = await requireTeam(args);
    const io = cliIo();
    const wait = args['wait-ready'];
    if (wait !== undefined) {
      if (!(wait > 0)) throw new SwarmError('invalid_input', `expected --wait-ready to be a positive number of seconds, got ${wait}`);
      const { awaitMcpLead, notReadyLine } = await import('../mcp/ready.js');
      if (!(await awaitMcpLead(team, wait * 1000))) io.stderr.write(`${notReadyLine(team, wait)}\n`);
      return;
    }
    const settings = teamSettings(args, 'claude', io.cwd);
    // Loaded here: the SDK and the lead's tools would cost every other command start-up time.
    const [{ serveLead }, { StdioServerTransport }] = await Promise.all([import('../mcp/server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')]);
    const interrupts = catchInterrupts();
    const lead = await serveLead(
      {
        team,
        env: io.env,
        cwd: io.cwd,
        settings: { ...settings, maxTeammates: settings.limits.maxTeammates, budgetUsd: settings.limits.budgetUsd, budgetTokens: settings.limits.budgetTokens },
        log: (text) => void io.stderr.write(text),
      },
      // Streams of node:stream in the process and in tests (PassThrough); CliIo types them by their interfaces.
      new StdioServerTransport(io.stdin as Readable, io.stdout as unknown as Writable),
    );
    const end = (): void => void lead.close();
    io.stdin.once('end', end);
    io.stdin.once('close', end);
    interrupts.signal.addEventListener('abort', end, { once: true });
    await lead.closed;
    io.stdin.off('end', end).off('close', end);
    if (interrupts.cause !== undefined) await interrupts.exit(interrupts.cause);
    interrupts.off();
  },
};
