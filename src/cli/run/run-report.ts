// What a headless run prints while its team works, and how it ends (docs/protocol.md#agent-lead,
// docs/claude-code-lead.md): one module for `swarm run -p` with swarm's lead and with a Claude Code
// lead. Each entry of team-lead's inbox, by the lead's inbox rule (runtime/lead/inbox-rule.ts),
// becomes a progress line — a question with the exact command that answers it from another shell
// (`waiting for approval: … swarm approve <id> --team <team>`), each question once, and the ones
// already open when the run starts first — and each change of the task list one line. The run that
// takes delivery (swarm's lead) hands the lead its entries (`offer`) and releases teammates that
// approved their shutdown; a Claude Code lead's run only watches (its MCP server takes delivery).
// At the end every teammate is shut down (verified; one that does not answer is killed; each
// outcome in the words of `swarm shutdown`: cli/output/stop.ts).
import { stripVTControlCharacters } from 'node:util';
import type { Mailbox } from '../../mailbox/mailbox.js';
import { followInbox } from '../../mailbox/follow.js';
import { listPending } from '../../permissions/pending-list.js';
import { openPlanRequests } from '../../permissions/plan-answer.js';
import type { InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { END_OF_RUN_SHUTDOWN_MS } from '../../protocol/shutdown-timing.js';
import { oneLine } from '../../protocol/text.js';
import type { Task } from '../../protocol/task.js';
import type { BackendContext } from '../../backends/registry.js';
import { wakeWhileOpen } from '../hibernation-waker.js';
import type { LeadInboxEvent, LeadInboxRule } from '../../runtime/lead/inbox-rule.js';
import { taskChangeLine, taskChanges } from '../../runtime/lead/task-changes.js';
import { ensureDir } from '../../storage/atomic.js';
import { DirWatcher } from '../../storage/watch.js';
import { TaskList } from '../../tasks/index.js';
import { shutdownAll, type StopContext, type StopOutcome } from '../../teammates/stop.js';
import { readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { describeControl, describeToolInput } from '../output/render.js';
import { describeOutcome } from '../output/stop.js';
import { verdictLine } from '../output/verdict.js';
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
export async function openQuestions(team: Team): Promise<[string, string][]> {
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

export interface ReportRunOptions {
  team: Team;
  mailbox: Mailbox;
  rule: LeadInboxRule;
  /** Take delivery of team-lead's inbox (swarm's lead) or only watch it (a Claude Code lead's MCP server takes it). */
  consume: boolean;
  progress: (line: string) => void;
  /** Taking delivery: an entry for the lead. */
  offer?: (m: InboxMessage) => void;
  /** Taking delivery: the consumer's onTaking (mailbox/follow.ts), for the lead's end check. */
  taking?: (taking: boolean) => void;
  /** Taking delivery: wake hibernating teammates (docs/hibernation.md), their backends reached so. */
  wake?: () => BackendContext;
  signal: AbortSignal;
}

export interface RunReport {
  /** Resolves when the inbox and task watchers have stopped (after `signal` aborts), and the releases they started. */
  settled(): Promise<void>;
}

/** Print the questions already open, then follow team-lead's inbox and the task list until `signal` aborts. */
export async function reportRun(o: ReportRunOptions): Promise<RunReport> {
  const background: Promise<unknown>[] = [];
  const fail = (what: string) => (e: unknown) => {
    if (!o.signal.aborted) o.progress(`error: ${what}: ${e instanceof Error ? e.message : String(e)}`);
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

  // Watching, only what arrives from now on (the team may have a history); taking delivery, every unread entry.
  const follow = followInbox(o.mailbox, LEAD_NAME, o.consume ? { consume: true, signal: o.signal, ...(o.taking ? { onTaking: o.taking } : {}) } : { fromStart: false, signal: o.signal });
  background.push(
    (async () => {
      for await (const m of follow) {
        for (const e of o.rule.take(m, o.consume)) {
          if (e.kind === 'message' || e.kind === 'event' || e.kind === 'question') {
            if (firstAsk(e.kind === 'question' ? e.id : undefined)) o.progress(progressLine(e, o.team.name));
          } else if (e.kind === 'verdict') o.progress(verdictLine(e.verdict, e.from));
          else if (e.kind === 'for-lead') o.offer?.(e.entry);
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
          await watcher.changed(o.signal);
        }
      } finally {
        await watcher.close();
      }
    })().catch(fail('watching the task list')),
  );
  if (o.wake !== undefined) background.push(wakeWhileOpen({ team: o.team, backends: o.wake, say: (line) => o.progress(line) }, o.signal).catch(fail('waking hibernating teammates')));
  return {
    settled: async () => {
      // Releases started meanwhile are pushed while the first ones settle: wait for them all.
      for (let n = 0; n < background.length; n = background.length) await Promise.allSettled(background.slice(n));
    },
  };
}

/** The end of a headless run: every teammate shut down (verified; killed when it does not answer in time), one line each. */
export async function endRun(o: { team: Team; ctx: StopContext; progress: (line: string) => void; timeoutMs?: number | undefined }): Promise<void> {
  o.progress('shutting the team down…');
  const outcomes = await shutdownAll(o.team, { ...o.ctx, force: true, reason: 'the run is over', timeoutMs: o.timeoutMs ?? END_OF_RUN_SHUTDOWN_MS }).catch((e: unknown) => {
    o.progress(`error: shutting the team down: ${e instanceof Error ? e.message : String(e)}`);
    return [];
  });
  for (const s of outcomes) o.progress(stopLine(s));
}
