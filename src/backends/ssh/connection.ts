// One ssh connection to one host, shared by every command swarm runs there: `ssh` (or the words of
// SWARM_SSH_COMMAND, like git's GIT_SSH_COMMAND, e.g. `ssh -F <config>`) with
//   -o ControlMaster=auto -o ControlPath=<root>/swarm/ssh/<hash> -o ControlPersist=300 -o BatchMode=yes
// so the first command opens a master connection that the next ones (and the next swarm process)
// reuse for five minutes; the user's ssh config and agent apply as for any ssh. ControlPath is a
// unix socket path (about 100 bytes at most): its name is a short hash of the destination, and a
// root too deep for that falls back to the temp dir. BatchMode means a host that wants a password
// or has an unknown key fails at once; `sshFailure` turns ssh's own exit 255 into one line that
// says what to do.
//
// Remote commands are one shell-quoted string (ssh joins its arguments and hands them to the
// remote login shell): `run(script, args)` runs `sh -c <script> sh <args...>`, so values travel
// as positional arguments, never pasted into a script. `exec` is the same as an `Exec` for the
// tmux wrappers (commands.ts) to run the very same tmux commands over there.
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parse, quote } from 'shell-quote';
import { SwarmError } from '../../protocol/errors.js';
import { ensureDir } from '../../storage/atomic.js';
import { sshControlDir } from '../../team/paths.js';
import { type Exec, type ExecResult, execaExec } from '../process.js';

/** `[user@]host[:port]`, as given to --host and in team files. */
export interface SshDestination {
  user: string | undefined;
  host: string;
  port: number | undefined;
  /** As given (what config.json records). */
  text: string;
}

const DEST_RE = /^(?:([A-Za-z0-9._][A-Za-z0-9._-]*)@)?([A-Za-z0-9][A-Za-z0-9._-]*|\[[0-9A-Fa-f:.]+\])(?::(\d{1,5}))?$/;

/** Parse `[user@]host[:port]`; a bad one is a one-line SwarmError saying the form. */
export function parseDestination(text: string): SshDestination {
  const m = DEST_RE.exec(text.trim());
  const port = m?.[3] === undefined ? undefined : Number(m[3]);
  if (!m || (port !== undefined && (port < 1 || port > 65535))) {
    throw new SwarmError('invalid_input', `--host: expected [user@]host[:port] (e.g. alice@build1:2222), got ${JSON.stringify(text)}`);
  }
  return { user: m[1], host: m[2]!.replace(/^\[|\]$/g, ''), port, text: text.trim() };
}

/** The ssh command's words: SWARM_SSH_COMMAND split like a shell would (plain words only), else `ssh`. */
export function sshCommandWords(env: Record<string, string | undefined>): string[] {
  const text = env.SWARM_SSH_COMMAND?.trim();
  if (!text) return ['ssh'];
  const words = parse(text);
  if (words.length === 0 || words.some((w) => typeof w !== 'string')) {
    throw new SwarmError('invalid_input', `SWARM_SSH_COMMAND must be a plain command line (e.g. "ssh -F ~/.ssh/swarm_config"), got ${JSON.stringify(text)}`);
  }
  return words as string[];
}

/** Unix socket paths are limited (108 bytes on Linux, 104 on macOS); ssh adds a temp suffix to it. */
const MAX_CONTROL_PATH = 90;

/** Where the shared connection's socket lives: `<root>/swarm/ssh/<hash>`, else under the temp dir. */
export function controlPathFor(root: string, key: string): string {
  const name = createHash('sha256').update(key).digest('hex').slice(0, 16);
  const inRoot = path.join(sshControlDir(root), name);
  return inRoot.length <= MAX_CONTROL_PATH ? inRoot : path.join(os.tmpdir(), `swarm-ssh-${process.getuid?.() ?? 'u'}`, name);
}

/** ssh's exit code when ssh itself failed (not the remote command). */
const SSH_FAILED = 255;

