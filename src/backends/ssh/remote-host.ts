// What running a teammate's pane on another host needs besides tmux, all over its one connection
// (connection.ts):
// - `prove`: once per host, before its first pane: tmux is there, and the team root is shared.
//   swarm writes a nonce file under the root here and reads it over ssh at the same path (mapped by
//   SWARM_REMOTE_ROOT when the host mounts the root elsewhere), and the host writes one back that is
//   read here. A root that is not shared fails with the remedy (mount it, or set SWARM_REMOTE_ROOT).
// - `paneArgv`: the pane's private files made THERE, in one call that also checks the cwd exists
//   there and the command is on its PATH: the environment goes over the connection's stdin into a
//   0600 file in a 0700 mktemp dir (`umask 077; cat > file`), never onto a command line; the
//   stderr tee gets its private dir. Then the same wrappers as a local pane (env-file.ts,
//   stderr-log.ts). The spec it gets has every path under the root mapped already (mapSpec).
// - `terminate`: the verified TERM → KILL of a pid over there (zombies count as gone);
// - `descendants`: what a pid started over there (`ps` on the host), ended with it by a kill.
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { SwarmError } from '../../protocol/errors.js';
import { ensureDir, writeFileAtomic } from '../../storage/atomic.js';
import { swarmDir } from '../../team/paths.js';
import type { PaneSpec } from '../backend.js';
import { envFileText, envLoaderArgv } from '../env-file.js';
import { descendantsOf, type TerminateOptions } from '../process.js';
import { stderrTeeArgv } from '../stderr-log.js';
import type { PaneHost } from '../tmux/tmux-backend.js';
import type { SshConnection } from './connection.js';

/** The team root here and where the host sees it (the same path unless SWARM_REMOTE_ROOT says otherwise). */
export interface RootMap {
  local: string;
  remote: string;
}

/**
 * The root map of a host: the team root here, and SWARM_REMOTE_ROOT (unset: the same path there).
 * The remote root must be absolute (a relative one would name a different directory for every cwd
 * over there); trailing slashes are dropped, so `/mnt/r/` maps like `/mnt/r`.
 */
export function rootMapOf(local: string, remote: string | undefined): RootMap {
  if (!remote) return { local, remote: local };
  if (!path.posix.isAbsolute(remote)) {
    throw new SwarmError('invalid_input', `SWARM_REMOTE_ROOT=${JSON.stringify(remote)} is not an absolute path; set it to where the hosts mount the team root (e.g. /mnt/claude)`);
  }
  return { local, remote: remote.replace(/(?<=.)\/+$/, '') };
}

/** A path (or any string naming one) under the local root, as the host sees it; others unchanged. */
export function mapPath(map: RootMap, value: string): string {
  if (map.local === map.remote) return value;
  if (value === map.local) return map.remote;
  return value.startsWith(`${map.local}/`) ? map.remote + value.slice(map.local.length) : value;
}

/** The spec as the host sees it: every path under the root mapped (argv, env values, cwd, stderr log). */
export function mapSpec(map: RootMap, spec: PaneSpec): PaneSpec {
  const m = (v: string): string => mapPath(map, v);
  return {
    ...spec,
    argv: spec.argv.map(m),
    env: Object.fromEntries(Object.entries(spec.env).map(([k, v]) => [k, m(v)])),
    cwd: m(spec.cwd),
    stderrLog: spec.stderrLog === undefined ? undefined : m(spec.stderrLog),
  };
}

/** The package a host needs for `swarm` (docs/remote.md). */
export const SWARM_PACKAGE = 'swarm-launcher';

const PANE_FILES = [
  'cwd=$1; cmd=$2; log=$3; withenv=$4',
  '[ -d "$cwd" ] || exit 3',
  'command -v "$cmd" >/dev/null 2>&1 || exit 4',
  'umask 077',
  'd=; if [ "$withenv" = 1 ]; then d=$(mktemp -d "${TMPDIR:-/tmp}/swarm-env-XXXXXX") && cat > "$d/env" || exit 5; fi',
  'e=; if [ -n "$log" ]; then e=$(mktemp -d "${TMPDIR:-/tmp}/swarm-err-XXXXXX") || exit 5; fi',
  'printf "%s\\n%s\\n" "$d" "$e"',
].join('\n');

/** $1 pid, $2..$4 the wait / TERM / KILL deadlines in 50 ms steps. Exit 0 once the pid is gone. */
const TERMINATE = [
  'p=$1',
  'alive() { kill -0 "$p" 2>/dev/null || return 1; case $(cat "/proc/$p/stat" 2>/dev/null) in *") Z "*) return 1;; esac; return 0; }',
  'gone_within() { n=0; while alive; do [ "$n" -ge "$1" ] && return 1; sleep 0.05; n=$((n+1)); done; return 0; }',
  'gone_within "$2" && exit 0',
  'kill -TERM "$p" 2>/dev/null; gone_within "$3" && exit 0',
  'kill -KILL "$p" 2>/dev/null; gone_within "$4" && exit 0',
  'exit 1',
].join('\n');

