// The agent loop: turns of model steps and tool rounds, idle waits in between.
//
//   run():  deliver the inbox (initial prompt first) → turn → idle → the inbox, else the next free
//           task (auto-claim, team-tasks.ts) → turn ... → nothing: wait for the inbox or a change of
//           the task list (a task created or freed is claimed then) → turn ...
//   turn:   user blocks → model step (streamed) → tool round (each tool_use, in order) → inbox
//           delivery (messages that arrived meanwhile go after the tool results, in the same user
//           turn) → next step ... until a step calls no tool and `beforeIdle` (a teammate's
//           TeammateIdle hooks) has nothing to add: its feedback is the next user message instead.
//   compaction: before a step, when the previous step's prompt passed `compactAt` tokens, one extra
//           request summarises the older messages (compaction.ts) and the summary replaces them; a
//           failed summary is shown and logged, the conversation kept whole, and tried again before
//           a later step.
// resume: a restored `history` (docs/protocol.md#transcripts-and-resume, a resumed teammate) is the conversation so far. Cut off
//           in the middle of a turn (it ends in a user message, or in tool calls that never got
//           their results), the loop first answers those calls with `is_error` results, then
//           starts a turn at once with RESUMED_NOTE (plus whatever the inbox holds), merged into
//           that last user message; a history that ended a turn waits for work as usual.
// hibernate: idle longer than `hibernate.afterMs()` (from the end of the last turn, whatever woke the
//           wait meanwhile) and owing nothing, run() returns with `hibernated` true (hibernation.ts).
// Every message added to the conversation is written whole to the transcript (`user`, `assistant`,
// `compaction` lines) so conversation.ts can rebuild exactly what the model saw.
// Messages are delivered only between rounds, never during one. While idle the loop blocks on the
// inbox watcher (no CPU, no tokens). The same loop runs the agent lead (lead/lead.ts) with its own
// turn source, end and presence. run() returns when the loop ends (a teammate's approved shutdown,
// the lead's finished run); it throws
// when the model call fails for good or the stop signal fires (teammate.ts decides the exit).
// once(): one turn on blocks given, without the inbox, presence or task list: a teammate's subagent
// (subagent.ts) is this loop run once on a fresh (or forked) conversation.
import type { ContentBlock, ContentBlockParam, Message, MessageParam, TextBlockParam, Tool, ToolResultBlockParam, ToolUseBlock } from '@anthropic-ai/sdk/resources/messages';
import { splitPoint, summaryRequest } from './compaction.js';
import { appendMessage, compacted } from './conversation.js';
import type { HibernationRule } from './hibernation.js';
import type { ModelClient } from './model-client.js';
import type { RetryInfo } from './retry.js';
import type { StatusReporter } from './status.js';
import type { TeamTasks, TurnCompletion } from './team-tasks.js';
import type { ToolRunner } from './tool-runner.js';
import type { TranscriptSink } from './transcript.js';
import { stepUsage } from './usage.js';
import type { PaneView } from './view.js';

/** Where the loop's user turns come from: a teammate's inbox (inbox-delivery.ts), the lead's queue (lead/). */
export interface TurnSource {
  /** Everything delivered since the last call, as user blocks (empty: nothing new). */
  take(): Promise<TextBlockParam[]>;
  /** Resolves when something may have arrived (or, for a teammate, the task list changed); rejects with the signal's reason. */
  changed(signal: AbortSignal): Promise<void>;
  /**
   * The keys of what take() handed out since the last call, for the user line that carries it
   * (its `delivered`: inbox-delivery.ts, so a resume gives again only what no turn carried).
   */
  settle?(): string[];
}

/** What ends the loop: a teammate's approved shutdown, the lead's finished run. */
export interface LoopEnd {
  readonly ended: boolean;
  /** Aborted when a wait on the leader (permission, plan) must give way (a shutdown request). */
  interruptSignal(): AbortSignal;
}

/** How the member's presence follows the loop (presence.ts for a teammate). */
export interface LoopPresence {
  working(): Promise<void>;
  /** A turn ended: `summary` is its last text (or what it did), `completed` the task it completed. */
  idle(summary: string, completed?: TurnCompletion): Promise<void>;
}

