// The leader console (`swarm lead`, SPEC §6): takes delivery of team-lead's inbox and prints each
// entry above a readline prompt (events as one line each), asks the permission and plan questions
// one at a time (prompt-queue.ts), runs slash commands (actions.ts), prints a compact status line
// when it changes, and hosts in-process teammates (host.ts).
//
// Only the holder of the leader lease (team/lead-lease.ts) takes delivery; a console opened while
// another live process holds it watches: it follows the inbox without consuming it (no lead queue,
// no shutdown handling: the holder does those), still asks the questions (decide() and answerPlan
// are exactly-once), and takes the lease over when the holder ends or hands over (`--take-over`).
// A console holder that is asked hands over and watches from then on.
//
// Sources of change: the inbox (followInbox: consume mode while holding, observe mode watching), permissions/pending/ (a request made or
// decided elsewhere), status/ and config.json (teammate states), and a slow tick for liveness that
// no file shows (a pane killed behind swarm's back). Every question already open when it starts is
// asked too: the pending list, and the plan requests nobody answered (read or not in the inbox).
// Long actions (shutdown waits, spawns) run as tracked tasks, so the prompt stays live; every
// task's error is printed, and exit waits for them.
//
// With an agent lead (`swarm run`, `swarm lead --agent`, SPEC §9) the lead runs in this process
// (lead-in-console.ts): every inbox entry but the person's questions also goes to it, a plain line
// is said to it, its lines are printed as `lead › …`, and its limits are questions like the others.
// The demo's console (`endWithLastTeammate`, `swarm demo`) ends once the lead has finished with no
// teammate left.
import { setTimeout as delay } from 'node:timers/promises';
import type { InProcessHost } from '../../backends/in-process/host.js';
import { handleShutdownApproved, killTeammate, shutdownAll } from '../../teammates/stop.js';
import { followInbox } from '../../mailbox/follow.js';
import { decide } from '../../permissions/leader.js';
import { listPending } from '../../permissions/pending-list.js';
import { answerPlan, openPlanRequests } from '../../permissions/plan-answer.js';
import { parseControl } from '../../protocol/control.js';
import { isSwarmError } from '../../protocol/errors.js';
import { messageKey, type InboxMessage } from '../../protocol/message.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { coalesced } from '../../storage/coalesce.js';
import { DirWatcher } from '../../storage/watch.js';
import { readStateDigest } from './state-digest.js';
import { readTeam } from '../../team/team-store.js';
import { LeaseKeeper, leaseSelf, type LeaseState } from '../../team/lead-lease.js';
import { SwarmError } from '../../protocol/errors.js';
import { roleChangeLine, watchingLines } from './lease-lines.js';
import type { Team } from '../../team/team.js';
import { describeOutcome } from '../commands/stop.js';
import { openMailbox } from '../context.js';
import { END_OF_RUN_SHUTDOWN_MS } from '../../protocol/shutdown-timing.js';
import { oneLine } from '../../protocol/text.js';
import { catchInterrupts, describeInterrupt, OUTSIDE_SIGNALS, terminalGone, type CaughtInterrupts, type Interrupt } from '../interrupts.js';
import { chalk, describeToolInput, paint, renderMessage } from '../output/render.js';
import { runCommand, stopContext, type ActionContext } from './actions.js';
import { openConsoleHost } from './host.js';
import { PromptQueue, type Question } from './prompt-queue.js';
import { Screen } from './screen.js';
import { complete, parseLine } from './slash.js';
import { StatusTracker } from './status-tracker.js';
import { VerdictTracker, verdictLine } from '../output/verdict.js';
import { eventLine, promptText, questionLines, type PromptMode } from './view.js';
import { LeadInConsole, type ConsoleLeadOptions } from './lead-in-console.js';
import type { LimitHit } from '../../runtime/lead/limits.js';

