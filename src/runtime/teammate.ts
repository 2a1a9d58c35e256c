// `swarm teammate`: one teammate process (docs/protocol.md#teammate-runtime), wired from the pieces in this folder.
//
// Start: validate flags against config.json (args.ts; a one-line error and nothing touched when
// they disagree) → with --resume, the conversation from logs/<name>.jsonl (restore.ts; a corrupt
// transcript ends the process before anything is written) → the project's team memory index, read once
// for the system prompt (team/memory.ts) → status/<name>.json `starting` → isActive:true + pid in config.json → inbox
// watcher → deliver the inbox (the initial prompt first) → agent loop, each model step after the
// team's budget allows it (budget-gate.ts); Claude Code's TeammateIdle / TaskCreated / TaskCompleted
// hooks from the settings files (hooks.ts); idle past its hibernateAfter, it hibernates
// (hibernation.ts). End: exit.ts.
// Nothing here touches process-wide state (signals, exit): the CLI command does, so a host process
// could run a teammate in-process with its own `signal` and `write`.
import type { ColorSupportLevel } from 'chalk';
import type { RuleSet } from '../permissions/rules.js';
import { Mailbox } from '../mailbox/mailbox.js';
import type { PermissionMode } from '../protocol/config.js';
import { defaultCompactAt } from '../protocol/context-window.js';
import type { ShutdownRequest } from '../protocol/control.js';
import { ensureDir } from '../storage/atomic.js';
import { coalesced } from '../storage/coalesce.js';
import { DirWatcher } from '../storage/watch.js';
import { readTeamMemory, type TeamMemory } from '../team/memory.js';
import { homeDir, memoryDir, resolveRoot } from '../team/paths.js';
import { findMember, readTeam, updateMember } from '../team/team-store.js';
import { Team } from '../team/team.js';
import { CREDENTIAL_ENV } from '../teammates/command-line.js';
import { AgentLoop } from './agent-loop.js';
import { BudgetGate } from './budget-gate.js';
import { parseFlags, readTuning, resolveSettings, type TeammateSettings } from './args.js';
import { finishTeammate, type ExitReason } from './exit.js';
import { TeammateHooks } from './hooks.js';
import { ActedLog } from './acted.js';
import { InboxDelivery, undeliveredEntries } from './inbox-delivery.js';
import type { LeadTrust } from './incoming.js';
import { hibernationRule } from './hibernation.js';
import { InboxMonitor } from './inbox-monitor.js';
import { createLeaderAsk } from './leader-ask.js';
import { TeamMessaging } from './messaging.js';
import { ModelClient, type ModelClientOptions } from './model-client.js';
import { priceOf } from './usage.js';
import { ModeState, PlanApproval } from './plan-approval.js';
import { Presence } from './presence.js';
import { ModelCallError } from './model-call.js';
import { createTeamBackoff } from './rate-limit.js';
import { ShutdownCoordinator } from './shutdown.js';
import { StatusReporter } from './status.js';
import { buildSubagentPrompt, buildSystemPrompt } from './system-prompt.js';
import { TeammateSubagents } from './subagent.js';
import { resolveAgentType } from '../team/agent-types.js';
import { TeamTasks } from './team-tasks.js';
import { ToolRunner } from './tool-runner.js';
import { apiTools, toolsForType } from './tools/index.js';
import { PathGuard } from './tools/paths.js';
import { Scratchpad } from './tools/scratchpad.js';
import { ProcessGroups } from './tools/process-groups.js';
import { AgentConfigPaths } from './tools/agent-config.js';
import { MemoryPaths } from './tools/memory.js';
import { SecretPaths } from './tools/secrets.js';
import type { ToolContext } from './tools/types.js';
import { restoreConversation, type Restored } from './restore.js';
import { Transcript } from './transcript.js';
import { firstChange } from './wake.js';
import { PaneView, type Writer } from './view.js';

export interface RunTeammateOptions {
  /** The flags (yargs output or any object with the camel-cased names of args.ts). */
  flags: unknown;
  env: NodeJS.ProcessEnv;
  /** The pane. */
  write: Writer;
  /** Colour level of the pane view (chalk's 0-3), decided by the CLI; default none. */
  colorLevel?: ColorSupportLevel;
  /** Aborting it stops the teammate cleanly (SIGTERM in the CLI). Its reason, if a string, names the cause. */
  signal?: AbortSignal;
  pid?: number;
  fetch?: typeof fetch;
}

function shellEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  for (const k of CREDENTIAL_ENV) delete out[k];
  return out;
}

