// Permission test harness: a team with members w1 and w2 and its lead key, a real worker child
// process (test/support/perm-worker.mjs over the built dist/), and readers for the files a test checks.
import { execa, type ResultPromise } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureLeadKey, type LeadKey } from '../../src/permissions/keys.js';
import { readAudit } from '../../src/permissions/audit.js';
import type { RequestPermissionOptions } from '../../src/permissions/worker.js';
import { parseControl } from '../../src/protocol/control.js';
import type { InboxMessage } from '../../src/protocol/message.js';
import type { AuditEvent } from '../../src/protocol/permission.js';
import { addMember, createTeam, teamPaths, type TeamPaths } from '../../src/team/index.js';
import { waitFor } from './wait.js';
import { Team } from '../../src/team/team.js';

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'perm-worker.mjs');
export const TEAM = 't';
export const CWD = '/work/project';

export interface Harness {
  root: string;
  paths: TeamPaths;
  key: LeadKey;
  /** Options for a worker w1 asking to run `npm test`. */
  base: Omit<RequestPermissionOptions, 'signal' | 'onEvent'>;
}

export async function setupTeam(root: string): Promise<Harness> {
  await createTeam(root, { name: TEAM, cwd: CWD });
  await addMember(new Team(root, TEAM), { name: 'w1', cwd: CWD });
  await addMember(new Team(root, TEAM), { name: 'w2', cwd: CWD });
  const key = await ensureLeadKey(new Team(root, TEAM));
  const base = {
    team: new Team(root, TEAM),
    workerName: 'w1',
    workerColor: 'blue',
    toolName: 'Bash',
    toolUseId: 'toolu_01',
    input: { command: 'npm test' },
    description: 'Run the tests',
    cwd: CWD,
    verifyKey: key.verifyKey,
    pollMs: 200,
  };
  return { root, paths: teamPaths(root, TEAM), key, base };
}

export type WorkerLine = { event?: Record<string, unknown> & { kind: string }; result?: Record<string, unknown>; error?: string };

export interface WorkerProc {
  lines: WorkerLine[];
  /** The first event of `kind` (the n-th with `nth`), waiting for it. */
  event(kind: string, nth?: number, ms?: number): Promise<Record<string, unknown>>;
  /** Resolves with the final line (result or error) once the process exits. */
  done(): Promise<WorkerLine>;
  child: ResultPromise;
}

const live = new Set<ResultPromise>();

export function startWorker(opts: Record<string, unknown>): WorkerProc {
  const child = execa(process.execPath, [WORKER, JSON.stringify(opts)], { reject: false, stdin: 'ignore' });
  live.add(child);
  const lines: WorkerLine[] = [];
  let buf = '';
  child.stdout?.on('data', (d: Buffer) => {
    buf += d.toString();
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      lines.push(JSON.parse(buf.slice(0, i)) as WorkerLine);
      buf = buf.slice(i + 1);
    }
  });
  const finished = child.then((r) => {
    live.delete(child);
    return r;
  });
  return {
    lines,
    child,
    event: (kind, nth = 1, ms = 10_000) =>
      waitFor(() => lines.filter((l) => l.event?.kind === kind)[nth - 1]?.event, ms, `worker event ${kind} #${nth} (lines: ${JSON.stringify(lines)})`),
    done: async () => {
      const r = await finished;
      const last = lines.find((l) => l.result !== undefined || l.error !== undefined);
      if (!last) throw new Error(`worker ended without a result: exit ${r.exitCode}, stderr ${String(r.stderr)}`);
      return last;
    },
  };
}

/** Stop every worker child still running (afterEach). */
export async function reapWorkers(): Promise<void> {
  const kids = [...live];
  for (const k of kids) k.kill('SIGKILL');
  await Promise.all(kids.map((k) => k.catch(() => undefined)));
  live.clear();
}

export async function inboxOnDisk(p: TeamPaths, name: string): Promise<InboxMessage[]> {
  try {
    return JSON.parse(await fs.readFile(p.inbox(name), 'utf8')) as InboxMessage[];
  } catch {
    return [];
  }
}

/** The `permission_response` entries in `name`'s inbox for request `id`. */
export async function responseFrames(p: TeamPaths, name: string, id: string): Promise<InboxMessage[]> {
  return (await inboxOnDisk(p, name)).filter((m) => {
    const c = parseControl(m.text);
    return c.kind === 'control' && c.message.type === 'permission_response' && c.message.request_id === id;
  });
}

export async function auditFor(p: TeamPaths, id: string): Promise<AuditEvent[]> {
  return (await readAudit(p)).filter((e) => e.id === id);
}

export async function ls(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir)).sort();
  } catch {
    return [];
  }
}
