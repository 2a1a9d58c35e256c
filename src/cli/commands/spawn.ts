// `swarm spawn <name> --prompt <text>`: add one teammate in a new pane and wait until it is ready
// (docs/protocol.md#spawn). The backend comes from --backend, else the team's `swarm.backend`, else detection;
// `--host` puts it on another machine (the ssh backend).
import type { CommandModule } from 'yargs';
import { BACKEND_CHOICES, selectBackend } from '../../backends/registry.js';
import { DEFAULT_READY_TIMEOUT_MS, ISOLATIONS, spawnTeammate, type Isolation } from '../../teammates/spawn.js';
import { TEAMMATE_RUNTIMES, type TeammateRuntime } from '../../teammates/command-line.js';
import { PermissionModeSchema } from '../../protocol/config.js';
import { SwarmError } from '../../protocol/errors.js';
import { describeClaudeUsed } from '../../teammates/claude-version.js';
import { printJson, println, requestedBackend, requireTeam, type GlobalArgs } from '../context.js';
import { chalk, paint } from '../output/render.js';
import { cliIo } from '../io.js';

interface SpawnArgs extends GlobalArgs {
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
  'ready-timeout': number;
}

export const spawnCommand: CommandModule<GlobalArgs, SpawnArgs> = {
  command: 'spawn <name>',
  describe: 'add a teammate in its own pane; returns once it has picked up its prompt',
  builder: (y) =>
    y
      .positional('name', { type: 'string', demandOption: true, describe: 'member name (letters, digits, _ -)' })
      .option('prompt', { alias: 'p', type: 'string', demandOption: true, describe: 'the initial prompt (its first inbox message)' })
      .option('model', { type: 'string', describe: 'model id for this teammate' })
      .option('agent-type', { type: 'string', describe: 'agent type: its tools, prompt, model and mode (swarm agents lists them)' })
      .option('plan-mode-required', { type: 'boolean', default: false, describe: 'must get a plan approved before editing' })
      .option('permission-mode', { type: 'string', describe: `${PermissionModeSchema.options.join(' | ')} (default: the leader's mode)` })
      .option('backend', { type: 'string', choices: BACKEND_CHOICES, describe: 'where the pane opens (default: auto-detect)' })
      .option('host', { type: 'string', describe: 'run it on another machine over ssh: [user@]host[:port] (implies --backend ssh)' })
      .option('cwd', { type: 'string', describe: 'working directory (default: the current one)' })
      .option('runtime', { type: 'string', choices: TEAMMATE_RUNTIMES, default: 'swarm', describe: 'swarm teammate, or the real claude CLI' })
      .option('isolation', { type: 'string', choices: ISOLATIONS, describe: 'worktree: its own git worktree and branch swarm/<team>/<name> (see swarm worktrees)' })
      .option('ready-timeout', { type: 'number', default: DEFAULT_READY_TIMEOUT_MS / 1000, describe: 'seconds to wait for readiness' })
      .example('$0 spawn alice --prompt "review src/app.ts" --team review-squad', 'add a teammate')
      .example('$0 spawn bob -p "write tests" --runtime claude --permission-mode acceptEdits', 'a real Claude Code teammate')
      .example('$0 spawn carol -p "triage" --json | jq .paneId', 'machine-readable result')
      .example('$0 spawn dave -p "fix the parser" --isolation worktree', 'edits in its own git worktree')
      .example('$0 spawn erin -p "run the slow suite" --backend ssh --host ci@build1', 'a teammate on another machine (shared root)'),
  handler: async (args) => {
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
  },
};
