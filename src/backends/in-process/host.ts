// The in-process host: runs teammates as async functions inside one long-running process (the
// leader console), each in its own AsyncLocalStorage context (context.ts).
//
// Other processes reach it through files (layout in protocol/hosted.ts): `open` registers the host
// in config.json (`swarm.inProcessHost`, refused while another live host holds it) and watches
// teams/<team>/hosted/; a `<name>.spawn.json` request starts a teammate through the injected
// `launch`, a `<name>.kill.json` request stops one. The host keeps `<name>.state.json` current
// (running/exited, exit code, last output lines; writes coalesced) until the teammate is killed,
// when it deletes the state and the kill request: that deletion is the kill's confirmation. The
// error that ends a teammate is also appended to its `stderrLog` (PaneSpec), when one is given.
import { promises as fs } from 'node:fs';
import type { PaneOutput, PaneRef, PaneSpec } from '../backend.js';
import { SwarmError, isSwarmError } from '../../protocol/errors.js';
import {
  HostedKillRequestSchema,
  HostedSpawnRequestSchema,
  InProcessHostRegistrationSchema,
  type HostedSpawnError,
  type HostedState,
} from '../../protocol/hosted.js';
import { agentId } from '../../protocol/names.js';
import { formatJson, writeFileAtomic } from '../../storage/atomic.js';
import { coalesced, type Coalesced } from '../../storage/coalesce.js';
import { DirWatcher } from '../../storage/watch.js';
import { updateTeam } from '../../team/team-store.js';
import type { Team } from '../../team/team.js';
import { isProcessAlive, tailLines } from '../process.js';
import { runAsTeammate, type TeammateContext, type TeammateLaunch } from './context.js';
import { parseHostedFileName, readRecord } from './files.js';

export interface InProcessHostOptions {
  team: Team;
  launch: TeammateLaunch;
  /** Output lines kept per teammate for capture. Default 200. */
  outputLines?: number;
  /** Poll fallback of the request watcher, ms. Default 500. */
  pollMs?: number;
  /** How long a killed teammate's function gets to finish after its abort. Default 5000 ms. */
  killTimeoutMs?: number;
}

interface Hosted {
  id: string;
  name: string;
  stop: AbortController;
  work: AbortController;
  output: string[];
  state: 'running' | 'exited';
  exitCode?: number;
  startedAt: number;
  exitedAt?: number;
  done: Promise<void>;
  /** State-file writes: coalesced, none once the teammate is forgotten. */
  writes: Coalesced;
  forgotten: boolean;
}

export class InProcessHost {
  readonly pid = process.pid;
  private readonly teammates = new Map<string, Hosted>();
  private readonly inFlight = new Set<string>();
  private readonly closing = new AbortController();
  private serving: Promise<void> = Promise.resolve();

  private constructor(private readonly opts: InProcessHostOptions) {}

  /** Register as the team's host and start serving spawn/kill requests. */
  static async open(opts: InProcessHostOptions): Promise<InProcessHost> {
    const host = new InProcessHost(opts);
    const startedAt = Date.now();
    await updateTeam(opts.team, (config) => {
      const current = InProcessHostRegistrationSchema.safeParse(config.swarm?.inProcessHost);
      if (current.success && current.data.pid !== process.pid && isProcessAlive(current.data.pid)) {
        throw new SwarmError('exists', `team "${opts.team.name}" already has an in-process host (pid ${current.data.pid}); use that console`);
      }
      config.swarm = { ...config.swarm, inProcessHost: { pid: process.pid, startedAt } };
    });
    const watcher = await DirWatcher.open(opts.team.paths.hosted, { pollMs: opts.pollMs ?? 500 });
    host.serving = host.serve(watcher);
    return host;
  }