/** Runs the teammate until it exits; resolves with the process exit code. Throws only on bad flags/setup. */
export async function runTeammate(opts: RunTeammateOptions): Promise<number> {
  const flags = parseFlags(opts.flags);
  const team = new Team(resolveRoot(opts.env), flags.teamName);
  const config = await readTeam(team);
  const s = await resolveSettings(team, opts.flags, config, opts.env);
  const tuning = readTuning(opts.env);
  const model: ModelClientOptions = {
    model: s.model,
    maxTokens: tuning.maxTokens,
    agentName: s.name,
    env: opts.env,
    retry: { baseMs: tuning.retryBaseMs, maxRetries: tuning.maxRetries },
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
  };
  const guard = await PathGuard.create(team.root, s.cwd, await Scratchpad.open(team));
  const secrets = await SecretPaths.create(team.root, homeDir(opts.env));
  const agentConfig = await AgentConfigPaths.create(team.root, { cwd: s.cwd, home: homeDir(opts.env) });
  const compactAt = tuning.compactAt ?? defaultCompactAt(s.model);
  const restored = flags.resume === true ? await restoreConversation(team.paths.log(s.name)) : undefined;
  // Read once, at start: the system prompt stays the same turn after turn.
  const memory = await readTeamMemory(memoryDir(team.root, s.cwd));
  return new Teammate(s, opts, model, guard, secrets, agentConfig, memory, tuning.shutdownGraceMs, tuning.heartbeatMs, tuning.pollMs, compactAt, restored).run();
}

class Teammate {
  private readonly paths;
  private readonly mailbox;
  private readonly view;
  private readonly transcript;
  private readonly status;
  private readonly presence;
  private readonly model: ModelClient;
  private readonly processes = new ProcessGroups();
  private readonly stop = new AbortController();
  private stopReason: ExitReason | undefined;
  private readonly acted: ActedLog;
  private readonly finishedPermissions = new Set<string>();

  constructor(
    private readonly s: TeammateSettings,
    private readonly opts: RunTeammateOptions,
    modelOptions: ModelClientOptions,
    private readonly guard: PathGuard,
    private readonly secrets: SecretPaths,
    private readonly agentConfig: AgentConfigPaths,
    private readonly memory: TeamMemory,
    private readonly graceMs: number,
    heartbeatMs: number,
    private readonly pollMs: number,
    private readonly compactAt: number,
    private readonly restored: Restored | undefined,
  ) {
    this.paths = s.team.paths;
    this.mailbox = new Mailbox({ team: s.team });
    this.view = new PaneView(opts.write, s.color, opts.colorLevel);
    this.transcript = new Transcript(this.paths.log(s.name), Date.now, (e) => this.view.warn(`transcript: ${String(e)}`));
    const teamBackoff = createTeamBackoff(s.team, s.name, { view: this.view, transcript: this.transcript });
    this.model = new ModelClient({ ...modelOptions, teamBackoff });
    const pid = opts.pid ?? process.pid;
    this.status = new StatusReporter({
      file: this.paths.status(s.name),
      name: s.name,
      agentId: s.agentId,
      pid,
      heartbeatMs,
      priced: priceOf(s.model) !== undefined,
      onError: (e) => this.view.warn(`status file: ${String(e)}`),
    });
    this.acted = new ActedLog(this.paths.acted(s.name), (m) => this.view.warn(m));
    this.presence = new Presence({ team: s.team, name: s.name, ...(s.color ? { color: s.color } : {}), pid, mailbox: this.mailbox, status: this.status, transcript: this.transcript });
  }

  private halt(reason: ExitReason): void {
    if (this.stop.signal.aborted) return;
    this.stopReason = reason;
    this.stop.abort(reason);
  }