export interface AgentLoopDeps {
  model: ModelClient;
  tools: Tool[];
  /** The system prompt for a new turn (rebuilt per turn, stable within one). */
  systemPrompt: () => Promise<string>;
  runner: ToolRunner;
  inbox: TurnSource;
  end: LoopEnd;
  presence: LoopPresence;
  /** Where each step's usage goes (a subagent's adds to its teammate's totals only). */
  status: Pick<StatusReporter, 'usage'>;
  /** Called before every model step: may wait (the team's budget), throws to end the loop (the lead's limits, a stop). */
  beforeStep?: () => Promise<void>;
  /** The team's task list: completions reported when idle, the next task claimed. */
  tasks: Pick<TeamTasks, 'beginTurn' | 'completedInTurn' | 'claimNext'>;
  view: PaneView;
  transcript: TranscriptSink;
  stop: AbortSignal;
  /** Compact the conversation before a step once the previous step's prompt passed this many tokens. */
  compactAt: number;
  /** The conversation so far (a restored one); default empty. */
  history?: readonly MessageParam[];
  /**
   * A step ended the turn (it called no tool): text to go on with in the same turn (a hook's
   * feedback, runtime/hooks.ts), else undefined and the turn ends.
   */
  beforeIdle?: () => Promise<string | undefined>;
  /** A teammate's hibernation rule (hibernation.ts); absent: it waits for work however long it takes. */
  hibernate?: HibernationRule;
}

/** The first user blocks of a teammate resumed in the middle of a turn. */
export const RESUMED_NOTE =
  '[swarm] You were stopped in the middle of this turn (your process or pane went away) and have just been restarted with this conversation restored. Tool calls that had not finished were not run. Check where you were (files, task list) and continue.';

/** The result given to a tool call the crash left without one. */
export const NOT_RUN_AFTER_CRASH = 'Not run: the teammate stopped before this tool ran; it has been restarted since. Run it again if it is still needed.';

/** The idle summary carries the turn's last text up to this many characters (the lead's copy of a result). */
export const SUMMARY_CHARS = 4000;

/** Response blocks as request params (text and tool_use; empty text dropped; thinking kept verbatim). */
export function toParams(content: readonly ContentBlock[]): ContentBlockParam[] {
  const out: ContentBlockParam[] = [];
  for (const b of content) {
    if (b.type === 'text') {
      if (b.text !== '') out.push({ type: 'text', text: b.text });
    } else if (b.type === 'tool_use') {
      out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
    } else if (b.type === 'thinking') {
      out.push({ type: 'thinking', thinking: b.thinking, signature: b.signature });
    } else if (b.type === 'redacted_thinking') {
      out.push({ type: 'redacted_thinking', data: b.data });
    }
  }
  return out;
}

/** What a turn did: its last non-empty text (trimmed) and how many tools it called. */
export interface TurnOutcome {
  text: string;
  toolCalls: number;
}

/** Due to hibernate but owing something (a Bash process still running), a teammate looks again this much later. */
export const HIBERNATE_RECHECK_MS = 5_000;

/** The idle notification's summary of a turn. */
function summaryOf(t: TurnOutcome): string {
  if (t.text !== '') return t.text.length > SUMMARY_CHARS ? `${t.text.slice(0, SUMMARY_CHARS - 1)}…` : t.text;
  return t.toolCalls > 0 ? `finished a turn (${t.toolCalls} tool call${t.toolCalls === 1 ? '' : 's'})` : 'finished a turn';
}

