// The agent lead (docs/protocol.md#agent-lead): the same agent loop as a teammate (agent-loop.ts), as member team-lead,
// in the leader's process (the console's pane, or `swarm run -p`), with its own tools (tools.ts plus
// the task tools; Read/Glob/Grep only with `readTools`), its own system prompt (prompt.ts), and its
// own turn source: a queue the caller fills from team-lead's inbox and the person's lines
// (queue.ts). Its status file (status/team-lead.json) carries its tokens and cost like a member's.
//
// After each turn the lead's team is looked at (team-state.ts):
//   no teammate working and no task open      → the run is finished: the turn's text is the answer
//                                               (`onFinished`; a headless run ends there);
//   nothing queued and no teammate working,
//   but tasks open                            → nothing will happen by itself: the lead is told so
//                                               (a nudge), at most MAX_NUDGES times in a row;
//   otherwise                                 → it waits for the next message.
// Before each step and each spawn the limits are checked (limits.ts); when one is reached the
// person decides (`onLimit`), and a stop ends the run with LimitReached. The run's budget is
// recorded in config.json when the lead starts (team/spend.ts), so it binds every teammate too
// (runtime/budget-gate.ts); a teammate held at it tells team-lead, which wakes the lead to check.
import type { ColorSupportLevel } from 'chalk';
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import type { TeamConfig } from '../../protocol/config.js';
import { defaultCompactAt } from '../../protocol/context-window.js';
import { LEAD_NAME } from '../../protocol/names.js';
import { oneLine } from '../../protocol/text.js';
import { pollUntil } from '../../storage/pid.js';
import { loadAgentTypes } from '../../team/agent-types.js';
import { readTeamMemory } from '../../team/memory.js';
import { memoryDir } from '../../team/paths.js';
import { raiseTeamBudget, readBudgetState, retireStatus, setTeamBudget } from '../../team/spend.js';
import { findMember, readTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { AgentLoop, type LoopEnd } from '../agent-loop.js';
import { readTuning } from '../args.js';
import { ModelClient } from '../model-client.js';
import { createTeamBackoff } from '../rate-limit.js';
import { ModelCallError } from '../model-call.js';
import { StatusReporter } from '../status.js';
import { ToolRunner } from '../tool-runner.js';
import { apiTools } from '../tools/index.js';
import { Transcript } from '../transcript.js';
import { priceOf } from '../usage.js';
import { PaneView, type Writer } from '../view.js';
import { LeadLimits, LimitReached, type LeadLimitSettings, type LimitHit } from './limits.js';
import { BUILT_IN_VOICE, buildLeadPrompt } from './prompt.js';
import type { LeadQueue } from './queue.js';
import { nudgeText, readTeamState, unheardByLead } from './team-state.js';
import type { AgentRequest, SpawnReport, StopReport } from './tools.js';
import { leadToolset } from './toolset.js';

/** Consecutive nudges (turns ended with tasks open and nobody working) before the run fails. */
export const MAX_NUDGES = 3;
/**
 * How long, at most, the end check waits for the inbox's consumer to take the entries for the lead
 * that wait in team-lead's inbox. Not a measure of a moment: on a loaded machine the consumer took
 * longer than the 3 s this once was, and the run ended on the turn before the teammate's report. It
 * bounds only a consumer that has stopped taking anything.
 */
const UNOFFERED_WAIT_MS = 30_000;

/**
 * Wait until the entries for the lead in team-lead's inbox are taken: true when one was offered (the
 * lead has news), false when they were read with nothing offered (another reader took them). The
 * consumer marks an entry read before it offers it: it says when it is between the two
 * (LeadQueue.offered).
 */
async function offeredMeanwhile(team: Team, queue: LeadQueue): Promise<boolean> {
  await pollUntil(async () => queue.size > 0 || (await unheardByLead(team)) === 0, UNOFFERED_WAIT_MS, 50);
  await queue.offered();
  return queue.size > 0;
}

export interface LeadOptions {
  team: Team;
  /** The first user turn (the goal); without it the lead waits for the person's first line. */
  goal?: string;
  /** Answers for the lead's requests go through this queue; the caller fills it (queue.ts). */
  queue: LeadQueue;
  model: string;
  cwd: string;
  /** Offer Read/Glob/Grep (`--lead-tools read`). */
  readTools?: boolean;
  limits: LeadLimitSettings;
  /** Spawning and stopping, as the caller's backend does them. */
  spawn(req: AgentRequest): Promise<SpawnReport>;
  stop(name: string, reason: string | undefined): Promise<StopReport>;
  stopAll(reason: string | undefined): Promise<StopReport[]>;
  /** Stop one teammate now, without asking (TaskStop). */
  kill(name: string): Promise<StopReport>;
  /** Resume the stopped ones among a message's recipients (docs/protocol.md#transcripts-and-resume); one line each for SendMessage's result. */
  resumeStopped?(recipients: readonly string[]): Promise<string[]>;
  /** A limit was reached: go on (the limit grows) or stop the run. */
  onLimit(hit: LimitHit): Promise<'continue' | 'stop'>;
  /** The lead ended a turn with its team at rest; `true` ends the run (headless), else it waits for the person. */
  onFinished(answer: string): boolean;
  env: NodeJS.ProcessEnv;
  write: Writer;
  colorLevel?: ColorSupportLevel;
  signal?: AbortSignal;
  fetch?: typeof fetch;
  pid?: number;
}

export type LeadOutcome =
  | { kind: 'finished'; answer: string }
  | { kind: 'limit'; hit: LimitHit }
  | { kind: 'failed'; why: string }
  | { kind: 'stopped' };

/**
 * The lead's pane: a teammate's, except that a tool result shows its first line (the lead's results
 * are short sentences a person wants: who was spawned where, how a stop ended), and no idle line
 * (waiting is the lead's normal state; its last line ends with the turn).
 */
class LeadView extends PaneView {
  override toolResult(text: string, isError: boolean): void {
    const first = oneLine(text, 160);
    this.line(`  ⎿ ${isError ? this.chalk.red(`error: ${first}`) : this.chalk.dim(first)}`);
  }

  override idle(): void {
    this.endLine();
  }
}

function lastAssistantText(loop: AgentLoop): string {
  for (let i = loop.messages.length - 1; i >= 0; i--) {
    const m = loop.messages[i]!;
    if (m.role !== 'assistant' || typeof m.content === 'string') continue;
    const text = m.content.map((b) => (b.type === 'text' ? b.text : '')).join('').trim();
    if (text !== '') return text;
  }
  return '';
}

/** Runs the lead until its run ends; the outcome says how. Throws only on bad setup. */
export async function runLead(o: LeadOptions): Promise<LeadOutcome> {
  const config = await readTeam(o.team);
  const me = findMember(config, LEAD_NAME);
  const agentId = me?.agentId ?? `${LEAD_NAME}@${o.team.name}`;
  const tuning = readTuning(o.env);
  const paths = o.team.paths;
  const view = new LeadView(o.write, me?.color, o.colorLevel);
  const transcript = new Transcript(paths.log(LEAD_NAME), Date.now, (e) => view.warn(`transcript: ${String(e)}`));
  const status = new StatusReporter({
    file: paths.status(LEAD_NAME),
    name: LEAD_NAME,
    agentId,
    pid: o.pid ?? process.pid,
    heartbeatMs: tuning.heartbeatMs,
    priced: priceOf(o.model) !== undefined,
    onError: (e) => view.warn(`status file: ${String(e)}`),
  });
  const model = new ModelClient({
    model: o.model,
    maxTokens: tuning.maxTokens,
    agentName: LEAD_NAME,
    env: o.env,
    retry: { baseMs: tuning.retryBaseMs, maxRetries: tuning.maxRetries },
    teamBackoff: createTeamBackoff(o.team, LEAD_NAME, { view, transcript }),
    ...(o.fetch ? { fetch: o.fetch } : {}),
  });
  const limits = new LeadLimits(o.limits);
  const memory = await readTeamMemory(memoryDir(o.team.root, o.cwd)); // once, at start: the prompt stays the same
  const stop = new AbortController();
  const onAbort = (): void => stop.abort(o.signal?.reason);
  o.signal?.addEventListener('abort', onAbort, { once: true });
  if (o.signal?.aborted) onAbort();

  // config.json as the turn's system prompt read it, handed to the turn's first limit check (nothing
  // between the two writes it); every later check, and every one after a raise, reads it afresh.
  let turnConfig: TeamConfig | undefined;

  /** A limit reached: the person decides; a stop throws LimitReached out of the loop, a go-on raises it (a budget in config.json). */
  const checkLimits = async (): Promise<void> => {
    await status.flush(); // the lead's own last step is in the spend read below (usage() writes in the background)
    const read = turnConfig;
    turnConfig = undefined;
    for (let hit = limits.reached(await readBudgetState(o.team, read)); hit !== undefined; hit = limits.reached(await readBudgetState(o.team))) {
      view.warn(`limit reached: ${hit.why}`);
      transcript.append({ kind: 'limit', what: hit.kind, why: hit.why });
      const before = status.state;
      if (hit.kind !== 'max-turns') status.setState('waiting_budget');
      if ((await o.onLimit(hit)) === 'stop') throw new LimitReached(hit);
      if (hit.kind === 'max-turns') limits.extendTurns();
      else await raiseTeamBudget(o.team, hit.kind, limits.growth(hit.kind));
      status.setState(before);
    }
  };

  const { tools, ctx } = await leadToolset({
    team: o.team,
    cwd: o.cwd,
    env: o.env,
    backend: o,
    maxTeammates: limits.maxTeammates,
    readTools: o.readTools === true,
    view,
    transcript,
  });
  const processes = ctx.processes;
  const runner = new ToolRunner({
    tools,
    ctx,
    mode: () => 'default',
    teamRules: ctx.teamRules,
    // Only a protected read asks (secrets.ts): the lead does not read credentials.
    ask: (req) => Promise.resolve({ id: req.toolUseId, source: 'rule', decision: 'deny', by: 'swarm', feedback: 'the lead does not read protected files (credentials); a teammate can ask the person for one' }),
    view,
    transcript,
    status,
  });

  let finished: string | undefined;
  const end: LoopEnd = {
    get ended() {
      return finished !== undefined;
    },
    interruptSignal: () => new AbortController().signal,
  };
  let nudges = 0;
  let heard = o.queue.count;
  let failed: string | undefined;
  const loop: AgentLoop = new AgentLoop({
    model,
    tools: apiTools(tools),
    systemPrompt: async () => {
      const config = await readTeam(o.team);
      turnConfig = config;
      view.setRoster(config.members);
      const agentTypes = loadAgentTypes({ cwd: o.cwd, root: o.team.root }).types;
      return buildLeadPrompt({ team: o.team.name, cwd: o.cwd, scratchpad: o.team.paths.scratchpad, config, maxTeammates: limits.maxTeammates, limits: limits.describe(await readBudgetState(o.team, config)), readTools: o.readTools === true, agentTypes, memory });
    },
    runner,
    inbox: o.queue,
    end,
    presence: {
      working: () => Promise.resolve(status.setState('working')),
      idle: async () => {
        status.setState('idle');
        if (o.queue.size > 0) return; // more to hear first
        const state = await readTeamState(o.team);
        if (state.working.length > 0) return; // their messages will wake the lead
        if (state.open.length === 0) {
          // A teammate done within the lead's turn: its report may be in team-lead's inbox and not
          // yet offered here by the inbox's consumer, which offers every entry it takes; or taken
          // (marked read, so not counted as unheard) and about to be offered.
          await o.queue.offered();
          if (o.queue.size > 0) return;
          if (state.unheard > 0 && (await offeredMeanwhile(o.team, o.queue))) return;
          nudges = 0;
          const answer = lastAssistantText(loop);
          transcript.append({ kind: 'finished', answer });
          if (o.onFinished(answer)) finished = answer;
          return;
        }
        // Tasks are open and nobody works on them: tell the lead (unless news came meanwhile).
        nudges = o.queue.count > heard ? 1 : nudges + 1;
        heard = o.queue.count;
        if (nudges > MAX_NUDGES) {
          failed = `the lead stopped ${MAX_NUDGES} times with ${state.open.length} task${state.open.length === 1 ? '' : 's'} open and no teammate working`;
          finished = '';
          return;
        }
        o.queue.say(nudgeText(state, BUILT_IN_VOICE));
        heard = o.queue.count;
      },
    },
    status,
    beforeStep: async () => {
      await checkLimits();
      limits.step();
    },
    tasks: { beginTurn: () => undefined, completedInTurn: () => undefined, claimNext: () => Promise.resolve<TextBlockParam[]>([]) },
    view,
    transcript,
    stop: stop.signal,
    compactAt: tuning.compactAt ?? defaultCompactAt(o.model),
  });

  view.banner(LEAD_NAME, o.team.name, `agent lead · ${model.model} · ${o.cwd}`);
  transcript.append({ kind: 'start', pid: o.pid ?? process.pid, model: o.model, lead: true, cwd: o.cwd });
  // A previous lead's spend still counts (its file is replaced below); this run's budget counts from here.
  await retireStatus(o.team, LEAD_NAME);
  await setTeamBudget(o.team, limits.budget);
  await status.start();
  if (o.goal !== undefined) o.queue.say(o.goal);
  let outcome: LeadOutcome;
  try {
    await loop.run();
    outcome = failed !== undefined ? { kind: 'failed', why: failed } : { kind: 'finished', answer: finished ?? '' };
  } catch (e) {
    if (e instanceof LimitReached) outcome = { kind: 'limit', hit: e.hit };
    else if (stop.signal.aborted) outcome = { kind: 'stopped' };
    else outcome = { kind: 'failed', why: e instanceof ModelCallError ? `model call failed: ${e.message}` : e instanceof Error ? e.message : String(e) };
  } finally {
    o.signal?.removeEventListener('abort', onAbort);
    await processes.killAll();
  }
  transcript.append({ kind: 'exit', outcome: outcome.kind });
  await status.stop(outcome.kind === 'finished' ? 'idle' : 'exiting');
  await transcript.flush();
  return outcome;
}