export interface ConsoleOptions {
  team: Team;
  env: NodeJS.ProcessEnv;
  input?: NodeJS.ReadableStream & { isTTY?: boolean };
  output?: NodeJS.WritableStream & { isTTY?: boolean };
  /** An in-process host already open in this process (launch/demo); else the console opens one. */
  host?: InProcessHost;
  /** Printed first (e.g. the demo's "scripted model" notice). */
  banner?: readonly string[];
  /** Printed (once per episode) when every teammate is idle and nothing is pending. */
  allIdleHint?: string;
  /**
   * Leave the console once the last teammate is gone (the demo, which then cleans up); with an agent
   * lead, once the lead has finished with no teammate left. Otherwise the console only says how to leave.
   */
  endWithLastTeammate?: boolean;
  /** Leave the console (without shutting the team down) when this aborts. */
  signal?: AbortSignal;
  /** How long `shutdown --all` on exit waits for answers before killing. Default END_OF_RUN_SHUTDOWN_MS (20 s). */
  exitShutdownTimeoutMs?: number;
  /** Run an agent lead in the console (SPEC §9). */
  lead?: ConsoleLeadOptions;
  /** Ask the lease holder to hand over, and wait for it, before opening (`--take-over`). */
  takeOver?: boolean;
  /** Where the last words go when the terminal is gone (SIGHUP, a closed output). Default stderr. */
  errorOutput?: NodeJS.WritableStream;
  /**
   * Once it has left because of SIGTERM, SIGHUP or a closed output, end the process by it
   * (cli/interrupts.ts) instead of returning: `swarm lead`, `run`, `launch`. Unset for the demo,
   * which cleans up after its console and ends the process itself.
   */
  dieOfInterrupt?: boolean;
}

/** How long `--take-over` waits for the holder to hand over. */
const TAKE_OVER_WAIT_MS = 15_000;

const STATUS_TICK_MS = 5000;
const STATUS_MIN_GAP_MS = 300;

export class LeaderConsole implements ActionContext {
  readonly team: Team;
  readonly env: NodeJS.ProcessEnv;
  host: InProcessHost | undefined;
  private readonly screen: Screen;
  private readonly status: StatusTracker;
  private readonly queue = new PromptQueue();
  private readonly stop = new AbortController();
  private readonly tasks = new Set<Promise<unknown>>();
  private readonly verdicts = new VerdictTracker();
  private mode: PromptMode = { kind: 'command' };
  private shownQuestion: string | undefined;
  /** Screen rows the shown question took, and rows printed below it since. */
  private questionRows = 0;
  private rowsSinceQuestion = 0;
  private readonly answering = new Set<string>();
  private members: string[] = [];
  /** Some teammate was on the roster since the console started (so "none left" is news). */
  private hadTeammates = false;
  private saidNoneLeft = false;
  /** Teammates this console is shutting down (lower-case names). */
  readonly stopping = new Set<string>();
  private exiting: Promise<void> | undefined;
  private lead: LeadInConsole | undefined;
  private lease: LeaseKeeper | undefined;
  /** Aborted when the lease role changes: the inbox follow restarts in the other mode. */
  private roleChange = new AbortController();
  /** Inbox entries shown (msg keys), so a watcher that takes over does not show them again. */
  private readonly shown = new Set<string>();
  private readonly openedAt = Date.now();
  private interrupts: CaughtInterrupts | undefined;
  private resolveDone: () => void = () => undefined;
  readonly done = new Promise<void>((r) => (this.resolveDone = r));

  constructor(private readonly o: ConsoleOptions) {
    this.team = o.team;
    this.env = o.env;
    this.host = o.host;
    this.status = new StatusTracker({ team: o.team, env: o.env, print: (t) => this.print(t), allIdleHint: o.allIdleHint, stopping: this.stopping });
    this.screen = new Screen({
      input: o.input ?? process.stdin,
      output: o.output ?? process.stdout,
      completer: (line) => complete(line, this.members),
    });
  }

  print = (text: string): void => this.keepQuestionVisible(this.screen.print(text));

  /** The signal (or closed output) that ended the console, if one did. */
  get endedBy(): Interrupt | undefined {
    return this.interrupts?.cause;
  }

