// The ssh backend: teammates on other machines (issue 19). Each host runs the team's tmux session
// `swarm-<team>` (on its SWARM_TMUX_SOCKET server when set) and the teammate is the command of a
// pane there, made by the very same tmux commands as the local tmux backend: a TmuxBackend whose
// tmux runs over the host's one shared ssh connection (connection.ts) and whose pane files and
// kills happen there (remote-host.ts). The team root is shared with every host (NFS, sshfs),
// proven before the first pane on a host.
//
// A pane's PaneRef carries its `host` (config.json `host`), so one backend answers for panes on any
// number of hosts: probe/isAlive/kill/capture go to each pane's own host, never to a local pid
// (`remoteProcesses`). New panes go to the host given to the constructor.
import { execa } from 'execa';
import { quote } from 'shell-quote';
import { SwarmError } from '../../protocol/errors.js';
import type { Backend, PaneOutput, PaneRef, PaneSpec, PaneState, PlanLine } from '../backend.js';
import type { Exec } from '../process.js';
import { TmuxBackend } from '../tmux/tmux-backend.js';
import { SshConnection, parseDestination } from './connection.js';
import { RemoteHost, type RootMap, mapSpec, rootMapOf } from './remote-host.js';

export interface SshBackendOptions {
  /** Where new panes go (`[user@]host[:port]`); unset: this backend only manages recorded panes. */
  host?: string | undefined;
  /** The team root here, and SWARM_REMOTE_ROOT (where the hosts mount it) when it differs. */
  root: string;
  remoteRoot?: string | undefined;
  /** `swarm-<team>`. */
  sessionName: string;
  /** SWARM_TMUX_SOCKET: the private tmux server on the hosts. */
  socket?: string | undefined;
  /** SWARM_SSH_COMMAND is read from here. */
  env: Record<string, string | undefined>;
  exec?: Exec;
  killTimeoutMs?: number;
}

interface HostPanes {
  remote: RemoteHost;
  tmux: TmuxBackend;
}

export class SshBackend implements Backend {
  readonly type = 'ssh' as const;
  readonly remoteProcesses = true;
  readonly teammateExecutable = ['swarm'] as const;
  private readonly hosts = new Map<string, HostPanes>();
  private readonly rootMap: RootMap;

  constructor(private readonly opts: SshBackendOptions) {
    this.rootMap = rootMapOf(opts.root, opts.remoteRoot);
    if (opts.host !== undefined) parseDestination(opts.host); // a bad --host fails before anything runs
  }

  describe(): string {
    return this.opts.host === undefined ? 'ssh: teammates on other machines' : this.reachLine(this.opts.host);
  }

  howToReach(pane: PaneRef): string {
    return pane.host === undefined ? `${pane.paneId} (no host recorded)` : this.reachLine(pane.host);
  }

  /**
   * Take this terminal to the pane on its machine: `ssh -t <host> tmux attach -t <pane>` (its window
   * becomes current), the person's own ssh (no BatchMode: a prompt can be answered here); resolves
   * when they detach.
   */
  async attach(pane: PaneRef): Promise<void> {
    if (pane.host === undefined) throw new SwarmError('backend', `ssh pane ${pane.paneId} has no host recorded: there is nowhere to attach`);
    const [ssh, ...args] = this.attachArgv(pane.host, pane.paneId);
    await execa(ssh!, args, { stdio: 'inherit', reject: false });
  }

  async createPane(spec: PaneSpec): Promise<PaneRef> {
    const host = this.opts.host;
    if (host === undefined) throw new SwarmError('invalid_input', '--backend ssh needs --host [user@]host[:port] (or host:/hosts: in the team file)');
    const h = this.on(host);
    await h.remote.prove();
    const pane = await h.tmux.createPane(mapSpec(this.rootMap, spec));
    return { ...pane, backendType: 'ssh', host };
  }

  async isAlive(pane: PaneRef): Promise<boolean> {
    return (await this.probe([pane]))[0] === 'alive';
  }

  async probe(panes: readonly PaneRef[]): Promise<PaneState[]> {
    const byHost = new Map<string, number[]>();
    panes.forEach((p, i) => {
      if (p.host !== undefined) byHost.set(p.host, [...(byHost.get(p.host) ?? []), i]);
    });
    const states: PaneState[] = panes.map(() => 'unknown');
    await Promise.all(
      [...byHost].map(async ([host, idx]) => {
        const answers = await this.on(host)
          .tmux.probe(idx.map((i) => asTmux(panes[i]!)))
          .catch(() => idx.map((): PaneState => 'unknown'));
        idx.forEach((i, j) => (states[i] = answers[j] ?? 'unknown'));
      }),
    );
    return states;
  }

  async kill(pane: PaneRef): Promise<void> {
    await this.hostOf(pane).tmux.kill(asTmux(pane));
  }

  async capture(pane: PaneRef, lines: number): Promise<PaneOutput> {
    return this.hostOf(pane).tmux.capture(asTmux(pane), lines);
  }

  /** The tmux plan, each command run over ssh; the shared-root proof first, once. */
  plan(spec: PaneSpec): PlanLine[] {
    const host = this.opts.host ?? '<host>';
    const conn = this.connection(host);
    const proof: PlanLine = { note: `before the first pane on ${host}: check tmux there and that the team root ${this.rootMap.local} is shared (a nonce file each way)`, once: true };
    const files: PlanLine = { note: `the private env file is written on ${host} over the connection's stdin (umask 077; cat > file)` };
    const inner = new TmuxBackend({ socket: this.opts.socket, sessionName: this.opts.sessionName }).plan(mapSpec(this.rootMap, spec));
    return [proof, files, ...inner.map((l): PlanLine => ('run' in l ? { ...l, run: conn.argv(quote(l.run)) } : l))];
  }

  // ---- internals -------------------------------------------------------------------------------

  private reachLine(host: string): string {
    return quote(this.attachArgv(host, this.opts.sessionName));
  }

  /** `ssh … -t <host> tmux [-L sock] attach -t <target>`: the person's own ssh (no BatchMode). */
  private attachArgv(host: string, target: string): string[] {
    const socket = this.opts.socket === undefined ? [] : ['-L', this.opts.socket];
    return [...this.connection(host).personArgv(['-t']), 'tmux', ...socket, 'attach', '-t', target];
  }

  private hostOf(pane: PaneRef): HostPanes {
    if (pane.host === undefined) throw new SwarmError('backend', `ssh pane ${pane.paneId} has no host recorded; stop its process on its machine by hand`);
    return this.on(pane.host);
  }

  private connection(host: string): SshConnection {
    return new SshConnection({ dest: parseDestination(host), root: this.rootMap.local, env: this.opts.env, ...(this.opts.exec ? { exec: this.opts.exec } : {}) });
  }

  private on(host: string): HostPanes {
    let h = this.hosts.get(host);
    if (h === undefined) {
      const conn = this.connection(host);
      const remote = new RemoteHost(conn, this.rootMap);
      const tmux = new TmuxBackend({
        socket: this.opts.socket,
        sessionName: this.opts.sessionName,
        exec: conn.exec,
        host: remote,
        ...(this.opts.killTimeoutMs !== undefined ? { killTimeoutMs: this.opts.killTimeoutMs } : {}),
      });
      h = { remote, tmux };
      this.hosts.set(host, h);
    }
    return h;
  }
}

/** The same pane as the inner tmux backend knows it. */
function asTmux(pane: PaneRef): PaneRef {
  return { ...pane, backendType: 'tmux' };
}