  /** Start a teammate running `spec.argv` through `launch`. */
  start(spec: PaneSpec, id: string = `${Date.now()}`): PaneRef {
    const existing = this.teammates.get(spec.name);
    if (existing?.state === 'running') {
      throw new SwarmError('exists', `an in-process teammate named ${spec.name} is already running in this host`);
    }
    const stop = new AbortController();
    const h: Hosted = {
      id,
      name: spec.name,
      stop,
      work: new AbortController(),
      output: [],
      state: 'running',
      startedAt: Date.now(),
      done: Promise.resolve(),
      writes: coalesced(() => this.writeState(h)),
      forgotten: false,
    };
    const ctx: TeammateContext = {
      name: spec.name,
      team: spec.team,
      agentId: agentId(spec.name, spec.team),
      cwd: spec.cwd,
      stopSignal: stop.signal,
      workSignal: () => h.work.signal,
      print: (text) => this.print(h, text),
    };
    this.teammates.set(spec.name, h);
    const argv = [...spec.argv];
    const env = { ...spec.env };
    h.done = Promise.resolve()
      .then(() => runAsTeammate(ctx, () => this.opts.launch(argv, env, ctx)))
      .then(
        (code) => this.exited(h, typeof code === 'number' ? code : 0),
        async (e: unknown) => {
          const line = `${stop.signal.aborted ? 'stopped' : 'error'}: ${e instanceof Error ? e.message : String(e)}`;
          this.print(h, line);
          // An in-process teammate has no stderr of its own: the error that ended it goes to its
          // stderr log instead (best effort: a log that cannot be written changes nothing else).
          if (spec.stderrLog !== undefined) await fs.appendFile(spec.stderrLog, `${line}\n`).catch(() => undefined);
          this.exited(h, stop.signal.aborted ? 130 : 1);
        },
      );
    this.schedule(h);
    return { paneId: 'in-process', backendType: 'in-process', pid: this.pid, name: spec.name };
  }

  isAlive(name: string): boolean {
    return this.teammates.get(name)?.state === 'running';
  }

  capture(name: string, lines: number): PaneOutput {
    const h = this.teammates.get(name);
    if (h === undefined) return { lines: [] };
    return { lines: tailLines(h.output.join('\n'), lines), exit: h.state === 'exited' ? { code: h.exitCode ?? 0 } : undefined };
  }

  /** Abort the teammate's current work (it keeps running); false if there is no such teammate. */
  interrupt(name: string): boolean {
    const h = this.teammates.get(name);
    if (h === undefined || h.state !== 'running') return false;
    h.work.abort(new Error('interrupted'));
    h.work = new AbortController();
    return true;
  }

  /** Stop the teammate and verify its function finished; then forget it and delete its state file. */
  async kill(name: string, timeoutMs = this.opts.killTimeoutMs ?? 5000): Promise<void> {
    const h = this.teammates.get(name);
    if (h !== undefined) {
      h.stop.abort(new Error('killed'));
      h.work.abort(new Error('killed'));
      let timer: NodeJS.Timeout | undefined;
      const finished = await Promise.race([
        h.done.then(() => true),
        new Promise<boolean>((r) => (timer = setTimeout(() => r(false), timeoutMs))),
      ]);
      clearTimeout(timer);
      if (!finished) {
        throw new SwarmError('backend', `in-process teammate ${name} did not stop within ${timeoutMs} ms of its abort signal`);
      }
      h.forgotten = true;
      this.teammates.delete(name);
      await h.writes.idle();
    }
    await fs.rm(this.opts.team.paths.hostedFile(name, 'state'), { force: true });
  }

  /** Stop serving, kill every teammate, and unregister. */
  async close(): Promise<void> {
    if (this.closing.signal.aborted) return;
    this.closing.abort();
    await this.serving;
    const errors: unknown[] = [];
    for (const name of [...this.teammates.keys()]) await this.kill(name).catch((e: unknown) => errors.push(e));
    await updateTeam(this.opts.team, (config) => {
      const current = InProcessHostRegistrationSchema.safeParse(config.swarm?.inProcessHost);
      if (current.success && current.data.pid === process.pid && config.swarm) delete config.swarm.inProcessHost;
    }).catch((e: unknown) => {
      if (!isSwarmError(e, 'not_found')) errors.push(e); // the team was deleted meanwhile: nothing to unregister
    });
    if (errors.length > 0) throw errors[0];
  }