  /** Start everything; resolves once running (await `done` for the end). */
  async start(): Promise<void> {
    const config = await readTeam(this.team);
    this.members = config.members.filter((m) => m.name !== LEAD_NAME).map((m) => m.name);
    for (const line of this.o.banner ?? []) this.print(line);
    this.lease = await this.openLease(); // first: an agent lead refused here has opened nothing
    if (this.host === undefined) {
      this.host = await openConsoleHost(this.team, this.env).catch((e: unknown) => {
        if (!isSwarmError(e, 'exists')) throw e;
        this.print(chalk.yellow(`note: ${e.message}; in-process teammates stay with that console`));
        return undefined;
      });
    }
    this.print(`${chalk.bold(`swarm lead · team ${this.team.name}`)}  ${chalk.dim('/help for commands · Tab completes · Ctrl-C to leave')}`);
    if (this.lease.state.role === 'watcher') for (const line of watchingLines(this.team.name, this.lease.state.holder)) this.print(line);
    if (this.o.lead) {
      this.lead = new LeadInConsole(this.o.lead, this);
      this.print(chalk.dim(`agent lead: ${this.o.lead.leadModel} · what you type (not a /command) goes to the lead`));
    }
    this.screen.onLine((line) => this.onLine(line));
    this.screen.onKey((key) => this.onKey(key));
    this.screen.onInterrupt(() => this.onInterrupt());
    this.screen.onClose(() => void this.quit(false)); // Ctrl-D / end of piped input: leave
    // SIGTERM, SIGHUP (its terminal closed) or a closed output: leave as /quit does, so hosted
    // teammates are stopped and the lease is given back; the caller then ends the process (interrupts.ts).
    this.interrupts = catchInterrupts(OUTSIDE_SIGNALS, () => void this.quit(false));
    if (this.o.signal?.aborted) void this.quit(false);
    this.o.signal?.addEventListener('abort', () => void this.quit(false), { once: true });
    this.setMode({ kind: 'command' });
    this.screen.listen();
    this.track(this.followInbox());
    this.track(this.watch(this.team.paths.pending, () => this.refreshQuestions.trigger()));
    let digest = '';
    this.track(
      this.watch(this.team.paths.statusDir, async () => {
        const next = await readStateDigest(this.team.paths.statusDir);
        if (next === digest) return; // a heartbeat only
        digest = next;
        await this.refreshStatus.trigger();
      }),
    );
    this.track(this.watch(this.team.paths.dir, () => this.refreshStatus.trigger(), (n) => n === 'config.json'));
    this.track(this.tick());
    await this.replayPlans().catch((e: unknown) => this.printError(e));
    await this.refreshQuestions.trigger();
    await this.refreshStatus.trigger();
    if (this.lead) this.track(this.lead.run(this.stop.signal));
  }

  /** The agent lead finished: the demo ends when no teammate is left (the lead stopped them). */
  leadFinished(): void {
    if (!this.o.endWithLastTeammate || this.exiting !== undefined) return;
    this.track(
      readTeam(this.team).then((c) => {
        if (c.members.some((m) => m.name !== LEAD_NAME) || this.exiting !== undefined) return;
        this.print(chalk.dim('the lead has finished and no teammate is left: the demo ends'));
        void this.quit(false);
      }),
    );
  }

  /** Ask the person (the agent lead's limit); resolves with the answer, `stop` if the console closes first. */
  askLimit(hit: LimitHit): Promise<'continue' | 'stop'> {
    return new Promise((resolve) => {
      const id = `limit-${Date.now()}`;
      const onStop = (): void => resolve('stop');
      this.stop.signal.addEventListener('abort', onStop, { once: true });
      this.queue.addLimit(id, hit, (go) => {
        this.stop.signal.removeEventListener('abort', onStop);
        resolve(go);
      });
      this.showQuestion();
    });
  }

  // ---- the lease -------------------------------------------------------------------------------

