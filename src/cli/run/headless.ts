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
// at a limit.
import { stripVTControlCharacters } from 'node:util';
import { openConsoleHost } from '../console/host.js';
import { listPending } from '../../permissions/pending-list.js';
import { openPlanRequests } from '../../permissions/plan-answer.js';
import { followInbox } from '../../mailbox/follow.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { END_OF_RUN_SHUTDOWN_MS } from '../../protocol/shutdown-timing.js';
import { oneLine } from '../../protocol/text.js';
import type { Task } from '../../protocol/task.js';
import { LeadInboxRule, type LeadInboxEvent } from '../../runtime/lead/inbox-rule.js';
import { runLead, type LeadOutcome } from '../../runtime/lead/lead.js';
import { LeadQueue } from '../../runtime/lead/queue.js';
import { taskChangeLine, taskChanges } from '../../runtime/lead/task-changes.js';
import { ensureDir } from '../../storage/atomic.js';
import { DirWatcher } from '../../storage/watch.js';
import { TaskList } from '../../tasks/index.js';
import { backendsOnce, shutdownAll, type StopContext, type StopOutcome } from '../../teammates/stop.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { openMailbox } from '../context.js';
import { describeControl, describeToolInput } from '../output/render.js';
import { describeOutcome } from '../output/stop.js';
import { verdictLine } from '../output/verdict.js';
import { prefixedLines } from './lead-lines.js';
import { leadPowers } from './lead-powers.js';
import { claimLeadProcess } from './lead-process.js';
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

/** The line for a permission question, with the command that answers it from any shell. */
function approvalLine(worker: string, tool: string, input: Record<string, unknown>, id: string, team: string): string {
  const what = oneLine(describeToolInput(tool, input), 80);
  return `waiting for approval: ${worker} ${tool}${what ? ` ${what}` : ''} → swarm approve ${id} --team ${team}`;
}

function planLine(worker: string, team: string): string {
  return `waiting for plan approval: ${worker} → swarm plan ${worker} --approve --team ${team}`;
}

/** The progress line for how an entry of team-lead's inbox is shown (a message, an event, a question). */
export function progressLine(e: Extract<LeadInboxEvent, { kind: 'message' | 'event' | 'question' }>, team: string): string {
  const m = e.entry;
  if (e.kind === 'message') return `${m.from} › ${oneLine(m.summary ? `${m.summary}: ${m.text}` : m.text, 200)}`;
  if (e.kind === 'event') return describeControl(e.control, m.from);
  const r = e.request;
  return r.type === 'permission_request' ? approvalLine(m.from, r.tool_name, r.input, r.request_id, team) : planLine(m.from, team);
}

/** A stop's progress line: the words of the console and `swarm shutdown` (output/stop.ts), uncoloured like all progress. */
export function stopLine(s: StopOutcome): string {
  return stripVTControlCharacters(describeOutcome(s));
}

/** The questions already open (pending requests whose worker lives, unanswered plans), as [id, line], oldest first. */
async function openQuestions(team: Team): Promise<[string, string][]> {
  const config = await readTeam(team); // one read for both lists
  const permissions = (await listPending(team, { config })).filter((p) => !p.orphaned);
  const plans = await openPlanRequests(team, config);
  return [
    ...permissions.map((p): [number, string, string] => [p.createdAt, p.id, approvalLine(p.workerName, p.toolName, p.input, p.id, team.name)]),
    ...plans.map((p): [number, string, string] => [p.at, p.request.requestId, planLine(p.from, team.name)]),
  ]
    .sort((a, b) => a[0] - b[0])
    .map(([, id, line]) => [id, line]);
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
  const queue = new LeadQueue();
  const ctx: StopContext = { env: o.env, inProcessHost: host };
  ctx.backendFor = backendsOnce(ctx); // one backend per kind for every removal and the final shutdown
  const rule = new LeadInboxRule({ team: o.team, stopContext: () => ctx });
  const background: Promise<unknown>[] = [];
  const fail = (what: string) => (e: unknown) => {
    if (!stop.signal.aborted) o.progress(`error: ${what}: ${e instanceof Error ? e.message : String(e)}`);
  };
  // Each question is shown once: one asked before this run (its frame already taken from the inbox
  // by a leader that died) from the lists below, a new one from the inbox.
  const asked = new Set<string>();
  const firstAsk = (id: string | undefined): boolean => {
    if (id === undefined) return true; // not a question
    if (asked.has(id)) return false;
    asked.add(id);
    return true;
  };
  const open = await openQuestions(o.team).catch((e: unknown) => (fail('listing the open questions')(e), []));
  if (open.length > 0) o.progress(`${open.length} question${open.length === 1 ? '' : 's'} asked before this run still open:`);
  for (const [id, line] of open) if (firstAsk(id)) o.progress(line);

  background.push(
    (async () => {
      for await (const m of followInbox(mailbox, LEAD_NAME, { consume: true, signal: stop.signal })) {
        for (const e of rule.take(m, true)) {
          if (e.kind === 'message' || e.kind === 'event' || e.kind === 'question') {
            if (firstAsk(e.kind === 'question' ? e.id : undefined)) o.progress(progressLine(e, o.team.name));
          } else if (e.kind === 'verdict') o.progress(verdictLine(e.verdict, e.from));
          else if (e.kind === 'for-lead') queue.offer(e.entry);
          else background.push(e.outcome.catch(fail(`removing ${e.name}`)));
        }
      }
    })().catch(fail('reading the inbox')),
  );
  background.push(
    (async () => {
      const list = new TaskList(o.team);
      await ensureDir(o.team.paths.tasks.dir);
      const watcher = await DirWatcher.open(o.team.paths.tasks.dir);
      let known = new Map<string, Task>();
      try {
        for (;;) {
          const { tasks } = await list.list();
          for (const change of taskChanges(known, tasks)) o.progress(taskChangeLine(change));
          known = new Map(tasks.map((t) => [t.id, t]));
          await watcher.changed(stop.signal);
        }
      } finally {
        await watcher.close();
      }
    })().catch(fail('watching the task list')),
  );

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

  o.progress('shutting the team down…');
  const outcomes = await shutdownAll(o.team, { ...ctx, force: true, reason: 'the run is over', timeoutMs: o.shutdownTimeoutMs ?? END_OF_RUN_SHUTDOWN_MS }).catch((e: unknown) => {
    o.progress(`error: shutting the team down: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  });
  for (const s of outcomes) o.progress(stopLine(s));
  stop.abort();
  await Promise.allSettled(background);
  await host.close().catch(fail('closing the in-process host'));
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
