// The in-process pane backend. Its "panes" are teammates running inside the in-process host (the
// leader console). Inside the host's own process it calls the host directly; from any other
// process (`swarm spawn --backend in-process`, `swarm kill`) it talks to the host through the
// request files of protocol/hosted.ts and waits on the host's answers, with deadlines:
//   createPane: write <name>.spawn.json → wait for <name>.state.json with the request's id
//               (or <name>.spawn-error.json); fails at once when no live host is registered;
//   isAlive:    host alive and the state says `running`;
//   probe:      the same for many panes, from one host lookup: `running` = alive, `exited` = dead,
//               no state = gone; no live host registered = unknown (nobody to ask: the recorded
//               pid, the host's, decides);
//   kill:       write <name>.kill.json → wait until the host deleted it and the state file (it does
//               so only after the teammate's function finished); a dead host means nothing runs;
//   capture:    the last lines of the state's output ring buffer.
// Every pane is recorded as paneId `in-process` with the host's pid; PaneRef.name tells them apart.
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import { quote } from 'shell-quote';
import type { Backend, PaneOutput, PaneRef, PaneSpec, PaneState, PlanLine } from '../backend.js';
import { SwarmError } from '../../protocol/errors.js';
import { HostedSpawnErrorSchema, HostedStateSchema, type HostedKillRequest, type HostedSpawnRequest } from '../../protocol/hosted.js';
import { ensureDir, formatJson, writeFileAtomic } from '../../storage/atomic.js';
import { awaitFiles } from '../../storage/await-files.js';
import { isProcessAlive, tailLines } from '../process.js';
import type { InProcessHost } from './host.js';
import { liveHost, noHostError, readRecord } from './files.js';
import type { Team } from '../../team/team.js';

export interface InProcessBackendOptions {
  team: Team;
  /** Set inside the host's own process: calls go straight to it. */
  host?: InProcessHost | undefined;
  /** How long the host may take to start a requested teammate. Default 10000 ms. */
  startTimeoutMs?: number;
  /** How long a kill may take to be confirmed. Default 8000 ms. */
  killTimeoutMs?: number;
}

function memberName(pane: PaneRef): string {
  if (pane.name === undefined) throw new SwarmError('invalid_input', `in-process pane ${pane.paneId} has no member name`);
  return pane.name;
}

export class InProcessBackend implements Backend {
  readonly type = 'in-process' as const;

  constructor(private readonly opts: InProcessBackendOptions) {}

  describe(): string {
    return 'in-process: teammates run inside the leader console (swarm lead), which shows their messages, not their own output (swarm status has their state)';
  }

  howToReach(): string {
    return 'an in-process teammate has no pane to type into; its output shows in swarm status';
  }

  async createPane(spec: PaneSpec): Promise<PaneRef> {
    const { team, host } = this.opts;
    if (host !== undefined) return host.start(spec, randomUUID());
    const reg = await liveHost(team);
    if (reg === undefined) throw noHostError(team.name);
    const request: HostedSpawnRequest = {
      id: randomUUID(),
      name: spec.name,
      color: spec.color,
      argv: spec.argv,
      env: spec.env,
      cwd: spec.cwd,
      ...(spec.stderrLog === undefined ? {} : { stderrLog: spec.stderrLog }),
      requestedAt: Date.now(),
    };
    await ensureDir(team.paths.hosted);
    await fs.rm(team.paths.hostedFile(spec.name, 'spawn-error'), { force: true });
    const requestFile = team.paths.hostedFile(spec.name, 'spawn');
    await writeFileAtomic(requestFile, formatJson(request));
    const answer = await awaitFiles(
      [team.paths.hosted],
      async (): Promise<{ ok: true } | { ok: false; message: string } | undefined> => {
        const state = await readRecord(team.paths.hostedFile(spec.name, 'state'), HostedStateSchema);
        if (state?.id === request.id) return { ok: true };
        const refusal = await readRecord(team.paths.hostedFile(spec.name, 'spawn-error'), HostedSpawnErrorSchema);
        if (refusal?.id === request.id) return { ok: false, message: refusal.message };
        if (!isProcessAlive(reg.pid)) return { ok: false, message: `the in-process host (pid ${reg.pid}) exited` };
        return undefined;
      },
      { timeoutMs: this.opts.startTimeoutMs ?? 10_000 },
    );
    if (answer?.ok === true) return { paneId: 'in-process', backendType: 'in-process', pid: reg.pid, name: spec.name };
    await fs.rm(requestFile, { force: true });
    const why = answer === undefined ? `it did not answer within ${this.opts.startTimeoutMs ?? 10_000} ms` : answer.message;
    throw new SwarmError('backend', `the in-process host (pid ${reg.pid}) did not start ${spec.name}: ${why}`);
  }

