// `swarm run -p "<goal>"` (docs/protocol.md#agent-lead): the agent lead with no console. This process is team-lead's
// inbox consumer, by the lead's inbox rule (runtime/lead/inbox-rule.ts): each entry goes to the lead
// except the questions for the person, which are printed with the exact command that answers them
// from another shell (`waiting for approval: … swarm approve <id> --team <team>`), each question
// once, and the ones already open when the run starts (asked of a leader that died before
// answering) first; a teammate that approved its shutdown is released (the lead hears the approval;
// only a failed release is printed). Progress (spawned, claimed, done, messages, a verifier's
// `verdict: PASS (verifier)`, the lead's own lines) goes to stderr; the final answer to stdout. At
// the end, or when `signal` aborts (an interrupt), every teammate is shut down (verified; one that
// does not answer is killed; each outcome in the words of `swarm shutdown`: cli/output/stop.ts) and
// the team's files stay for inspection. Exit 0 when the lead finished, 1 when it failed or stopped
// at a limit. What it prints and how it ends are run-report.ts's, shared with a Claude Code lead's run.
import { openConsoleHost } from '../console/host.js';
import { LeadInboxRule } from '../../runtime/lead/inbox-rule.js';
import { runLead, type LeadOutcome } from '../../runtime/lead/lead.js';
import { LeadQueue } from '../../runtime/lead/queue.js';
import { backendsOnce, type StopContext } from '../../teammates/stop.js';
import type { Team } from '../../team/team.js';
import { openMailbox } from '../context.js';
import { prefixedLines } from './lead-lines.js';
import { leadPowers } from './lead-powers.js';
import { claimLeadProcess } from './lead-process.js';
import { endRun, reportRun } from './run-report.js';
import type { LeadSettings } from './options.js';

export interface HeadlessRunOptions extends LeadSettings {
  team: Team;
  goal: string;
  env: NodeJS.ProcessEnv;
  /** Progress lines (stderr). */
  progress: (line: string) => void;
  /** The final answer (stdout). */
  answer: (text: string) => void;
  /** Ctrl-C / SIGTERM: the run stops, the team is shut down. */
  signal?: AbortSignal;
  /** How long the end-of-run shutdown waits for answers before killing. Default END_OF_RUN_SHUTDOWN_MS (20 s). */
  shutdownTimeoutMs?: number;
}

export async function runHeadless(o: HeadlessRunOptions): Promise<number> {
  const release = await claimLeadProcess(o.team, 'headless');
  try {
    return await leadHeadless(o);
  } finally {
    await release();
  }
}

async function leadHeadless(o: HeadlessRunOptions): Promise<number> {
  const stop = new AbortController();
  const host = await openConsoleHost(o.team, o.env);
  const mailbox = await openMailbox(o.team);
  const queue = new LeadQueue(o.team);
  const ctx: StopContext = { env: o.env, inProcessHost: host };
  ctx.backendFor = backendsOnce(ctx); // one backend per kind for every removal and the final shutdown
  const rule = new LeadInboxRule({ team: o.team, stopContext: () => ctx });
  const report = await reportRun({ team: o.team, mailbox, rule, consume: true, progress: o.progress, offer: (m) => queue.offer(m), taking: (t) => queue.setTaking(t), wake: () => ctx, signal: stop.signal });

  const lines = prefixedLines('lead › ', o.progress);
  const abort = (): void => stop.abort(new Error('stopped'));
  o.signal?.addEventListener('abort', abort, { once: true });
  let outcome: LeadOutcome;
  try {
    outcome = await runLead({
      team: o.team,
      goal: o.goal,
      queue,
      model: o.leadModel,
      cwd: o.cwd,
      readTools: o.readTools,
      limits: o.limits,
      ...leadPowers({
        team: o.team,
        env: o.env,
        backend: o.backend,
        host,
        model: o.model,
        permissionMode: o.permissionMode,
        runtime: o.runtime,
        cwd: o.cwd,
        print: (line) => o.progress(line),
        noConsole: true,
        signal: stop.signal,
      }),
      onLimit: () => Promise.resolve('stop'),
      onFinished: () => true,
      env: o.env,
      write: lines.write,
      signal: stop.signal,
    });
  } finally {
    lines.flush();
    o.signal?.removeEventListener('abort', abort);
  }

  await endRun({ team: o.team, ctx, progress: o.progress, timeoutMs: o.shutdownTimeoutMs });
  stop.abort();
  await report.settled();
  await host.close().catch((e: unknown) => o.progress(`error: closing the in-process host: ${e instanceof Error ? e.message : String(e)}`));
  o.progress(`team files kept: swarm status --team ${o.team.name}`);

  switch (outcome.kind) {
    case 'finished':
      o.answer(outcome.answer);
      return 0;
    case 'limit':
      o.progress(`stopped: over a limit: ${outcome.hit.why}`);
      return 1;
    case 'failed':
      o.progress(`failed: ${outcome.why}`);
      return 1;
    case 'stopped':
      o.progress('stopped before the lead finished');
      return 1;
  }
}
