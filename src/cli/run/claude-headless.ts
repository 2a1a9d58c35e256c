// `swarm run -p --lead claude "<goal>"` (docs/claude-code-lead.md): Claude Code leads, headless.
// `claude -p` runs with swarm's MCP server wired in (claude-lead.ts); its stream-json is read line by
// line: the lead's words and tool calls become `lead › …` progress lines, its result the answer on
// stdout. This process watches the team meanwhile (run-report.ts: messages, the questions with the
// `swarm approve` line that answers them, task changes); the MCP server, Claude Code's child, takes
// delivery of team-lead's inbox. At the end — Claude Code exited, or an interrupt (it is stopped
// first) — every teammate is shut down and verified, as in `swarm run -p`. Exit 0 when Claude Code
// gave a result that is not an error, else 1.
import { execa } from 'execa';
import { createInterface } from 'node:readline';
import { LeadInboxRule } from '../../runtime/lead/inbox-rule.js';
import { oneLine } from '../../protocol/text.js';
import { backendsOnce, type StopContext } from '../../teammates/stop.js';
import type { Team } from '../../team/team.js';
import { openMailbox } from '../context.js';
import { MCP_SERVER } from '../mcp/names.js';
import { claudeLeadCommand } from './claude-lead.js';
import type { TeamSettings } from './options.js';
import { endRun, reportRun } from './run-report.js';

export interface ClaudeHeadlessOptions {
  team: Team;
  goal: string;
  settings: TeamSettings;
  leadModel?: string | undefined;
  env: NodeJS.ProcessEnv;
  progress: (line: string) => void;
  answer: (text: string) => void;
  signal?: AbortSignal;
  shutdownTimeoutMs?: number;
}

/** How long Claude Code gets to end after SIGTERM (an interrupt) before SIGKILL. */
const CLAUDE_TERM_GRACE_MS = 5000;

type StreamLine =
  | { type: 'system'; subtype?: string; mcp_servers?: { name: string; status: string }[] }
  | { type: 'assistant'; message?: { content?: { type: string; text?: string; name?: string; input?: unknown }[] } }
  | { type: 'user'; message?: { content?: { type: string; is_error?: boolean; content?: unknown }[] } }
  | { type: 'result'; subtype?: string; is_error?: boolean; result?: string };

/** The MCP tool's own name (`mcp__swarm__spawn_teammate` → `spawn_teammate`), other tools as they are. */
function shortTool(name: string): string {
  const prefix = `mcp__${MCP_SERVER}__`;
  return name.startsWith(prefix) ? name.slice(prefix.length) : name;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c: { text?: unknown }) => (typeof c.text === 'string' ? c.text : '')).join(' ');
  return '';
}

export async function runClaudeHeadless(o: ClaudeHeadlessOptions): Promise<number> {
  const { argv, env: claudeEnv } = await claudeLeadCommand({ team: o.team, settings: o.settings, goal: o.goal, leadModel: o.leadModel, headless: true, env: o.env });
  const stop = new AbortController();
  const ctx: StopContext = { env: o.env };
  ctx.backendFor = backendsOnce(ctx);
  const mailbox = await openMailbox(o.team);
  const report = await reportRun({ team: o.team, mailbox, rule: new LeadInboxRule({ team: o.team, stopContext: () => ctx }), consume: false, progress: o.progress, signal: stop.signal });

  const child = execa(argv[0]!, argv.slice(1), { env: claudeEnv, cwd: o.settings.cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe', reject: false, forceKillAfterDelay: CLAUDE_TERM_GRACE_MS });
  const interrupt = (): void => void child.kill('SIGTERM');
  o.signal?.addEventListener('abort', interrupt, { once: true });
  if (o.signal?.aborted) interrupt();
  let result: Extract<StreamLine, { type: 'result' }> | undefined;
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (raw) => {
    let line: StreamLine;
    try {
      line = JSON.parse(raw) as StreamLine;
    } catch {
      if (raw.trim() !== '') o.progress(`lead › ${oneLine(raw, 200)}`);
      return;
    }
    if (line.type === 'system' && line.subtype === 'init') {
      const server = line.mcp_servers?.find((s) => s.name === MCP_SERVER);
      if (server !== undefined && server.status !== 'connected') o.progress(`error: Claude Code's connection to swarm's MCP server is ${server.status}: the lead has no team tools`);
    } else if (line.type === 'assistant') {
      for (const b of line.message?.content ?? []) {
        if (b.type === 'text' && b.text?.trim()) o.progress(`lead › ${oneLine(b.text, 200)}`);
        if (b.type === 'tool_use' && b.name) o.progress(`lead › ${shortTool(b.name)} ${oneLine(JSON.stringify(b.input ?? {}), 120)}`);
      }
    } else if (line.type === 'user') {
      for (const b of line.message?.content ?? []) if (b.type === 'tool_result' && b.is_error) o.progress(`lead › error: ${oneLine(textOf(b.content), 200)}`);
    } else if (line.type === 'result') result = line;
  });
  child.stderr!.on('data', (d: Buffer) => {
    for (const l of d.toString().split('\n')) if (l.trim() !== '') o.progress(`claude › ${l}`);
  });
  const exit = await child;
  o.signal?.removeEventListener('abort', interrupt);

  await endRun({ team: o.team, ctx, progress: o.progress, timeoutMs: o.shutdownTimeoutMs });
  stop.abort();
  await report.settled();
  o.progress(`team files kept: swarm status --team ${o.team.name}`);
  if (result !== undefined && result.is_error !== true && o.signal?.aborted !== true) {
    o.answer(result.result ?? '');
    return 0;
  }
  if (o.signal?.aborted) o.progress('stopped before the lead finished');
  else o.progress(`failed: Claude Code ${result === undefined ? `exited (${exit.exitCode ?? exit.signal}) with no result` : `ended with ${result.subtype ?? 'an error'}: ${oneLine(result.result ?? '', 200)}`}`);
  return 1;
}