function textOf(m: Message): string {
  return m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

export class AgentLoop {
  readonly messages: MessageParam[] = [];
  /** The whole prompt of the latest step (0 after a compaction, until the next step says). */
  private promptTokens = 0;
  /** The system prompt of the turn under way (or the last one). */
  private system: string | undefined;

  /** True once run() returned to hibernate (nothing owed, idle past the member's hibernateAfter). */
  hibernated = false;
  /** When the loop last went idle (epoch ms). */
  idleSince = Date.now();

  /** A restored history cut off mid-turn: the tool calls left without results, and whether to go on at once. */
  private readonly cutOff: { unanswered: string[] } | undefined;

  constructor(private readonly d: AgentLoopDeps) {
    this.messages.push(...(d.history ?? []));
    const last = this.messages.at(-1);
    if (last?.role === 'user') this.cutOff = { unanswered: [] };
    else if (last?.role === 'assistant' && typeof last.content !== 'string') {
      const unanswered = last.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []));
      if (unanswered.length > 0) this.cutOff = { unanswered };
    }
  }

  /** Adds a message to the conversation (merged into a user message the crash left unanswered) and writes it whole to the transcript. */
  private add(message: MessageParam & { content: ContentBlockParam[] }): void {
    appendMessage(this.messages, message);
    const delivered = message.role === 'user' ? (this.d.inbox.settle?.() ?? []) : [];
    this.d.transcript.append({ kind: message.role, content: message.content, ...(delivered.length > 0 ? { delivered } : {}) });
  }

  /** The first user blocks of a resumed turn ([] when the history ended a turn, or there is none). */
  private resumeTurn(): TextBlockParam[] {
    if (this.cutOff === undefined) return [];
    if (this.cutOff.unanswered.length > 0) {
      this.add({ role: 'user', content: this.cutOff.unanswered.map((id): ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: id, content: NOT_RUN_AFTER_CRASH, is_error: true })) });
    }
    return [{ type: 'text', text: RESUMED_NOTE }];
  }

  /** The system prompt of the turn under way, byte for byte (a fork starts from it); undefined before the first turn. */
  get currentSystem(): string | undefined {
    return this.system;
  }

  /** The tools as sent to the model (a fork sends the same). */
  get apiTools(): Tool[] {
    return this.d.tools;
  }

  /** One turn on `first` (a subagent's prompt, a fork's placeholders and instruction): no inbox, presence or task list. */
  once(first: ContentBlockParam[]): Promise<TurnOutcome> {
    return this.turn(first);
  }

  private get exitRequested(): boolean {
    return this.d.end.ended;
  }

  async run(): Promise<void> {
    const resumed = this.resumeTurn();
    let pending: TextBlockParam[] = [...resumed, ...(await this.d.inbox.take())];
    for (;;) {
      if (this.exitRequested) return;
      if (pending.length === 0) {
        pending = await this.waitForWork();
        if (this.hibernated) return;
        continue;
      }
      await this.d.presence.working();
      this.d.tasks.beginTurn();
      const outcome = await this.turn(pending);
      pending = [];
      if (this.exitRequested) return;
      await this.d.presence.idle(summaryOf(outcome), this.d.tasks.completedInTurn());
      this.d.view.idle();
      pending = await this.d.inbox.take(); // anything that landed while we were reporting
      if (pending.length === 0 && !this.exitRequested) pending = await this.claimNext();
    }
  }

  /** The next free task as a user turn; a failure to read the list is shown and leaves us idle. */
  private async claimNext(): Promise<TextBlockParam[]> {
    try {
      return await this.d.tasks.claimNext();
    } catch (e) {
      this.d.view.warn(`claiming the next task: ${e instanceof Error ? e.message : String(e)}`);
      return [];
    }
  }

  /** Idle: block until the inbox has something or a task becomes free to claim (or a stop, or it is time to hibernate: `hibernated`). */
  private async waitForWork(): Promise<TextBlockParam[]> {
    const idleSince = (this.idleSince = Date.now());
    let notBefore = 0; // when it owed something at its time, it looks again a little later
    for (;;) {
      const after = await this.d.hibernate?.afterMs();
      if ((await this.idleWait(after === undefined ? undefined : Math.max(idleSince + after, notBefore))) === 'due') {
        const owes = await this.d.hibernate!.owes();
        if (owes === undefined) {
          this.hibernated = true;
          return [];
        }
        if (notBefore === 0) this.d.transcript.append({ kind: 'hibernate_deferred', why: owes }); // once per idle spell
        notBefore = Date.now() + HIBERNATE_RECHECK_MS;
      }
      const blocks = await this.d.inbox.take();
      if (blocks.length > 0 || this.exitRequested) return blocks;
      const claimed = await this.claimNext(); // a task created or freed while we were idle
      if (claimed.length > 0) return claimed;
    }
  }

  /** One wait for a change of the inbox or task list, or until `dueAt` (epoch ms; undefined: no limit). */
  private async idleWait(dueAt: number | undefined): Promise<'changed' | 'due'> {
    if (dueAt === undefined) {
      await this.d.inbox.changed(this.d.stop);
      return 'changed';
    }
    const due = new AbortController();
    const timer = setTimeout(() => due.abort(), Math.max(0, dueAt - Date.now()));
    try {
      await this.d.inbox.changed(AbortSignal.any([this.d.stop, due.signal]));
      return 'changed';
    } catch (e) {
      if (this.d.stop.aborted || !due.signal.aborted) throw e;
      return 'due';
    } finally {
      clearTimeout(timer);
    }
  }

  /** One turn: model steps and tool rounds until a step calls no tool. */
  private async turn(first: ContentBlockParam[]): Promise<TurnOutcome> {
    const d = this.d;
    const system = await d.systemPrompt();
    this.system = system;
    let user: ContentBlockParam[] = first;
    let lastText = '';
    let toolCalls = 0;
    for (;;) {
      this.add({ role: 'user', content: user });
      await d.beforeStep?.();
      if (this.promptTokens > d.compactAt) await this.compact();
      const message = await d.model.step(
        { system, tools: d.tools, messages: this.messages },
        {
          signal: d.stop,
          onText: (t) => d.view.text(t),
          onRestart: () => d.view.restart(),
          onRetry: (info) => this.retried(info),
        },
      );
      const params = toParams(message.content);
      if (params.length > 0) this.add({ role: 'assistant', content: params });
      const usage = stepUsage(d.model.model, message.usage);
      d.status.usage(usage.promptTokens, usage.outputTokens, usage.costUsd);
      this.promptTokens = usage.promptTokens;
      const text = textOf(message);
      if (text.trim() !== '') lastText = text;
      const toolUses = message.content.filter((b): b is ToolUseBlock => b.type === 'tool_use');
      d.transcript.append({ kind: 'model_step', stopReason: message.stop_reason, text, toolUses: toolUses.map((t) => t.name), usage: message.usage });
      if (toolUses.length === 0) {
        const more = this.exitRequested ? undefined : await d.beforeIdle?.();
        if (more === undefined) break;
        user = [{ type: 'text', text: more }, ...(await d.inbox.take())];
        continue;
      }
      toolCalls += toolUses.length;
      const results = await this.round(toolUses);
      if (this.exitRequested) {
        this.add({ role: 'user', content: results });
        break;
      }
      user = [...results, ...(await d.inbox.take())];
    }
    return { text: lastText.trim(), toolCalls };
  }

  private retried(info: RetryInfo): void {
    this.d.view.warn(`${info.why}; retrying in ${info.delayMs < 1000 ? `${info.delayMs} ms` : `${(info.delayMs / 1000).toFixed(1)} s`} (retry ${info.attempt})`);
    this.d.transcript.append({ kind: 'retry', ...info });
  }

  /**
   * Replace the older messages by the model's summary of them (compaction.ts picks which). A failed
   * request (or an empty summary) keeps the conversation whole: shown, logged, tried before a later
   * step. Only the stop signal ends the loop from here.
   */
  private async compact(): Promise<void> {
    const d = this.d;
    const replaced = splitPoint(this.messages);
    if (replaced === undefined) return;
    const before = this.promptTokens;
    try {
      const message = await d.model.step(summaryRequest(this.messages.slice(0, replaced)), { signal: d.stop, onRetry: (info) => this.retried(info) });
      const usage = stepUsage(d.model.model, message.usage);
      d.status.usage(usage.promptTokens, usage.outputTokens, usage.costUsd);
      const summary = textOf(message).trim();
      if (summary === '') throw new Error('the model answered with an empty summary');
      this.messages.splice(0, this.messages.length, ...compacted(this.messages, summary, replaced));
      this.promptTokens = 0;
      d.transcript.append({ kind: 'compaction', summary, replaced, promptTokens: before });
      d.view.notice(`compacted the conversation: ${replaced} older message${replaced === 1 ? '' : 's'} replaced by a summary (the prompt was ${before} tokens)`);
    } catch (e) {
      if (d.stop.aborted) throw e;
      const why = e instanceof Error ? e.message : String(e);
      d.view.warn(`compaction failed (${why}); the conversation is kept whole, tried again at a later step`);
      d.transcript.append({ kind: 'compaction_failed', error: why, promptTokens: before });
    }
  }

  private async round(toolUses: ToolUseBlock[]): Promise<ToolResultBlockParam[]> {
    const d = this.d;
    const results: ToolResultBlockParam[] = [];
    for (const block of toolUses) {
      if (this.exitRequested) {
        results.push({ type: 'tool_result', tool_use_id: block.id, content: 'Not run: the teammate is shutting down.', is_error: true });
        continue;
      }
      const wait = AbortSignal.any([d.stop, d.end.interruptSignal()]);
      results.push(await d.runner.run(block, { stop: d.stop, wait }));
    }
    return results;
  }
}
