// The leader console (`swarm lead`, docs/protocol.md#cli): a readline prompt (screen.ts) with team-lead's inbox
// printed above it (inbox-feed.ts, by the lead's inbox rule), the permission and plan questions
// asked one at a time (questions.ts, keys y/a/n), slash commands (actions.ts), a compact status line
// when it changes (status-tracker.ts), and the in-process teammates it hosts (host.ts). This file
// keeps the leader lease, the display (which question is shown, the prompt's mode) and the input;
// long actions (shutdown waits, spawns) run as tracked tasks, so the prompt stays live, every
// task's error is printed, and leaving (leave.ts) waits for them.
//
// Only the holder of the leader lease (team/lead-lease.ts) takes delivery; a console opened while
// another live process holds it watches: it follows the inbox without consuming it (no lead queue,
// no shutdown handling: the holder does those), still asks the questions (decide() and answerPlan
// are exactly-once), and takes the lease over when the holder ends or hands over (`--take-over`).
// A console holder that is asked hands over and watches from then on.
//
// Other sources of change (sources.ts): permissions/pending/, status/ and config.json, and a slow
// tick for liveness that no file shows. Every question already open when it starts is asked too.
//
// With an agent lead (`swarm run`, `swarm lead --agent`, docs/protocol.md#agent-lead) the lead runs in this process
// (lead-in-console.ts): every inbox entry but the person's questions also goes to it, a plain line
// is said to it, its lines are printed as `lead › …`, and its limits are questions like the others.
// When the team empties, the demo's console ends and any other says how to leave (team-end.ts).
import type { InProcessHost } from '../../backends/in-process/host.js';
import { isSwarmError } from '../../protocol/errors.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { coalesced } from '../../storage/coalesce.js';
import { StateDigest } from './state-digest.js';
import { readTeam, rosterDigest } from '../../team/team-store.js';
import { LeaseKeeper, leaseSelf, type LeaseState } from '../../team/lead-lease.js';
import { SwarmError } from '../../protocol/errors.js';
import { END_OF_RUN_SHUTDOWN_MS } from '../../protocol/shutdown-timing.js';
import { roleChangeLine, watchingLines } from './lease-lines.js';
import type { Team } from '../../team/team.js';
import { catchInterrupts, describeInterrupt, OUTSIDE_SIGNALS, terminalGone, type CaughtInterrupts, type Interrupt } from '../interrupts.js';
import { chalk } from '../output/render.js';
import { runCommand, stopContext, type ActionContext } from './actions.js';
import { openConsoleHost } from './host.js';
import { shutdownEveryTeammate, stopHosted } from './leave.js';
import type { Question } from './prompt-queue.js';
import { OpenQuestions } from './questions.js';
import { Screen } from './screen.js';
import { complete, parseLine } from './slash.js';
import { StatusTracker } from './status-tracker.js';
import { TeamEnd } from './team-end.js';
import { promptText, questionLines, type PromptMode } from './view.js';
import { InboxFeed } from './inbox-feed.js';
import { wakeWhileOpen } from '../hibernation-waker.js';
import { LeadInConsole } from './lead-in-console.js';
import type { ConsoleOptions } from './options.js';
import { pause, tickAtMost, watchDir } from './sources.js';
import type { LimitHit } from '../../runtime/lead/limits.js';

/** How long `--take-over` waits for the holder to hand over. */
const TAKE_OVER_WAIT_MS = 15_000;

/**
 * The full status sweep (every pane probed, every status file and inbox read) runs every
 * STATUS_TICK_MS at most: it finds what no file change says (a pane gone, a process killed, a
 * heartbeat gone stale); everything else is seen at once through the watched files. About 20 ms of
 * CPU for 10 teammates, so every 10 s is 0.2 % of a core (every 5 s made half of an idle console's cost).
 */
const STATUS_TICK_MS = 10_000;
/** ...and never more than this share of the time (a big team's sweep takes long: it runs less often). */
const STATUS_TICK_SHARE = 0.003;
/** The status directory is looked at again at most this often (heartbeats of a big team). */
const STATUS_LOOK_GAP_MS = 1000;
const STATUS_MIN_GAP_MS = 300;

