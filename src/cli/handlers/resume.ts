// What `swarm resume [<name>...]` does (the command line is commands/resume.ts): start stopped
// members again (docs/protocol.md#transcripts-and-resume) — every stopped member, or the named ones
// (each must be stopped: a one-line error naming its state otherwise, nothing started). The
// backend: --backend, else the team's `swarm.backend`, else the one the members ran on, else
// auto-detection. One line per member; exit 1 when any resume failed (that member stays stopped).
import { parseBackendType, selectBackend } from '../../backends/registry.js';
import { SwarmError } from '../../protocol/errors.js';
import { findMember, readTeam } from '../../team/team-store.js';
import { membersToResume } from '../../teammates/resume.js';
import { printJson, println, requestedBackend, requireTeam } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { chalk } from '../output/render.js';
import { resumeNamed, resumedLine } from '../resume-members.js';
import { cliIo, setExitCode } from '../io.js';

export interface ResumeArgs extends GlobalArgs {
  names?: string[];
  backend?: string;
  'ready-timeout': number;
}

export async function resume(args: ResumeArgs): Promise<void> {
  const team = await requireTeam(args);
  if (!(args['ready-timeout'] > 0)) throw new SwarmError('invalid_input', `expected --ready-timeout > 0 seconds, got ${args['ready-timeout']}`);
  const names = await membersToResume(team, (args.names ?? []).map(String), cliIo().env);
  if (names.length === 0) {
    if (args.json) return printJson([]);
    return println(`no stopped members in team ${team.name} (swarm status shows each member's state)`);
  }
  const config = await readTeam(team);
  // Members on another machine come back there (resumeNamed picks their ssh backend by host).
  const here = names.filter((n) => findMember(config, n)?.host === undefined);
  const ran = new Set(here.map((n) => parseBackendType(findMember(config, n)?.backendType)));
  const recorded = ran.size === 1 ? [...ran][0] : undefined;
  // None here: the backend below goes unused (a team file's `backend: ssh` would want a --host).
  const requested = here.length === 0 ? 'auto' : await requestedBackend(team, args.backend ?? config.swarm?.backend ?? recorded);
  const { backend, notes } = await selectBackend({ requested, env: cliIo().env, team });
  for (const n of notes) cliIo().stderr.write(`${chalk.yellow('swarm: note:')} ${n}\n`);
  const results = await resumeNamed(
    team,
    names,
    {
      backend,
      env: cliIo().env,
      readyTimeoutMs: args['ready-timeout'] * 1000,
      onNotice: (text) => cliIo().stderr.write(`${chalk.yellow('swarm:')} ${text.split('\n').join('\n  ')}\n`),
    },
    (r) => {
      if (args.json) return;
      if (r.ok) println(resumedLine(r));
      else cliIo().stderr.write(`${chalk.red('swarm:')} ${r.error.message}\n`);
    },
  );
  if (!args.json && results.some((r) => r.ok && here.includes(r.name))) println(chalk.dim(`  ${backend.describe()}`));
  if (args.json) {
    printJson(results.map((r) => (r.ok ? { ok: true, ...r.teammate, restored: r.restored, continued: r.continued, unread: r.unread } : { ok: false, name: r.name, error: r.error.message })));
  }
  if (results.some((r) => !r.ok)) setExitCode(1);
}
