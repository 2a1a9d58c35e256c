// What `swarm mcp --team <team>` does (docs/claude-code-lead.md; the command line is
// commands/mcp.ts): serve the team's lead tools as a Model Context Protocol server on stdio
// (cli/mcp/server.ts) until the client goes (stdin closes) or an interrupt, leaving the teammates
// running; or, with --wait-ready, wait until a swarm MCP server leads the team.
import type { Readable, Writable } from 'node:stream';
import { SwarmError } from '../../protocol/errors.js';
import { requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { catchInterrupts } from '../interrupts.js';
import { cliIo } from '../io.js';
import { teamSettings, type TeamArgs } from '../run/options.js';

export type McpArgs = GlobalArgs & TeamArgs & { 'wait-ready'?: number | undefined };

export async function mcp(args: McpArgs): Promise<void> {
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
  // Loaded here: the SDK and the lead's tools would cost --wait-ready (a SessionStart hook) start-up time.
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
}