  // ---- internals -------------------------------------------------------------------------------

  private print(h: Hosted, text: string): void {
    h.output.push(...text.replace(/\n$/, '').split('\n'));
    const max = this.opts.outputLines ?? 200;
    if (h.output.length > max) h.output.splice(0, h.output.length - max);
    this.schedule(h);
  }

  private exited(h: Hosted, code: number): void {
    h.state = 'exited';
    h.exitCode = code;
    h.exitedAt = Date.now();
    this.schedule(h);
  }

  /** Write the state file soon; writes never overlap and the last one reflects the last change. */
  private schedule(h: Hosted): void {
    void h.writes.trigger();
  }

  private async writeState(h: Hosted): Promise<void> {
    if (h.forgotten) return;
    const state: HostedState = {
      id: h.id,
      name: h.name,
      state: h.state,
      pid: this.pid,
      startedAt: h.startedAt,
      ...(h.exitedAt !== undefined ? { exitedAt: h.exitedAt, exitCode: h.exitCode ?? 0 } : {}),
      output: [...h.output],
    };
    await writeFileAtomic(this.opts.team.paths.hostedFile(h.name, 'state'), formatJson(state)).catch(() => undefined);
  }

  private async serve(watcher: DirWatcher): Promise<void> {
    try {
      while (!this.closing.signal.aborted) {
        // A request that cannot be handled now (a file vanished, a write failed) is retried on
        // the next change or poll; only closing ends the loop.
        await this.scan().catch(() => undefined);
        await watcher.changed(this.closing.signal).catch(() => undefined);
      }
    } finally {
      await watcher.close();
    }
  }

  private async scan(): Promise<void> {
    const dir = this.opts.team.paths.hosted;
    for (const file of await fs.readdir(dir).catch(() => [] as string[])) {
      const parsed = parseHostedFileName(file);
      if (parsed === undefined || this.inFlight.has(file)) continue;
      if (parsed.kind === 'spawn') await this.handleSpawn(parsed.name);
      if (parsed.kind === 'kill') {
        // Kills wait for the teammate to finish: handled concurrently, each once.
        this.inFlight.add(file);
        void this.handleKill(parsed.name).finally(() => this.inFlight.delete(file));
      }
    }
  }

  private async handleSpawn(name: string): Promise<void> {
    const { team } = this.opts;
    const file = team.paths.hostedFile(name, 'spawn');
    const req = await readRecord(file, HostedSpawnRequestSchema);
    if (req === undefined || req.name !== name) return; // half-written or foreign: the next scan retries
    try {
      this.start({ team: team.name, name, color: req.color, argv: req.argv, env: req.env, cwd: req.cwd, stderrLog: req.stderrLog }, req.id);
      await this.teammates.get(name)?.writes.idle(); // the state file exists before the request goes
    } catch (e) {
      const refusal: HostedSpawnError = { id: req.id, name, message: e instanceof Error ? e.message : String(e) };
      await writeFileAtomic(team.paths.hostedFile(name, 'spawn-error'), formatJson(refusal));
    }
    await fs.rm(file, { force: true });
  }

  private async handleKill(name: string): Promise<void> {
    const file = this.opts.team.paths.hostedFile(name, 'kill');
    const req = await readRecord(file, HostedKillRequestSchema);
    if (req === undefined) return;
    try {
      await this.kill(name);
      await fs.rm(file, { force: true });
    } catch {
      // Not verified: the request stays, so the requester times out and reports it.
    }
  }
}