export class LeaderConsole implements ActionContext {
  readonly team: Team;
  readonly env: NodeJS.ProcessEnv;
  host: InProcessHost | undefined;
  private readonly screen: Screen;
  private readonly status: StatusTracker;
  private readonly questions: OpenQuestions;
  private readonly stop = new AbortController();
  private readonly tasks = new Set<Promise<unknown>>();
  private mode: PromptMode = { kind: 'command' };
  private shownQuestion: string | undefined;
  /** Screen rows the shown question took, and rows printed below it since. */
  private questionRows = 0;
  private rowsSinceQuestion = 0;
  private members: string[] = [];
  private readonly teamEnd: TeamEnd;
  /** Teammates this console is shutting down (lower-case names). */
  readonly stopping = new Set<string>();
  private exiting: Promise<void> | undefined;
  private lead: LeadInConsole | undefined;
  private lease: LeaseKeeper | undefined;
  private readonly inbox: InboxFeed;
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
    this.teamEnd = new TeamEnd({
      team: o.team,
      endWithLastTeammate: o.endWithLastTeammate === true,
      stopping: this.stopping,
      leadRuns: () => this.lead !== undefined,
      leaving: () => this.exiting !== undefined,
      leave: () => void this.quit(false),
      print: (t) => this.print(t),
      track: (p) => this.track(p),
    });
    this.questions = new OpenQuestions({
      team: o.team,
      print: (t) => this.print(t),
      track: (p) => this.track(p),
      show: () => this.showQuestion(),
      taken: () => {
        this.shownQuestion = undefined;
        this.setMode({ kind: 'command' });
        this.showQuestion();
      },
      listed: () => this.refreshStatus.trigger(),
      signal: this.stop.signal,
    });
    this.inbox = new InboxFeed({
      team: o.team,
      stopping: this.stopping,
      stopContext: () => stopContext(this),
      holding: () => this.lease?.holding ?? true,
      leadQueue: () => this.lead?.queue,
      print: (t) => this.print(t),
      track: (p) => this.track(p),
      permissionAsked: () => this.track(this.questions.refresh.trigger()),
      planAsked: (from, request) => this.questions.addPlan(from, request),
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
    this.track(this.inbox.run(this.stop.signal));
    const watching = { onError: (e: unknown) => this.printError(e), signal: this.stop.signal };
    this.track(watchDir(this.team.paths.pending, () => this.questions.refresh.trigger(), watching));
    const states = new StateDigest(this.team.paths.statusDir);
    let digest = '';
    this.track(
      watchDir(
        this.team.paths.statusDir,
        async (names) => {
          const next = await states.read(names);
          if (next !== digest) {
            digest = next;
            await this.refreshStatus.trigger();
          }
          await pause(STATUS_LOOK_GAP_MS, this.stop.signal); // heartbeats of many teammates: one look per gap
        },
        { ...watching, match: (n) => n.endsWith('.json') },
      ),
    );
    let roster = '';
    this.track(
      watchDir(
        this.team.paths.dir,
        async () => {
          const next = rosterDigest(await readTeam(this.team));
          if (next === roster) return; // this console's own lease renewal
          roster = next;
          await this.refreshStatus.trigger();
        },
        { ...watching, match: (n) => n === 'config.json' },
      ),
    );
    this.track(tickAtMost(STATUS_TICK_MS, STATUS_TICK_SHARE, () => this.refreshStatus.trigger(), this.stop.signal));
    this.track(wakeWhileOpen({ team: this.team, backends: () => stopContext(this), say: (line) => this.print(chalk.dim(line)) }, this.stop.signal));
    await this.questions.replayPlans().catch((e: unknown) => this.printError(e));
    await this.questions.refresh.trigger();
    await this.refreshStatus.trigger();
    if (this.lead) this.track(this.lead.run(this.stop.signal));
  }

  /** The agent lead finished: the demo ends when no teammate is left (the lead stopped them). */
  leadFinished(): void {
    this.teamEnd.leadFinished();
  }

  /** Ask the person (the agent lead's limit); resolves with the answer, `stop` if the console closes first. */
  askLimit(hit: LimitHit): Promise<'continue' | 'stop'> {
    return this.questions.askLimit(hit);
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
    this.inbox.restart();
  }

  // ---- sources ---------------------------------------------------------------------------------

  // ---- status line -----------------------------------------------------------------------------

  private readonly refreshStatus = coalesced(
    async () => {
      if (this.stop.signal.aborted) return;
      const names = await this.status.update(this.questions.queue.size).catch((e: unknown) => (this.printError(e), undefined));
      if (names === undefined) return;
      this.members = names;
      this.questions.queue.keepPlansOf(names);
      this.teamEnd.roster(names);
    },
    { gapMs: STATUS_MIN_GAP_MS, signal: this.stop.signal },
  );

  // ---- questions -------------------------------------------------------------------------------

  private showQuestion(): void {
    if (this.mode.kind === 'feedback' || this.mode.kind === 'confirm-quit') return;
    // The next question comes after the answer to the last one is printed, not above it.
    if (this.questions.busy) return;
    const q = this.questions.queue.current();
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
    this.questionRows = this.screen.print(questionLines(q, this.questions.queue.size - 1).join('\n'));
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
    if (k === 'y') return () => this.questions.answer(q, 'allow');
    if (k === 'a' && q.kind === 'permission') return () => this.questions.answer(q, 'always');
    if (k === 'n') return () => (q.kind === 'limit' ? this.questions.answer(q, 'deny') : this.setMode({ kind: 'feedback', question: q }));
    return undefined;
  }

  private onLine(line: string): void {
    const mode = this.mode;
    const t = line.trim();
    if (mode.kind === 'feedback') return this.questions.answer(mode.question, 'deny', t || undefined);
    if (mode.kind === 'confirm-quit') {
      if (/^y(es)?$/i.test(t)) return void this.quit(true);
      return this.backFromQuit();
    }
    if (mode.kind === 'question') {
      const m = /^([yan])(?:\s+([\s\S]+))?$/i.exec(t);
      if (m) {
        const v = m[1]!.toLowerCase();
        if (v === 'y') return this.questions.answer(mode.question, 'allow');
        if (v === 'a' && mode.question.kind === 'permission') return this.questions.answer(mode.question, 'always');
        if (v === 'n') return m[2] || mode.question.kind === 'limit' ? this.questions.answer(mode.question, 'deny', m[2]?.trim()) : this.setMode({ kind: 'feedback', question: mode.question });
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
    const onError = (e: unknown): void => this.printError(e);
    if (shutdownTeam) await shutdownEveryTeammate(this, this.members, this.o.exitShutdownTimeoutMs ?? END_OF_RUN_SHUTDOWN_MS, onError);
    this.stop.abort();
    await Promise.allSettled([...this.tasks]);
    await stopHosted(this, onError);
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
}

/** Run the console until the user leaves it (with `dieOfInterrupt`, until an interrupt ends the process). */
export async function runConsole(o: ConsoleOptions): Promise<void> {
  const c = new LeaderConsole(o);
  await c.start();
  await c.done;
}