/** $1 the nonce file written here, $2 the file to write there, $3 its nonce. */
const PROVE = [
  'command -v tmux >/dev/null 2>&1 || exit 4',
  'cat -- "$1" 2>/dev/null || exit 6',
  'umask 077; printf "%s" "$3" > "$2" || exit 7',
].join('\n');

export class RemoteHost implements PaneHost {
  private proven: Promise<void> | undefined;

  constructor(
    readonly conn: SshConnection,
    readonly root: RootMap,
  ) {}

  private get name(): string {
    return this.conn.dest.text;
  }

  /** Once per host (a failure is retried next time): tmux there, and the root shared both ways. */
  prove(): Promise<void> {
    if (this.proven === undefined) {
      this.proven = this.proveNow();
      void this.proven.catch(() => {
        this.proven = undefined;
      });
    }
    return this.proven;
  }

  private async proveNow(): Promise<void> {
    const dir = swarmDir(this.root.local);
    await ensureDir(dir);
    const id = randomBytes(8).toString('hex');
    const here = path.join(dir, `ssh-proof-${id}`);
    const there = path.join(dir, `ssh-proof-${id}.back`);
    const nonce = randomBytes(16).toString('hex');
    const back = randomBytes(16).toString('hex');
    await writeFileAtomic(here, nonce);
    try {
      const r = await this.conn.run(PROVE, [mapPath(this.root, here), mapPath(this.root, there), back]);
      if (r.exitCode === 4) throw new SwarmError('backend', `tmux is not installed on ${this.name} (command -v tmux failed there); install tmux 3.2 or newer on it`);
      if (r.exitCode !== 0 || r.stdout.trim() !== nonce) throw this.notShared(`${mapPath(this.root, here)} there does not hold the file swarm just wrote here`);
      const seen = await readFile(there, 'utf8').catch(() => undefined);
      if (seen !== back) throw this.notShared(`the file ${this.name} wrote at ${mapPath(this.root, there)} is not seen here at ${there}`);
    } finally {
      await rm(here, { force: true });
      await rm(there, { force: true });
    }
  }

  private notShared(why: string): SwarmError {
    const at = this.root.remote === this.root.local ? `at the same path ${this.root.local}` : `at SWARM_REMOTE_ROOT=${this.root.remote}`;
    return new SwarmError(
      'backend',
      `the team root ${this.root.local} is not shared with ${this.name} ${at} (${why}); mount it there (NFS or sshfs), or set SWARM_REMOTE_ROOT to where ${this.name} mounts it`,
    );
  }

  /** `spec` is already as the host sees it (mapSpec). */
  async paneArgv(spec: PaneSpec): Promise<string[]> {
    const { argv, env, cwd } = spec;
    const withEnv = Object.keys(env).length > 0;
    const r = await this.conn.run(PANE_FILES, [cwd, argv[0] ?? '', spec.stderrLog ?? '', withEnv ? '1' : '0'], withEnv ? envFileText(env) : '');
    if (r.exitCode === 3) throw new SwarmError('invalid_input', `the working directory ${cwd} does not exist on ${this.name}; create it there, or pass --cwd a directory that exists there`);
    if (r.exitCode === 4) {
      throw new SwarmError(
        'not_found',
        `${argv[0] ?? ''} is not on ${this.name}'s PATH (command -v failed there): install swarm on ${this.name} (npm install -g ${SWARM_PACKAGE}), or set SWARM_TEAMMATE_COMMAND to the command that runs it there`,
      );
    }
    if (r.exitCode !== 0) throw new SwarmError('backend', `could not write the pane's private files on ${this.name}: ${(r.stderr || r.stdout).trim() || `exit code ${r.exitCode}`}`);
    const [envDir = '', errDir = ''] = r.stdout.split('\n');
    const loaded = withEnv ? envLoaderArgv(env, `${envDir}/env`, argv) : argv;
    return spec.stderrLog === undefined ? loaded : stderrTeeArgv(errDir, spec.stderrLog, loaded);
  }

  /** What `pid` started on the host: `ps` there, through the connection. */
  descendants(pid: number): Promise<number[]> {
    return descendantsOf(pid, this.conn.exec);
  }

  async terminate(pid: number, opts: TerminateOptions): Promise<boolean> {
    const steps = (ms: number | undefined, dflt: number): string => String(Math.ceil((ms ?? dflt) / 50));
    const r = await this.conn.run(TERMINATE, [String(pid), steps(opts.waitMs, 500), steps(opts.termMs, 2000), steps(opts.killMs, 2000)]);
    return r.exitCode === 0;
  }
}
