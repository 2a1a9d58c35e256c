// The console's open questions and the person's answers (docs/protocol.md#cli, docs/protocol.md#agent-lead): the permission requests kept
// in step with the pending list (one listing at a time, so a stale listing never brings back a
// request decided meanwhile; one being answered is not asked again while decide() runs), the plan
// requests (from the inbox, and those already open when the console starts), the agent lead's
// limits; and carrying out an answer (decide(), answerPlan, the limit's callback) with the line
// that says what was done. Which question is on screen, and how, is console.ts's.
import { decide } from '../../permissions/leader.js';
import { listPending } from '../../permissions/pending-list.js';
import { answerPlan, openPlanRequests } from '../../permissions/plan-answer.js';
import type { PlanApprovalRequest } from '../../protocol/control.js';
import { oneLine } from '../../protocol/text.js';
import type { LimitHit } from '../../runtime/lead/limits.js';
import { coalesced, type Coalesced } from '../../storage/coalesce.js';
import type { Team } from '../../team/team.js';
import { chalk, describeToolInput, paint } from '../output/render.js';
import { PromptQueue, type Question } from './prompt-queue.js';

export type Answer = 'allow' | 'always' | 'deny';

export interface OpenQuestionsOptions {
  team: Team;
  print: (text: string) => void;
  /** Runs a task the console waits for on exit, its error printed. */
  track: (p: Promise<unknown>) => void;
  /** The questions changed: show the current one. */
  show: () => void;
  /** A question was taken to be answered: the console clears it from the screen. */
  taken: () => void;
  /** After each listing of the pending requests (the status line counts them). */
  listed: () => Promise<void>;
  /** The console closes. */
  signal: AbortSignal;
}

export class OpenQuestions {
  readonly queue = new PromptQueue();
  private readonly answering = new Set<string>();
  /** List the pending requests again (coalesced). */
  readonly refresh: Coalesced;

  constructor(private readonly o: OpenQuestionsOptions) {
    this.refresh = coalesced(() => this.sync(), { signal: o.signal });
  }

  /** True while an answer is being carried out: the next question comes after its line, not above it. */
  get busy(): boolean {
    return this.answering.size > 0;
  }

  addPlan(from: string, request: PlanApprovalRequest): void {
    this.queue.addPlan(from, request);
    this.o.show();
  }

  /**
   * The plan questions already open when the console starts: the inbox brings only unread entries
   * (and, watching, recent ones), so a request taken by a leader that died before answering comes
   * from here. (Permission questions come from the pending list, which keeps them on file.)
   */
  async replayPlans(): Promise<void> {
    for (const p of await openPlanRequests(this.o.team)) this.queue.addPlan(p.from, p.request);
    this.o.show();
  }

  /** Ask the person (the agent lead's limit); resolves with the answer, `stop` if the console closes first. */
  askLimit(hit: LimitHit): Promise<'continue' | 'stop'> {
    const signal = this.o.signal;
    return new Promise((resolve) => {
      const id = `limit-${Date.now()}`;
      const onStop = (): void => resolve('stop');
      signal.addEventListener('abort', onStop, { once: true });
      this.queue.addLimit(id, hit, (go) => {
        signal.removeEventListener('abort', onStop);
        resolve(go);
      });
      this.o.show();
    });
  }

  /** Carry out the person's answer to `q` (a task); the pending list is read again after it. */
  answer(q: Question, verdict: Answer, feedback?: string): void {
    this.answering.add(q.id);
    this.queue.remove(q.id);
    this.o.taken();
    const carryOut = async (): Promise<void> => {
      try {
        await this.send(q, verdict, feedback);
      } finally {
        this.answering.delete(q.id);
        await this.refresh.trigger();
      }
    };
    this.o.track(carryOut());
  }

  private async sync(): Promise<void> {
    const pending = await listPending(this.o.team, { onProblem: (m) => this.o.print(chalk.yellow(m)) });
    // A request being answered right now is still on file until decide() finishes: not asked again.
    this.queue.syncPermissions(pending.filter((p) => !this.answering.has(p.id)));
    this.o.show();
    await this.o.listed();
  }

  private async send(q: Question, verdict: Answer, feedback?: string): Promise<void> {
    const print = this.o.print;
    if (q.kind === 'limit') {
      print(verdict === 'deny' ? chalk.red(`stopping the lead: ${q.hit.why}`) : chalk.green(`the lead goes on (--${q.hit.kind} raised)`));
      q.answer(verdict === 'deny' ? 'stop' : 'continue');
      return;
    }
    if (q.kind === 'plan') {
      const r = await answerPlan(this.o.team, q.from, { approve: verdict !== 'deny', ...(feedback ? { feedback } : {}) });
      print(`${r.approved ? chalk.green('approved') : chalk.red('rejected')} ${r.to}'s plan${feedback ? `: ${oneLine(feedback, 80)}` : ''}`);
      return;
    }
    const r = await decide(this.o.team, q.id, verdict === 'deny' ? 'deny' : 'allow', {
      always: verdict === 'always',
      ...(feedback ? { feedback } : {}),
    });
    const what = oneLine(describeToolInput(r.request.toolName, r.request.input), 80);
    const word = r.status === 'approved' ? chalk.green('approved') : chalk.red('denied');
    print(`${word} ${paint(r.request.workerColor, r.request.workerName)} ${r.request.toolName}${what ? `: ${what}` : ''}${r.rule ? chalk.dim(`  (rule added: ${r.rule})`) : ''}`);
  }
}