  /** Hold the lease, or watch; with an agent lead, hold it or fail (the lead needs every message). */
  private async openLease(): Promise<LeaseKeeper> {
    const self = leaseSelf(this.o.lead ? 'agent' : 'console');
    const keeper = await LeaseKeeper.open(this.team, self, {
      takeOver: this.o.takeOver === true,
      onChange: (now, before) => this.onLeaseChange(now, before),
      onError: (e) => this.printError(e),
    });
    if (keeper.state.role === 'holder') return keeper;
    if (this.o.takeOver) {
      this.print(chalk.dim(`asked pid ${keeper.state.holder.pid} to hand team-lead's inbox over; waiting…`));
      if (await keeper.waitHolding(TAKE_OVER_WAIT_MS)) return keeper;
    }
    const holder = keeper.state.role === 'watcher' ? keeper.state.holder : undefined;
    if (!this.o.lead && !this.o.takeOver) return keeper;
    await keeper.close();
    throw new SwarmError(
      this.o.takeOver ? 'timeout' : 'exists',
      this.o.takeOver
        ? `pid ${holder?.pid ?? '?'} did not hand over within ${TAKE_OVER_WAIT_MS / 1000} s (a leader that is not swarm's console never does): quit it, then run swarm lead again`
        : `team ${this.team.name} is led by pid ${holder?.pid ?? '?'}: an agent lead must take delivery of every message; watch with swarm lead --team ${this.team.name}`,
    );
  }

  private onLeaseChange(now: LeaseState, before: LeaseState): void {
    for (const line of roleChangeLine(this.team.name, now, before)) this.print(line);
    this.roleChange.abort();
  }

  // ---- sources ---------------------------------------------------------------------------------

  /** Consume team-lead's inbox while holding the lease, observe it while watching; switch on a change. */
  private async followInbox(): Promise<void> {
    const mailbox = await openMailbox(this.team);
    while (!this.stop.signal.aborted) {
      const change = (this.roleChange = new AbortController());
      const holding = this.lease?.holding ?? true;
      const signal = AbortSignal.any([this.stop.signal, change.signal]);
      // Watching, the follow starts from the inbox as it is (its watch takes a moment to open): what
      // arrived since this console opened, or is not taken yet, is shown.
      const fresh = (m: InboxMessage): boolean => holding || !m.read || Date.parse(m.timestamp) >= this.openedAt;
      for await (const m of followInbox(mailbox, LEAD_NAME, { consume: holding, signal })) if (fresh(m)) this.onEntry(m, holding);
    }
  }

  private async watch(dir: string, onChange: () => Promise<void>, match?: (name: string) => boolean): Promise<void> {
    const w = await DirWatcher.open(dir, match ? { match } : {});
    try {
      for (;;) {
        await w.changed(this.stop.signal);
        await onChange().catch((e: unknown) => this.printError(e)); // the next change tries again
      }
    } catch (e) {
      if (!this.stop.signal.aborted) throw e;
    } finally {
      await w.close();
    }
  }

  private async tick(): Promise<void> {
    while (!this.stop.signal.aborted) {
      await delay(STATUS_TICK_MS, undefined, { signal: this.stop.signal }).catch(() => undefined); // aborted: the loop ends
      if (!this.stop.signal.aborted) await this.refreshStatus.trigger();
    }
  }

  private onEntry(m: InboxMessage, holding: boolean): void {
    const key = messageKey(m);
    if (this.shown.has(key)) return; // shown while watching, delivered now
    this.shown.add(key);
    if (holding) this.lead?.queue.offer(m);
    const parsed = parseControl(m.text);
    const verdict = this.verdicts.next(m);
    if (parsed.kind !== 'control') {
      this.print(renderMessage({ ...m, read: true }));
      if (verdict !== undefined) this.print(verdictLine(verdict, m.from, true));
      return;
    }
    const c = parsed.message;
    // A permission request is shown as the question itself (from the pending list).
    if (c.type !== 'permission_request') this.print(eventLine(m, c));
    if (verdict !== undefined) this.print(verdictLine(verdict, m.from, true));
    if (c.type === 'permission_request') this.track(this.refreshQuestions.trigger());
    if (c.type === 'plan_approval_request') {
      this.queue.addPlan(m.from, c);
      this.showQuestion();
    }
    if (c.type === 'shutdown_approved' && holding) {
      // When this console asked (/shutdown, exit), that command reports the outcome itself.
      const asked = this.stopping.has(c.from.toLowerCase());
      this.track(
        handleShutdownApproved(this.team, c, stopContext(this)).then((o) => {
          if (o.outcome !== 'already_gone' && !asked) this.print(describeOutcome(o));
        }),
      );
    }
  }

