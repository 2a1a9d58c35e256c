// What `swarm spawn <name> --prompt <text>` does (the command line is commands/spawn.ts): add one
// teammate in a new pane and wait until it is ready (docs/protocol.md#spawn). The backend comes
// from --backend, else the team's `swarm.backend`, else detection; `--host` puts it on another
// machine (the ssh backend).
import { selectBackend } from '../../backends/registry.js';
import { spawnTeammate } from '../../teammates/spawn.js';
import type { Isolation } from '../../teammates/spawn-choices.js';
import type { TeammateRuntime } from '../../teammates/command-line.js';
import { SwarmError } from '../../protocol/errors.js';
import { parseDuration } from '../../protocol/duration.js';
import { describeClaudeUsed } from '../../teammates/claude-version.js';
import { printJson, println, requestedBackend, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk, paint } from '../output/render.js';
import { cliIo } from '../io.js';

export interface SpawnArgs extends GlobalArgs {
  name: string;
  prompt: string;
  model?: string;
  'agent-type'?: string;
  'plan-mode-required': boolean;
  'permission-mode'?: string;
  backend?: string;
  host?: string;
  cwd?: string;
  runtime: string;
  isolation?: string;
  'hibernate-after'?: string;
  'ready-timeout': number;
}

export async function spawn(args: SpawnArgs): Promise<void> {
  const hibernateAfterMs = args['hibernate-after'] === undefined ? undefined : parseDuration(args['hibernate-after'], '--hibernate-after'); // before anything is made
  const team = await requireTeam(args);
  const requested = args.host !== undefined && args.backend === undefined ? 'ssh' : await requestedBackend(team, args.backend);
  if (!(args['ready-timeout'] > 0)) throw new SwarmError('invalid_input', `expected --ready-timeout > 0 seconds, got ${args['ready-timeout']}`);
  const { backend, notes } = await selectBackend({ requested, env: cliIo().env, team, host: args.host });
  for (const n of notes) cliIo().stderr.write(`${chalk.yellow('swarm: note:')} ${n}\n`);
  const r = await spawnTeammate({
    team,
    name: args.name,
    prompt: String(args.prompt),
    model: args.model,
    agentType: args['agent-type'],
    planModeRequired: args['plan-mode-required'],
    permissionMode: args['permission-mode'],
    cwd: args.cwd,
    runtime: args.runtime as TeammateRuntime,
    isolation: args.isolation as Isolation | undefined,
    hibernateAfterMs,
    backend,
    readyTimeoutMs: args['ready-timeout'] * 1000,
    env: cliIo().env,
    onNotice: (text) => cliIo().stderr.write(`${chalk.yellow('swarm:')} ${text.split('\n').join('\n  ')}\n`),
  });
  if (r.modeNote !== undefined) cliIo().stderr.write(`${chalk.yellow('swarm: note:')} ${r.modeNote}\n`);
  if (args.json) return printJson(r);
  const pid = r.pid === undefined ? '' : `, pid ${r.pid}`;
  const on = r.host === undefined ? '' : ` on ${r.host}`;
  println(`spawned ${paint(r.color, r.name)} (${r.agentId}) in ${r.backendType} pane ${r.paneId}${on}${pid}: ready`);
  if (r.claude !== undefined) println(chalk.dim(`  ${describeClaudeUsed(r.claude)}`));
  println(chalk.dim(`  ${backend.describe()}`));
}
