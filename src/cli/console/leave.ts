// What the console stops on its way out (docs/protocol.md#cli): with `/quit` answered yes, every teammate, asked to
// shut down and killed when it does not answer in time (each outcome one line); and, however it
// leaves, the teammates hosted in this process (in-process backend), which die with it: stopped,
// verified, and taken off the roster first.
import { LEAD_NAME } from '../../protocol/names.js';
import { readTeam } from '../../team/team-store.js';
import { killTeammate, shutdownAll } from '../../teammates/stop.js';
import { chalk } from '../output/render.js';
import { describeOutcome } from '../output/stop.js';
import { stopContext, type ActionContext } from './actions.js';

/** Shut every one of `members` down (theirs to report here, not the inbox's), killing the stubborn after `timeoutMs`. */
export async function shutdownEveryTeammate(c: ActionContext, members: readonly string[], timeoutMs: number, onError: (e: unknown) => void): Promise<void> {
  c.print(chalk.dim('shutting the team down…'));
  for (const m of members) c.stopping.add(m.toLowerCase());
  const outcomes = await shutdownAll(c.team, { ...stopContext(c), force: true, timeoutMs }).catch((e: unknown) => (onError(e), []));
  for (const o of outcomes) c.print(describeOutcome(o));
}

/** Stop the teammates this process hosts, then close its in-process host. */
export async function stopHosted(c: ActionContext, onError: (e: unknown) => void): Promise<void> {
  if (c.host === undefined) return;
  const config = await readTeam(c.team).catch(() => undefined);
  for (const m of config?.members ?? []) {
    if (m.pid !== c.host.pid || m.name === LEAD_NAME) continue; // hosted here: recorded with this process's pid
    await killTeammate(c.team, m.name, stopContext(c)).then((o) => c.print(describeOutcome(o)), onError);
  }
  await c.host.close().catch(onError);
}