  // ---- status line -----------------------------------------------------------------------------

  private readonly refreshStatus = coalesced(
    async () => {
      if (this.stop.signal.aborted) return;
      const names = await this.status.update(this.queue.size).catch((e: unknown) => (this.printError(e), undefined));
      if (names === undefined) return;
      this.members = names;
      this.queue.keepPlansOf(names);
      this.noteRoster(names);
    },
    { gapMs: STATUS_MIN_GAP_MS, signal: this.stop.signal },
  );

  /** Once no teammate is left: end (the demo) or say how to leave, once per time it empties. */
  private noteRoster(names: readonly string[]): void {
    if (names.length > 0) {
      this.hadTeammates = true;
      this.saidNoneLeft = false;
      return;
    }
    // A shutdown still reporting its outcomes here finishes first (the command refreshes after).
    // With an agent lead, the roster is the lead's business.
    if (this.lead !== undefined) return;
    if (!this.hadTeammates || this.saidNoneLeft || this.exiting !== undefined || this.stopping.size > 0) return;
    this.saidNoneLeft = true;
    if (this.o.endWithLastTeammate) {
      this.print(chalk.dim('the last teammate has left: the demo ends'));
      void this.quit(false);
      return;
    }
    this.print(chalk.dim('no teammate is left: /quit leaves the console (or /spawn <name> <prompt> adds one)'));
  }

  // ---- questions -------------------------------------------------------------------------------

  /** One listing at a time, so a stale listing never brings back a request decided meanwhile. */
  private readonly refreshQuestions = coalesced(() => this.syncQuestions(), { signal: this.stop.signal });

  private async syncQuestions(): Promise<void> {
    const pending = await listPending(this.team, { onProblem: (m) => this.print(chalk.yellow(m)) });
    // A request being answered right now is still on file until decide() finishes: not asked again.
    this.queue.syncPermissions(pending.filter((p) => !this.answering.has(p.id)));
    this.showQuestion();
    await this.refreshStatus.trigger();
  }

  /**
   * The plan questions already open when the console starts: the inbox brings only unread entries
   * (and, watching, recent ones), so a request taken by a leader that died before answering comes
   * from here. (Permission questions come from the pending list, which keeps them on file.)
   */
  private async replayPlans(): Promise<void> {
    for (const p of await openPlanRequests(this.team)) this.queue.addPlan(p.from, p.request);
    this.showQuestion();
  }

  private showQuestion(): void {
    if (this.mode.kind === 'feedback' || this.mode.kind === 'confirm-quit') return;
    // The next question comes after the answer to the last one is printed, not above it.
    if (this.answering.size > 0) return;
    const q = this.queue.current();
    if (q === undefined) {
      this.shownQuestion = undefined;
      if (this.mode.kind !== 'command') this.setMode({ kind: 'command' });
      return;
    }
    if (q.id !== this.shownQuestion) {
      this.shownQuestion = q.id;
      this.printQuestion(q);
    }
    this.setMode({ kind: 'question', question: q });
  }

  private printQuestion(q: Question): void {
    this.questionRows = this.screen.print(questionLines(q, this.queue.size - 1).join('\n'));
    this.rowsSinceQuestion = 0;
  }

  /** Print the open question again before later output scrolls it off the screen. */
  private keepQuestionVisible(rows: number): void {
    if (this.mode.kind !== 'question' || this.shownQuestion !== this.mode.question.id) return;
    this.rowsSinceQuestion += rows;
    const height = this.screen.height;
    // One row for the prompt below it.
    if (height !== undefined && this.rowsSinceQuestion + this.questionRows >= height - 1) this.printQuestion(this.mode.question);
  }

  private setMode(mode: PromptMode): void {
    this.mode = mode;
    this.screen.setPrompt(promptText(mode));
  }

  private answer(q: Question, verdict: 'allow' | 'always' | 'deny', feedback?: string): void {
    this.answering.add(q.id);
    this.queue.remove(q.id);
    this.shownQuestion = undefined;
    this.setMode({ kind: 'command' });
    this.showQuestion();
    this.track(
      this.sendAnswer(q, verdict, feedback).finally(() => {
        this.answering.delete(q.id);
        return this.refreshQuestions.trigger();
      }),
    );
  }

