// What `swarm doctor --host <h>` asks of a host, over the same shared connection spawns use: ssh
// reaches it (BatchMode: no password prompt, a known host key), its tmux and swarm versions (the
// swarm on its PATH, or the first word of SWARM_TEAMMATE_COMMAND when that is set, as spawns run
// it there), and whether the team root is shared with it (the nonce proof of remote-host.ts).
import { parse } from 'shell-quote';
import { isSwarmError } from '../../protocol/errors.js';
import type { Exec } from '../process.js';
import { SshConnection, parseDestination } from './connection.js';
import { RemoteHost, rootMapOf, SWARM_PACKAGE } from './remote-host.js';

export interface HostCheckOptions {
  host: string;
  root: string;
  remoteRoot?: string | undefined;
  env: Record<string, string | undefined>;
  exec?: Exec;
}

/** Each field: the answer, or `{ error }` with one line (what is wrong; what to do after `; `). */
export interface HostReport {
  host: string;
  /** undefined when ssh did not get there (then nothing else was asked). */
  reach: { error: string } | undefined;
  tmux?: { version: string } | { error: string };
  /**
   * `shown`: `swarm --version`'s line, or where SWARM_TEAMMATE_COMMAND's command is (no version
   * asked of it); `version`: that line, only when it is swarm's own answer.
   */
  swarm?: { command: string; shown: string; version?: string } | { command: string; error: string };
  sharedRoot?: { path: string } | { error: string };
}

/** $1 the teammate command, $2 1 to ask its version. Prints `tmux -V`, where $1 is, its version; `-` for each missing. */
const VERSIONS = [
  'tmux -V 2>/dev/null || echo -',
  'command -v "$1" 2>/dev/null || echo -',
  'if [ "$2" = 1 ] && command -v "$1" >/dev/null 2>&1; then "$1" --version 2>/dev/null | head -n 1; fi',
].join('\n');

export async function checkHost(o: HostCheckOptions): Promise<HostReport> {
  const report: HostReport = { host: o.host, reach: undefined };
  let conn: SshConnection;
  try {
    conn = new SshConnection({ dest: parseDestination(o.host), root: o.root, env: o.env, ...(o.exec ? { exec: o.exec } : {}) });
  } catch (e) {
    return { ...report, reach: { error: e instanceof Error ? e.message : String(e) } };
  }
  const override = o.env.SWARM_TEAMMATE_COMMAND?.trim();
  const first = override ? parse(override).find((w) => typeof w === 'string') : undefined;
  const command = typeof first === 'string' ? first : 'swarm';
  let versions: string[];
  try {
    versions = (await conn.run(VERSIONS, [command, override ? '0' : '1'])).stdout.split('\n');
  } catch (e) {
    if (!isSwarmError(e)) throw e;
    return { ...report, reach: { error: e.message } };
  }
  const tmux = versions[0]?.trim() ?? '-';
  const where = versions[1]?.trim() || '-';
  const answered = versions[2]?.trim() || undefined;
  const shown = answered ?? (override ? `(SWARM_TEAMMATE_COMMAND) at ${where}` : 'version unknown');
  report.tmux = tmux === '-' || tmux === '' ? { error: 'tmux is not installed there; install tmux 3.2 or newer on it' } : { version: tmux };
  report.swarm =
    where === '-'
      ? { command, error: `${command} is not on its PATH; install swarm there (npm install -g ${SWARM_PACKAGE}), or set SWARM_TEAMMATE_COMMAND to what runs it there` }
      : { command, shown, ...(answered !== undefined ? { version: answered } : {}) };
  report.sharedRoot = await Promise.resolve()
    .then(async () => {
      const root = rootMapOf(o.root, o.remoteRoot);
      await new RemoteHost(conn, root).prove();
      return { path: root.remote };
    })
    .catch((e: unknown) => ({ error: e instanceof Error ? e.message : String(e) }));
  return report;
}