/** ssh's own failure as one line saying what to do; undefined when it is the remote command's. */
export function sshFailure(dest: string, r: ExecResult): SwarmError | undefined {
  // 127 is also a remote "command not found": only ssh itself not starting (ENOENT) counts here.
  const notStarted = r.exitCode === 127 && /ENOENT/.test(r.stderr);
  if (r.exitCode !== SSH_FAILED && !notStarted) return undefined;
  const said = r.stderr.trim().split('\n').filter((l) => l.trim() !== '').pop() ?? `exit code ${r.exitCode}`;
  if (notStarted) return new SwarmError('backend', `ssh could not be run (${said}); install the OpenSSH client or fix SWARM_SSH_COMMAND`);
  if (/host key verification failed|no .* host key is known|REMOTE HOST IDENTIFICATION HAS CHANGED/i.test(r.stderr)) {
    return new SwarmError('backend', `ssh ${dest}: its host key is not known here (${said}); run \`ssh ${dest}\` once to check and accept it, then spawn again`);
  }
  if (/permission denied|too many authentication failures/i.test(r.stderr)) {
    return new SwarmError('backend', `ssh ${dest}: login needs a password or a key ssh does not have (${said}); swarm never types passwords (BatchMode): set up key login (ssh-copy-id ${dest}) or add the key to ssh-agent`);
  }
  return new SwarmError('backend', `ssh ${dest} failed: ${said}; check that \`ssh ${dest} true\` works from here`);
}

export interface SshConnectionOptions {
  dest: SshDestination;
  /** The (local) team root: the shared connection's socket goes under its `swarm/`. */
  root: string;
  env: Record<string, string | undefined>;
  exec?: Exec;
  /** How long an idle shared connection stays open, seconds. Default 300. */
  persistSeconds?: number;
}

export class SshConnection {
  readonly dest: SshDestination;
  readonly controlPath: string;
  private readonly words: string[];
  private readonly localExec: Exec;
  private readonly persist: number;

  constructor(o: SshConnectionOptions) {
    this.dest = o.dest;
    this.words = sshCommandWords(o.env);
    this.localExec = o.exec ?? execaExec;
    this.persist = o.persistSeconds ?? 300;
    this.controlPath = controlPathFor(o.root, `${this.words.join(' ')}\u0000${o.dest.text}`);
  }

  /** `ssh [-l user] [-p port] host`: what a person types (with SWARM_SSH_COMMAND's words). */
  personArgv(extra: readonly string[] = []): string[] {
    return [...this.words, ...extra, ...this.destArgs()];
  }

  /** The full ssh argv (executable first) running `remote` (one shell command string) over the shared connection. */
  argv(remote: string): string[] {
    const opts = [
      '-o', 'ControlMaster=auto',
      '-o', `ControlPath=${this.controlPath}`,
      '-o', `ControlPersist=${this.persist}`,
      '-o', 'BatchMode=yes',
    ];
    return [...this.words, ...opts, ...this.destArgs(), '--', remote];
  }

  /** Run `sh -c script sh args...` on the host; ssh's own failure throws its one-line SwarmError. */
  async run(script: string, args: readonly string[] = [], input?: string): Promise<ExecResult> {
    return this.runRemote(quote(['sh', '-c', script, 'sh', ...args]), input);
  }

  /** An `Exec` that runs `file args` on the host (for the tmux wrappers). */
  readonly exec: Exec = (file, args, opts = {}) => this.runRemote(quote([file, ...args]), opts.input);

  private async runRemote(remote: string, input?: string): Promise<ExecResult> {
    await this.ensureSocketDir();
    const [file, ...args] = this.argv(remote);
    const r = await this.localExec(file!, args, input === undefined ? {} : { input });
    const failed = sshFailure(this.dest.text, r);
    if (failed !== undefined) throw failed;
    return r;
  }

  private socketDir: Promise<void> | undefined;
  private ensureSocketDir(): Promise<void> {
    this.socketDir ??= ensureDir(path.dirname(this.controlPath));
    return this.socketDir;
  }

  private destArgs(): string[] {
    return [...(this.dest.port === undefined ? [] : ['-p', String(this.dest.port)]), ...(this.dest.user === undefined ? [] : ['-l', this.dest.user]), this.dest.host];
  }
}