  private async sendAnswer(q: Question, verdict: 'allow' | 'always' | 'deny', feedback?: string): Promise<void> {
    if (q.kind === 'limit') {
      this.print(verdict === 'deny' ? chalk.red(`stopping the lead: ${q.hit.why}`) : chalk.green(`the lead goes on (--${q.hit.kind} raised)`));
      q.answer(verdict === 'deny' ? 'stop' : 'continue');
      return;
    }
    if (q.kind === 'plan') {
      const r = await answerPlan(this.team, q.from, { approve: verdict !== 'deny', ...(feedback ? { feedback } : {}) });
      this.print(`${r.approved ? chalk.green('approved') : chalk.red('rejected')} ${r.to}'s plan${feedback ? `: ${oneLine(feedback, 80)}` : ''}`);
      return;
    }
    const r = await decide(this.team, q.id, verdict === 'deny' ? 'deny' : 'allow', {
      always: verdict === 'always',
      ...(feedback ? { feedback } : {}),
    });
    const what = oneLine(describeToolInput(r.request.toolName, r.request.input), 80);
    const word = r.status === 'approved' ? chalk.green('approved') : chalk.red('denied');
    this.print(`${word} ${paint(r.request.workerColor, r.request.workerName)} ${r.request.toolName}${what ? `: ${what}` : ''}${r.rule ? chalk.dim(`  (rule added: ${r.rule})`) : ''}`);
  }

  // ---- input -----------------------------------------------------------------------------------

  private onKey(key: string): (() => void) | undefined {
    const k = key.toLowerCase();
    const mode = this.mode;
    if (mode.kind === 'confirm-quit') {
      if (k === 'y') return () => void this.quit(true);
      if (k === 'n') return () => this.backFromQuit();
      return undefined;
    }
    if (mode.kind !== 'question') return undefined;
    const q = mode.question;
    if (k === 'y') return () => this.answer(q, 'allow');
    if (k === 'a' && q.kind === 'permission') return () => this.answer(q, 'always');
    if (k === 'n') return () => (q.kind === 'limit' ? this.answer(q, 'deny') : this.setMode({ kind: 'feedback', question: q }));
    return undefined;
  }

  private onLine(line: string): void {
    const mode = this.mode;
    const t = line.trim();
    if (mode.kind === 'feedback') return this.answer(mode.question, 'deny', t || undefined);
    if (mode.kind === 'confirm-quit') {
      if (/^y(es)?$/i.test(t)) return void this.quit(true);
      return this.backFromQuit();
    }
    if (mode.kind === 'question') {
      const m = /^([yan])(?:\s+([\s\S]+))?$/i.exec(t);
      if (m) {
        const v = m[1]!.toLowerCase();
        if (v === 'y') return this.answer(mode.question, 'allow');
        if (v === 'a' && mode.question.kind === 'permission') return this.answer(mode.question, 'always');
        if (v === 'n') return m[2] || mode.question.kind === 'limit' ? this.answer(mode.question, 'deny', m[2]?.trim()) : this.setMode({ kind: 'feedback', question: mode.question });
      }
    }
    const parsed = parseLine(line);
    if (parsed.kind === 'empty') return this.screen.prompt();
    if (parsed.kind === 'error') return this.print(chalk.red(parsed.message));
    if (parsed.kind === 'text') {
      if (this.lead) return this.lead.say(t);
      return this.print(chalk.dim('plain text goes nowhere: /send <name> <text>, /broadcast <text>, or /help'));
    }
    this.track(
      runCommand(parsed.command, this).then((r) => {
        if (r === 'quit') return void this.quit(false);
        return this.refreshStatus.trigger(); // a /shutdown or /kill may have emptied the roster
      }),
    );
  }

  private onInterrupt(): void {
    if (this.exiting) return;
    if (this.screen.line !== '') return this.screen.clearLine(); // like a shell: Ctrl-C drops the typed line first
    if (this.mode.kind === 'confirm-quit') {
      this.print(chalk.dim('leaving without shutting the team down'));
      void this.quit(false);
      return;
    }
    this.setMode({ kind: 'confirm-quit' });
  }

