// `swarm launch --dry-run`: every command launch would run, as shell-quoted lines, computed without
// writing anything (no team, no key, no tmux call). Values that exist only once the team is created
// (its session id and verify key, new pane ids) are shown as <placeholders>.
import { quote } from 'shell-quote';
import { colorForIndex } from '../../protocol/colors.js';
import { agentId } from '../../protocol/names.js';
import { buildTeammateCommand, SWARM_BIN, shellLine, type Env } from '../../teammates/command-line.js';
import { TmuxServer, NEW_PANE_FORMAT, commandArgs, envFlags } from '../../backends/tmux/commands.js';
import type { TeamFile } from './team-file.js';

export interface DryRunInput {
  file: TeamFile;
  team: string;
  /** The team name is taken: a free one will be picked. */
  taken: boolean;
  root: string;
  env: Env;
  cwd: string;
  /** Resolved backend kind and where the console goes. */
  backend: 'tmux' | 'iterm2' | 'in-process';
  /** $TMUX_PANE when launch runs inside the tmux server it will use. */
  insidePane: string | undefined;
  console: boolean;
  /** Tests: the `claude` lookup. */
  which?: (command: string, env: Env) => string | undefined;
}

/** Credentials are never printed: their values become `<redacted>`. */
const SECRETS = new Set(['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']);

function redacted(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, SECRETS.has(k) ? '<redacted>' : v]));
}

/** The lines `--dry-run` prints. */
export function dryRunLines(i: DryRunInput): string[] {
  const tmux = new TmuxServer({ socket: i.env.SWARM_TMUX_SOCKET || undefined });
  const t = (args: string[]): string => quote(['tmux', ...tmux.argv(args)]);
  const session = `swarm-${i.team}`;
  const out = [
    `# swarm launch --dry-run: nothing is written; <placeholders> exist only once the team is created`,
    `# root ${i.root}`,
    `# create team "${i.team}"${i.taken ? ' (taken: a free name would be picked and announced)' : ''} with ${i.file.members.length} member${i.file.members.length === 1 ? '' : 's'}`,
  ];
  const leader = i.insidePane ?? '<first pane of ' + session + '>';
  if (i.backend === 'tmux') {
    if (i.insidePane === undefined) out.push(t(['new-session', '-d', '-s', session, '-P', '-F', NEW_PANE_FORMAT]));
    out.push(t(['set-option', '-w', '-t', '<leader window>', '--', 'remain-on-exit', 'on']));
  }
  i.file.members.forEach((m, index) => {
    const built = buildTeammateCommand({
      runtime: m.runtime ?? 'swarm',
      team: i.team,
      name: m.name,
      color: colorForIndex(index + 1),
      leadSessionId: '<lead-session-id>',
      leadVerifyKey: '<lead-verify-key>',
      agentType: m.agentType,
      model: m.model ?? i.file.model,
      planModeRequired: m.planModeRequired,
      permissionMode: m.permissionMode ?? i.file.permissionMode,
      cwd: m.cwd ?? i.cwd,
      env: i.env,
      ...(i.which ? { which: i.which } : {}),
    });
    const cmd = { argv: built.argv, env: redacted(built.env) };
    const lines = m.prompt.trim().split('\n').length;
    out.push(`# ${m.name} (${agentId(m.name, i.team)}): its prompt (${lines} line${lines === 1 ? '' : 's'}) becomes its first inbox message`);
    if (i.backend === 'tmux') {
      const target = index === 0 ? leader : '<largest teammate pane>';
      out.push(t(['split-window', '-d', '-h', '-t', target, '-c', m.cwd ?? i.cwd, ...envFlags(cmd.env), '-P', '-F', NEW_PANE_FORMAT, ...commandArgs(cmd.argv)]));
      out.push(t(['select-layout', '-t', '<leader window>', 'main-vertical']));
    } else if (i.backend === 'in-process') {
      out.push(`# in-process (inside the console): ${shellLine(cmd, m.cwd ?? i.cwd)}`);
    } else {
      out.push(quote(['it2', 'session', 'split', '-v', '-s', '<leader session>']));
      out.push(quote(['it2', 'session', 'run', '-s', '<new session>', shellLine(cmd, m.cwd ?? i.cwd)]));
    }
  });
  if (!i.console) return [...out, `# --no-console: then print the status table (swarm status --team ${i.team})`];
  const lead = [process.execPath, SWARM_BIN, 'lead', '--team', i.team];
  if (i.backend === 'tmux' && i.insidePane === undefined) {
    out.push(t(['respawn-pane', '-k', '-t', leader, '-c', i.cwd, ...commandArgs(lead)]));
    out.push(t(['attach', '-t', session]));
  } else {
    out.push(`# the leader console runs here: ${quote(lead)}`);
  }
  return out;
}
