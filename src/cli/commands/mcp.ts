// `swarm mcp --team <team>` (docs/claude-code-lead.md): the team's lead tools as a Model Context
// Protocol server on stdio (cli/mcp/server.ts), for Claude Code or any MCP client to lead the team
// with: `claude mcp add swarm -- swarm mcp --team <team>`, or `swarm run --lead claude`, which
// wires it. Stdout is the protocol's; notices go to stderr. It ends when the client goes (stdin
// closes) or on an interrupt, and leaves the teammates running: they are the team's, stopped by
// the lead's tools, `swarm shutdown`, or the `swarm run` that started them.
// The command line only; what it does is cli/handlers/mcp.ts, loaded when it runs.
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { McpArgs } from '../handlers/mcp.js';
import { teamOptions } from '../run/options.js';

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
  handler: async (args) => (await import('../handlers/mcp.js')).mcp(args),
};