  private backFromQuit(): void {
    this.setMode({ kind: 'command' });
    this.shownQuestion = undefined;
    this.showQuestion();
  }

  // ---- tasks and exit --------------------------------------------------------------------------

  private track(p: Promise<unknown>): void {
    const t = p.catch((e: unknown) => {
      if (!this.stop.signal.aborted) this.printError(e);
    });
    this.tasks.add(t);
    void t.finally(() => this.tasks.delete(t));
  }

  private printError(e: unknown): void {
    const msg = e instanceof Error ? e.message : String(e);
    this.print(`${chalk.red('error:')} ${msg}`);
  }

  /** Leave the console; with `shutdownTeam`, ask every teammate to shut down first (killing the stubborn). */
  quit(shutdownTeam: boolean): Promise<void> {
    this.exiting ??= this.exit(shutdownTeam)
      .catch((e: unknown) => this.printError(e))
      .finally(() => this.resolveDone());
    return this.exiting;
  }

  private async exit(shutdownTeam: boolean): Promise<void> {
    this.screen.onKey(undefined);
    if (shutdownTeam) {
      this.print(chalk.dim('shutting the team down…'));
      for (const m of this.members) this.stopping.add(m.toLowerCase());
      const outcomes = await shutdownAll(this.team, { ...stopContext(this), force: true, timeoutMs: this.o.exitShutdownTimeoutMs ?? END_OF_RUN_SHUTDOWN_MS }).catch(
        (e: unknown) => (this.printError(e), []),
      );
      for (const o of outcomes) this.print(describeOutcome(o));
    }
    this.stop.abort();
    await Promise.allSettled([...this.tasks]);
    await this.stopHosted();
    await this.lease?.close(); // the team may be gone (demo cleanup): fine
    const left = await readTeam(this.team).then((c) => c.members.filter((m) => m.name !== LEAD_NAME).length, () => 0);
    // The demo (endWithLastTeammate) stops its teammates itself once the console has gone.
    if (left > 0 && !this.o.endWithLastTeammate) {
      const back = `swarm lead${this.lead ? ' --agent' : ''} --team ${this.team.name}`;
      this.lastWord(`${left} teammate${left === 1 ? '' : 's'} still running; come back with: ${back}`);
    }
    this.screen.close();
    const cause = this.endedBy;
    // Ends the process at once: a write to a vanished terminal failing later must find us still catching it.
    if (cause !== undefined && this.o.dieOfInterrupt === true) await this.interrupts?.exit(cause);
    this.interrupts?.off();
  }

  /** What the console leaves on purpose: on screen, or on stderr (best effort) when the terminal is gone. */
  private lastWord(text: string): void {
    const cause = this.endedBy;
    if (!terminalGone(cause)) return this.print(chalk.dim(cause === undefined ? text : `${describeInterrupt(cause)}: left the console; ${text}`));
    const out = this.o.errorOutput ?? process.stderr;
    try {
      out.write(`swarm lead (team ${this.team.name}): ${describeInterrupt(cause!)}: left the console; ${text}\n`);
    } catch {
      // that output is gone too
    }
  }

  /** In-process teammates die with this process: stop them and take them off the roster. */
  private async stopHosted(): Promise<void> {
    if (this.host === undefined) return;
    const config = await readTeam(this.team).catch(() => undefined);
    for (const m of config?.members ?? []) {
      if (m.pid !== this.host.pid || m.name === LEAD_NAME) continue; // hosted here: recorded with this process's pid
      await killTeammate(this.team, m.name, stopContext(this)).then(
        (o) => this.print(describeOutcome(o)),
        (e: unknown) => this.printError(e),
      );
    }
    await this.host.close().catch((e: unknown) => this.printError(e));
  }
}

/** Run the console until the user leaves it (with `dieOfInterrupt`, until an interrupt ends the process). */
export async function runConsole(o: ConsoleOptions): Promise<void> {
  const c = new LeaderConsole(o);
  await c.start();
  await c.done;
}