  async isAlive(pane: PaneRef): Promise<boolean> {
    const { team, host } = this.opts;
    const name = memberName(pane);
    if (host !== undefined) return host.isAlive(name);
    if ((await liveHost(team)) === undefined) return false;
    return (await readRecord(team.paths.hostedFile(name, 'state'), HostedStateSchema))?.state === 'running';
  }

  async probe(panes: readonly PaneRef[]): Promise<PaneState[]> {
    const { team, host } = this.opts;
    if (host !== undefined) return panes.map((p) => (p.name === undefined ? 'unknown' : host.isAlive(p.name) ? 'alive' : 'gone'));
    if ((await liveHost(team).catch(() => undefined)) === undefined) return panes.map(() => 'unknown');
    return Promise.all(
      panes.map(async (p): Promise<PaneState> => {
        if (p.name === undefined) return 'unknown';
        try {
          const state = await readRecord(team.paths.hostedFile(p.name, 'state'), HostedStateSchema);
          return state === undefined ? 'gone' : state.state === 'running' ? 'alive' : 'dead';
        } catch {
          return 'unknown'; // unreadable state file
        }
      }),
    );
  }

  /** The host runs the argv itself (no process, no env file): one note saying what it gets. */
  plan(spec: PaneSpec): PlanLine[] {
    const env = Object.entries(spec.env).map(([k, v]) => `${k}=${v}`);
    return [{ note: `in-process (inside the console): ${quote(['cd', spec.cwd])} && ${quote(['env', ...env, ...spec.argv])}` }];
  }

  async kill(pane: PaneRef): Promise<void> {
    const { team, host } = this.opts;
    const name = memberName(pane);
    const timeoutMs = this.opts.killTimeoutMs ?? 8000;
    if (host !== undefined) return host.kill(name, timeoutMs);
    const files = (['state', 'kill', 'spawn'] as const).map((k) => team.paths.hostedFile(name, k));
    const reg = await liveHost(team);
    if (reg === undefined) {
      // No host process: nothing it hosted can be running. Clear what it left behind.
      for (const f of files) await fs.rm(f, { force: true });
      return;
    }
    const request: HostedKillRequest = { id: randomUUID(), name, requestedAt: Date.now() };
    await writeFileAtomic(team.paths.hostedFile(name, 'kill'), formatJson(request));
    const done = await awaitFiles(
      [team.paths.hosted],
      async () => {
        if (!isProcessAlive(reg.pid)) return true;
        const left = await Promise.all(files.slice(0, 2).map((f) => fs.access(f).then(() => true, () => false)));
        return left.some(Boolean) ? undefined : true;
      },
      { timeoutMs },
    );
    if (done === undefined) {
      throw new SwarmError('backend', `could not verify kill of in-process teammate ${name}: the host (pid ${reg.pid}) did not confirm within ${timeoutMs} ms`);
    }
    await fs.rm(files[2]!, { force: true });
  }

  async capture(pane: PaneRef, lines: number): Promise<PaneOutput> {
    const { team, host } = this.opts;
    const name = memberName(pane);
    if (host !== undefined) return host.capture(name, lines);
    const state = await readRecord(team.paths.hostedFile(name, 'state'), HostedStateSchema);
    if (state === undefined) return { lines: [] };
    return { lines: tailLines(state.output.join('\n'), lines), exit: state.state === 'exited' ? { code: state.exitCode ?? 0 } : undefined };
  }
}