  async run(): Promise<number> {
    const s = this.s;
    const config = await readTeam(s.team);
    this.view.setRoster(config.members);
    // Controls signed before this member joined are replays (a respawn joins anew).
    const trust: LeadTrust = { key: s.parsedKey, acted: this.acted, self: s.name, since: findMember(config, s.name)?.joinedAt ?? Date.now() };
    // Resumed: the mode it last ran in (a plan approved before the crash is not asked for again).
    const mode = this.restored?.mode ?? s.mode;
    this.view.banner(s.name, s.team.name, `${this.model.model} · ${mode} mode · ${s.cwd}`);
    this.transcript.append({ kind: 'start', pid: this.opts.pid ?? process.pid, model: s.model, mode, cwd: s.cwd });
    if (this.restored !== undefined) {
      const n = this.restored.messages.length;
      for (const note of this.restored.notes) this.view.warn(note);
      this.view.notice(`resumed: ${n} message${n === 1 ? '' : 's'} of the conversation restored from ${this.paths.log(s.name)}`);
      this.transcript.append({ kind: 'resume', messages: n, notes: this.restored.notes });
    }
    await this.status.start();
    await this.presence.start();
    const onHostAbort = (): void => {
      const r: unknown = this.opts.signal?.reason;
      this.halt({ kind: 'signal', signal: typeof r === 'string' ? r : 'stop' });
    };
    this.opts.signal?.addEventListener('abort', onHostAbort, { once: true });
    if (this.opts.signal?.aborted) onHostAbort();

    const shutdown = new ShutdownCoordinator({
      graceMs: this.graceMs,
      onGraceExpired: (request: ShutdownRequest) => this.halt({ kind: 'grace', request, graceMs: this.graceMs }),
    });
    const monitor = await InboxMonitor.open(this.paths, s.name, { pollMs: this.pollMs });
    await ensureDir(this.paths.tasks.dir);
    const taskWatch = await DirWatcher.open(this.paths.tasks.dir, { match: (b) => b.endsWith('.json'), pollMs: this.pollMs });
    const modes = new ModeState(mode, s.modeAfterPlan, (m) => this.modeChanged(m));
    const plan = new PlanApproval({
      mailbox: this.mailbox,
      name: s.name,
      team: s.team.name,
      ...(s.color ? { color: s.color } : {}),
      trust,
      monitor,
      modes,
      onWait: (id) => {
        this.view.waiting(`plan sent to team-lead; waiting for approval [${id}]`);
        this.status.setState('waiting_permission');
      },
      onAnswer: (r) => {
        this.view.decided(r.approved, `plan ${r.approved ? 'approved' : 'rejected'} by team-lead${r.feedback ? `: ${r.feedback}` : ''}`);
        this.transcript.append({ kind: 'control', what: 'plan_approval_response', requestId: r.requestId, approved: r.approved });
        this.status.setState('working');
      },
    });
    const delivery = new InboxDelivery({
      mailbox: this.mailbox,
      name: s.name,
      trust,
      finishedPermissions: this.finishedPermissions,
      shutdown,
      plan,
      setMode: (m) => modes.set(m),
      view: this.view,
      transcript: this.transcript,
      carried: await undeliveredEntries(this.mailbox, s.name, this.restored?.undelivered ?? [], (m) => this.view.warn(m)),
    });
    const peeking = this.watchForShutdown(monitor, delivery);
    const teamRules = async (): Promise<RuleSet> => (await readTeam(s.team)).swarm?.rules ?? { allow: [], deny: [] };
    const hooks = new TeammateHooks({
      root: s.team.root,
      cwd: s.cwd,
      env: shellEnv(this.opts.env),
      processes: this.processes,
      stop: this.stop.signal,
      team: s.team.name,
      name: s.name,
      sessionId: s.agentId,
      transcriptPath: this.paths.log(s.name),
      mode: () => modes.mode,
      view: this.view,
      transcript: this.transcript,
    });
    const tasks = new TeamTasks({ team: s.team, name: s.name, mailbox: this.mailbox, view: this.view, transcript: this.transcript, hooks });
    const ctx: ToolContext = {
      cwd: s.cwd,
      guard: this.guard,
      secrets: this.secrets,
      agentConfig: this.agentConfig,
      memory: new MemoryPaths(this.memory.dir),
      teamRules,
      processes: this.processes,
      shellEnv: shellEnv(this.opts.env),
      messaging: new TeamMessaging({ mailbox: this.mailbox, name: s.name, ...(s.color ? { color: s.color } : {}), shutdown, view: this.view, transcript: this.transcript }),
      plan,
      tasks,
    };
    const tools = toolsForType(s.agentTypeDef, s.mode === 'plan'); // as first started: the conversation may use ExitPlanMode
    const runner = new ToolRunner({
      tools,
      ...(s.agentType ? { agentType: s.agentType } : {}),
      ctx,
      mode: () => modes.mode,
      teamRules,
      ask: createLeaderAsk(s, { view: this.view, transcript: this.transcript, finished: this.finishedPermissions, pollMs: this.pollMs || 1000 }),
      view: this.view,
      transcript: this.transcript,
      status: this.status,
    });
    const budget = new BudgetGate({
      team: s.team,
      name: s.name,
      ...(s.color ? { color: s.color } : {}),
      mailbox: this.mailbox,
      status: this.status,
      view: this.view,
      transcript: this.transcript,
      shutdown,
      onShutdown: (request) => this.halt({ kind: 'budget', request }),
      stop: this.stop.signal,
      pollMs: this.pollMs || 1000,
    });
    const subagents = new TeammateSubagents({
      parent: () => loop, // called only during one of its tool rounds
      model: this.model,
      runner,
      tools,
      agentType: (name) => resolveAgentType({ cwd: s.cwd, root: s.team.root }, name),
      systemPrompt: (type) => buildSubagentPrompt({ parent: s.name, team: s.team.name, agentType: type.name, typePrompt: type.prompt, cwd: s.cwd, mode: modes.mode }),
      status: this.status,
      end: shutdown,
      beforeStep: () => budget.beforeStep(),
      view: this.view,
      transcript: this.transcript,
      compactAt: this.compactAt,
    });
    ctx.subagents = subagents; // the runner's context: Agent runs here
    const loop = new AgentLoop({
      model: this.model,
      tools: apiTools(tools),
      systemPrompt: async () => {
        const config = await readTeam(s.team);
        this.view.setRoster(config.members);
        return buildSystemPrompt({ name: s.name, team: s.team.name, ...(s.agentType ? { agentType: s.agentType } : {}), ...(s.agentTypeDef?.prompt ? { typePrompt: s.agentTypeDef.prompt } : {}), cwd: s.cwd, root: s.team.root, scratchpad: this.paths.scratchpad, mode: modes.mode, config, memory: this.memory });
      },
      runner,
      // Idle, a teammate also wakes when the task list changes: a task created or freed is claimed then.
      inbox: { take: () => delivery.take(), settle: () => delivery.settle(), changed: (signal) => firstChange(signal, [(x) => monitor.changed(x), (x) => taskWatch.changed(x)]) },
      end: shutdown,
      presence: this.presence,
      status: this.status,
      beforeStep: () => budget.beforeStep(),
      tasks,
      view: this.view,
      transcript: this.transcript,
      stop: this.stop.signal,
      compactAt: this.compactAt,
      beforeIdle: () => hooks.beforeIdle(async () => (await tasks.list.unfinishedOf(s.name)).filter((t) => t.status === 'in_progress')),
      ...(this.restored !== undefined ? { history: this.restored.messages } : {}),
      hibernate: hibernationRule({ team: s.team, name: s.name, mailbox: this.mailbox, tasks: tasks.list, processes: this.processes }),
    });

    let reason: ExitReason;
    try {
      await loop.run();
      reason = shutdown.approved
        ? { kind: 'approved', request: shutdown.approved }
        : loop.hibernated
          ? { kind: 'hibernate', idleMs: Date.now() - loop.idleSince }
          : { kind: 'failed', why: 'the agent loop ended unexpectedly' };
    } catch (e) {
      reason = this.stopReason ?? { kind: 'failed', why: e instanceof ModelCallError ? `model call failed: ${e.message}` : e instanceof Error ? e.message : String(e) };
    }
    this.opts.signal?.removeEventListener('abort', onHostAbort);
    shutdown.dispose();
    return finishTeammate(reason, {
      team: s.team,
      name: s.name,
      ...(s.color ? { color: s.color } : {}),
      mailbox: this.mailbox,
      presence: this.presence,
      status: this.status,
      processes: this.processes,
      view: this.view,
      transcript: this.transcript,
      closeWatchers: async () => {
        this.halt(reason); // ends any wait still running
        await monitor.close();
        await taskWatch.close();
        await peeking();
      },
    });
  }

  /** Notice signed shutdown requests as soon as they land (their grace period starts then). */
  private watchForShutdown(monitor: InboxMonitor, delivery: InboxDelivery): () => Promise<void> {
    const peek = coalesced(
      async () => {
        try {
          for (const r of await delivery.peekShutdown()) {
            this.transcript.append({ kind: 'control', what: 'shutdown_request seen', requestId: r.requestId });
          }
        } catch (e) {
          this.view.warn(`reading the inbox: ${e instanceof Error ? e.message : String(e)}`);
        }
      },
      { signal: this.stop.signal },
    );
    monitor.onChange(() => void peek.trigger());
    void peek.trigger();
    return () => peek.idle();
  }

  private modeChanged(mode: PermissionMode): void {
    this.view.notice(`permission mode: ${mode}`);
    this.transcript.append({ kind: 'control', what: 'mode', mode });
    updateMember(this.s.team, this.s.name, { mode }).catch((e: unknown) => this.view.warn(`config.json: ${String(e)}`));
  }
}
