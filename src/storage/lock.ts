// Inter-process locks on shared files, with proper-lockfile, plus a first-come-first-served line.
//
// Layout: the lock for `<file>` is the directory `<file>.lock` (the same lock Claude Code takes, so
// both tools exclude each other). The file itself need not exist (realpath: false). While held, the
// lock dir's mtime is refreshed every `updateMs`; a lock whose mtime is older than `staleMs` belongs
// to a dead holder and is taken over. A lock path that is not a directory (a plain file, a symlink,
// a FIFO) can never be taken by anybody: that is SwarmError('io') at once, naming the path and the
// fix, never a wait for the budget.
//
// Waiting line: a swarm process that finds the lock busy drops a ticket file
// `<file>.lock.queue/<monotonic ns>-<pid>-<random>` and, until it gets the lock, only the first two
// tickets try the lock: each sleeps until the holder's lock directory goes or is touched (inotify on
// that directory alone, dir-wakeup.ts) and tries again, at least every HEAD_WAIT_MS. The others sleep
// until the ticket POLLERS places ahead of them leaves the line (inotify on that one file), which is
// when they move up to try the lock, and look again at least every LINE_WAIT_MS. Where inotify is
// unavailable, the first two poll every 1-3 ms and the others sleep in proportion to their place. A
// process only takes the lock without a ticket when nobody is queued. This keeps the wait fair (no
// writer starves behind luckier pollers, so the tail latency stays close to "everyone ahead of me
// once") and keeps a hundred waiters from burning the CPU the holder needs: each wakes about once
// per hand-over that concerns it, not hundreds of times a second. Tickets of dead
// processes are removed by whoever sees them at the head of the line; a head that is alive but
// stopped (Ctrl-Z) keeps its ticket, and the waiters behind it that see it leave the lock free for
// IDLE_LINE_MS try the lock too. Claude Code's writers ignore the line and simply compete for the
// lock, which stays correct.
//
// Group commit (withFileLock with `stopWaiting`, the inbox spool's senders): no ticket. Such a
// waiter takes the lock only when it is free and nobody is queued (or the line has let it lie free
// for IDLE_LINE_MS: its head died or stopped while waiting), and otherwise sleeps until the
// holder's lock directory goes, or the file it named in `stopWaiting.watch` changes (dir-wakeup.ts:
// inotify on those two paths only, so a busy directory does not wake the crowd on every change),
// and looks again, until `stopWaiting.done()` says a holder did its work. A holder may do several
// rounds of work before it releases (json-file.ts `again`): the watched file tells each waiter the
// moment its own part is done, without waiting for the release.
//
// Budget: a waiter gives up only after `budgetMs` *without progress* (the lock not changing hands);
// while the lock keeps moving it is queued behind live writers, not stuck. Then the caller gets
// SwarmError('lock_timeout') — never Claude Code's 10 x 5-100 ms, which drops work under contention.
// The budget is larger than `staleMs`, so waiters outlast a dead holder's lock.
//
// Fencing (a holder that stalls: Ctrl-Z, SIGSTOP, swap, a VM pause, a slow fsync): a lock untouched
// for `staleMs` is taken over by a waiter even though its holder is alive, and the holder does not
// know until it runs again. So the holder never trusts that it still holds the lock: `fn` gets a
// `HeldLock` whose `assertHeld()` checks, right before a write, that the lock directory is still the
// one it created (inode + birth time) and was not reported compromised; a caller that writes under
// the lock calls it and, on SwarmError('lock_lost'), discards its work and retries the whole cycle
// (json-file.ts does). Releasing is guarded the same way: a lock that is no longer ours is never
// removed, so a stalled holder cannot unlock the writer that took over.
import lockfile from 'proper-lockfile';
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs';
import { mkdir, readdir, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { errnoCode, SwarmError } from '../protocol/errors.js';
import { DIR_MODE, ensureDir, FILE_MODE } from './atomic.js';
import { DirWakeup } from './dir-wakeup.js';
import { describeEntry } from './regular-file.js';
import { isProcessAlive } from './pid.js';

export interface LockOptions {
  /** Time without progress after which a waiter gives up, ms. */
  budgetMs?: number;
  /** Age after which a lock is considered abandoned, ms (proper-lockfile clamps to >= 2000). */
  staleMs?: number;
  /** How often the holder refreshes the lock's mtime, ms (must be < staleMs / 2). */
  updateMs?: number;
  /** Longest sleep of a waiter far back in the line, ms. */
  maxDelayMs?: number;
}

/** Age after which a lock dir is abandoned (its holder refreshes it every second): a waiter takes it over, doctor reports it. */
export const STALE_LOCK_MS = 10_000;

export const DEFAULT_LOCK_OPTIONS: Required<LockOptions> = {
  budgetMs: 20_000,
  staleMs: STALE_LOCK_MS,
  updateMs: 1_000,
  maxDelayMs: 100,
};

/** Places at the head of the line that poll the lock itself. */
const POLLERS = 2;
/** Sleep per place in line beyond the pollers without inotify, ms (about one short critical section). */
const PER_PLACE_MS = 3;
/** Longest sleep of a waiter at the head that watches the lock directory: a stale lock is taken over this soon. */
const HEAD_WAIT_MS = 25;
/** Longest sleep of a waiter behind the pollers that watches the ticket ahead: how soon it sees a line that stopped moving. */
const LINE_WAIT_MS = 100;
/**
 * How long a waiter not at the head of the line (a group-commit waiter, or a ticket behind the
 * pollers) lets a free lock lie for the head before it tries the lock itself: the pollers look every
 * 1-3 ms, so a line this quiet has a head that died or stopped while waiting. Without this, a ticket
 * left by a waiter killed in line kept every group commit on that file waiting until its budget ran
 * out, and two stopped pollers failed everybody behind them with lock_timeout.
 */
const IDLE_LINE_MS = 100;

export function lockPathFor(file: string): string {
  return `${file}.lock`;
}

export function queueDirFor(file: string): string {
  return `${file}.lock.queue`;
}

/** What a critical section gets: a check, cheap enough to run before every write, that the lock is still ours. */
export interface HeldLock {
  /** Throws SwarmError('lock_lost') when the lock was taken over (its holder stalled past staleMs). */
  assertHeld(): void;
}

/** What `withFileLock` returns when `stopWaiting` said the lock is no longer needed. */
export const STOPPED_WAITING: unique symbol = Symbol('stopped waiting for the lock');

/** When a group-commit waiter may give up waiting for the lock: a holder did its work. */
export interface StopWaiting {
  /** True once the work is done (asked before every look at the lock and after every wake). */
  done(): boolean;
  /** A path whose change or removal may mean done: watched, so the waiter wakes at once. */
  watch?: string;
}

/**
 * Run `fn` while holding the lock on `file`. Throws SwarmError('lock_timeout') if it cannot get it,
 * SwarmError('lock_lost') from `held.assertHeld()` once it is no longer ours. With `stopWaiting`,
 * a waiter that sees it return true gives up its place and gets STOPPED_WAITING (group commit: the
 * holder already did its work).
 */
export async function withFileLock<R>(file: string, fn: (held: HeldLock) => Promise<R>, options?: LockOptions): Promise<R>;
export async function withFileLock<R>(
  file: string,
  fn: (held: HeldLock) => Promise<R>,
  options: LockOptions,
  stopWaiting: StopWaiting,
): Promise<R | typeof STOPPED_WAITING>;
export async function withFileLock<R>(
  file: string,
  fn: (held: HeldLock) => Promise<R>,
  options: LockOptions = {},
  stopWaiting?: StopWaiting,
): Promise<R | typeof STOPPED_WAITING> {
  const opts = { ...DEFAULT_LOCK_OPTIONS, ...options };
  const guard = new LockGuard(file);
  const release = stopWaiting ? await acquireUnlessDone(file, opts, guard, stopWaiting) : await acquire(file, opts, guard);
  if (release === STOPPED_WAITING) return STOPPED_WAITING;
  guard.arm();
  let result: R;
  try {
    result = await fn(guard);
  } finally {
    await release().catch(() => undefined); // a compromised lock may already be gone
    guard.disarm();
  }
  if (guard.compromised) {
    throw new SwarmError('lock_compromised', `lock on ${file} was lost while held (${guard.compromised.message}); check the result`, {
      cause: guard.compromised,
    });
  }
  return result;
}

/** Identity of a lock directory (inode + birth time): changes whenever the lock changes hands. */
function identityOf(st: nodeFs.Stats): string {
  return `${st.ino}:${st.birthtimeMs}`; // not ctime: the holder's mtime refresh changes it
}

/** Lock directories this process holds, with their identity: what the guarded rmdir compares. */
const heldHere = new Map<string, string>();

type Callback<T = void> = (err: NodeJS.ErrnoException | null, value?: T) => void;

/** Run a synchronous fs call and report it the callback way, on the next tick. */
function syncToCallback<T>(call: () => T, cb: Callback<T>): void {
  let value: T;
  try {
    value = call();
  } catch (e) {
    process.nextTick(cb, e as NodeJS.ErrnoException);
    return;
  }
  process.nextTick(cb, null, value);
}

/**
 * The `fs` proper-lockfile gets, one per process (it caches the file system's mtime precision on
 * it, so a fresh object per lock would probe with an extra utimes + stat every time). Its calls are
 * synchronous (a lock op is one metadata syscall: a thread-pool round trip costs more under load).
 * Its mkdir makes the lock 0700 (proper-lockfile would use the umask's 0755, or 0777 under umask
 * 0), and its rmdir never removes a lock this process held that has since changed hands.
 */
const lockFs: typeof nodeFs = {
  ...nodeFs,
  mkdir: ((p: nodeFs.PathLike, cb: Callback) => syncToCallback(() => void nodeFs.mkdirSync(p, { mode: DIR_MODE }), cb)) as typeof nodeFs.mkdir,
  stat: ((p: nodeFs.PathLike, cb: Callback<nodeFs.Stats>) => syncToCallback(() => nodeFs.statSync(p), cb)) as typeof nodeFs.stat,
  utimes: ((p: nodeFs.PathLike, a: Date, m: Date, cb: Callback) => syncToCallback(() => nodeFs.utimesSync(p, a, m), cb)) as typeof nodeFs.utimes,
  rmdir: ((p: nodeFs.PathLike, cb: Callback) =>
    syncToCallback(() => {
      const mine = heldHere.get(String(p));
      if (mine !== undefined && identityOf(nodeFs.statSync(p)) !== mine) return; // someone else's now: leave it to them
      nodeFs.rmdirSync(p); // ours, or a stale lock being taken over
    }, cb)) as typeof nodeFs.rmdir,
};

/** One holding of one lock: remembers the directory it created and answers `assertHeld`. */
class LockGuard implements HeldLock {
  compromised: Error | undefined;
  private identity: string | undefined;

  constructor(private readonly file: string) {}

  /** Called once the lock is ours: from here on its directory is the one to keep and to release. */
  arm(): void {
    this.identity = this.current();
    if (this.identity !== undefined) heldHere.set(lockPathFor(this.file), this.identity);
  }

  /** Called once the holding is over (released, or lost). */
  disarm(): void {
    const lockDir = lockPathFor(this.file);
    if (heldHere.get(lockDir) === this.identity) heldHere.delete(lockDir);
  }

  readonly onCompromised = (err: Error): void => {
    this.compromised = err;
  };

  assertHeld(): void {
    const now = this.current();
    if (this.compromised === undefined && now !== undefined && now === this.identity) return;
    throw new SwarmError(
      'lock_lost',
      `lock on ${this.file} was taken over while held (this process stalled past the stale window); nothing was written, try again`,
    );
  }

  private current(): string | undefined {
    try {
      return identityOf(nodeFs.statSync(lockPathFor(this.file)));
    } catch {
      return undefined;
    }
  }
}

type Release = () => Promise<void>;

/** One attempt at the lock; undefined when it is busy. Creates the file's directory (0700) if missing. */
async function tryLock(file: string, opts: Required<LockOptions>, guard: LockGuard): Promise<Release | undefined> {
  try {
    return await lockOnce(file, opts, guard);
  } catch (e) {
    if (errnoCode(e) !== 'ENOENT') throw e;
    await ensureDir(path.dirname(file)); // only now: a mkdir per attempt contends for the directory
    return lockOnce(file, opts, guard);
  }
}

async function lockOnce(file: string, opts: Required<LockOptions>, guard: LockGuard): Promise<Release | undefined> {
  try {
    return await lockfile.lock(file, {
      realpath: false,
      lockfilePath: lockPathFor(file),
      stale: opts.staleMs,
      update: opts.updateMs,
      retries: 0,
      onCompromised: guard.onCompromised,
      fs: lockFs,
    });
  } catch (e) {
    // Busy, or a path proper-lockfile cannot use: first, is the lock path a directory at all?
    const odd = oddLockPath(file);
    if (odd !== undefined) throw odd;
    if (errnoCode(e) === 'ELOCKED') return undefined;
    if (errnoCode(e) === 'ENOENT') throw e;
    throw cannotLock(file, e);
  }
}

/**
 * The error for a lock path that is not a directory (a file, a symlink, a FIFO): no process can
 * ever take that lock, so waiting for it is pointless. Undefined for a directory or nothing.
 */
function oddLockPath(file: string, st = lstatOrUndefined(lockPathFor(file))): SwarmError | undefined {
  if (st === undefined || st.isDirectory()) return undefined;
  const lockDir = lockPathFor(file);
  // What swarm doctor --fix removes by itself (team-checks.ts): an empty file, a symlink.
  const fix = st.isSymbolicLink() || (st.isFile() && st.size === 0) ? 'remove it (swarm doctor --fix does)' : `look at it, then remove it (rm '${lockDir}')`;
  return new SwarmError('io', `${lockDir} is ${describeEntry(st)}, not a lock directory, so nobody can lock ${path.basename(file)}; ${fix}, then try again`);
}

/** A lock that cannot be made or waited for (its directory unusable): an io error naming the file. */
function cannotLock(file: string, e: unknown): SwarmError {
  return new SwarmError('io', `cannot lock ${file}: ${(e as Error).message}`, { cause: e });
}

async function queuedTickets(file: string): Promise<string[]> {
  try {
    return (await readdir(queueDirFor(file))).filter((n) => !n.startsWith('.')).sort();
  } catch (e) {
    if (errnoCode(e) === 'ENOENT') return [];
    throw cannotLock(file, e);
  }
}

async function takeTicket(file: string): Promise<string> {
  const dir = queueDirFor(file);
  const name = `${process.hrtime.bigint().toString().padStart(20, '0')}-${process.pid}-${randomBytes(3).toString('hex')}`;
  for (;;) {
    try {
      await mkdir(dir, { recursive: true, mode: DIR_MODE });
      await writeFile(path.join(dir, name), '', { flag: 'wx', mode: FILE_MODE });
      return name;
    } catch (e) {
      if (errnoCode(e) !== 'ENOENT') throw e; // the last one out removed the empty line just now: make it again
    }
  }
}

/**
 * Remove tickets at the head of the line (up to `mine`) whose process is gone (it died while
 * waiting), and any name there that is no ticket (no pid): nobody would ever take it out.
 */
async function dropDeadTickets(file: string, tickets: string[], mine?: string): Promise<void> {
  for (const t of tickets.slice(0, POLLERS + 1)) {
    if (t === mine) return;
    if (!isProcessAlive(Number(t.split('-')[1]))) await rm(path.join(queueDirFor(file), t), { force: true });
  }
}

async function acquire(file: string, opts: Required<LockOptions>, guard: LockGuard): Promise<Release> {
  if ((await queuedTickets(file)).length === 0) {
    const release = await tryLock(file, opts, guard);
    if (release) return release;
  }
  const ticket = await takeTicket(file);
  const wakeup = new DirWakeup();
  try {
    let deadline = Date.now() + opts.budgetMs;
    let attempts = 0;
    let lastHolder: string | undefined;
    let lastPlace = Number.POSITIVE_INFINITY;
    let nextCheck = 0;
    let idle: { head: string | undefined; since: number } | undefined; // the free lock left alone by the line's head
    for (;;) {
      const tickets = await queuedTickets(file);
      // -1 when our ticket was removed (by doctor, say): below POLLERS, so we still wait, and poll first.
      const place = tickets.indexOf(ticket);
      // Behind the pollers, look whether they leave a free lock alone: a head that takes it removes
      // its ticket when done, so the same head beside a free lock for IDLE_LINE_MS is stopped.
      const free = place >= POLLERS && lstatOrUndefined(lockPathFor(file)) === undefined;
      idle = !free ? undefined : idle?.head === tickets[0] ? idle : { head: tickets[0], since: Date.now() };
      if (place < POLLERS || (idle !== undefined && Date.now() - idle.since >= IDLE_LINE_MS)) {
        attempts++;
        const release = await tryLock(file, opts, guard);
        if (release) return release;
      }
      const now = Date.now();
      if (now >= nextCheck) {
        nextCheck = now + 250;
        const holder = await holderIdentity(file);
        if (holder !== lastHolder || place < lastPlace) deadline = now + opts.budgetMs; // the line moves
        lastHolder = holder;
        lastPlace = place;
        await dropDeadTickets(file, tickets, ticket);
      }
      if (now >= deadline) throw lockTimeout(file, opts, attempts);
      await waitInLine(file, tickets, place, wakeup, opts);
    }
  } finally {
    wakeup.close();
    await rm(path.join(queueDirFor(file), ticket), { force: true });
    await removeLineIfEmpty(file); // the last one out removes the line
  }
}

/**
 * One wait in the line at `place`: at the head, until the lock directory goes or is touched; behind
 * the pollers, until the ticket POLLERS places ahead leaves (then this one is a poller). A wake is
 * only a hint: the caller looks at the line and the lock again. Without inotify: a plain sleep.
 */
async function waitInLine(file: string, tickets: string[], place: number, wakeup: DirWakeup, opts: Required<LockOptions>): Promise<void> {
  const jitter = 0.75 + Math.random() * 0.5;
  if (place < POLLERS) {
    const lock = lstatOrUndefined(lockPathFor(file));
    if (lock !== undefined && wakeup.watching) {
      const mark = wakeup.follow(lockPathFor(file), identityOf(lock));
      if (wakeup.watching) return wakeup.wait(mark, HEAD_WAIT_MS * jitter);
    }
    await delay((1 + Math.random() * 2) * jitter); // free (lost the race for it), or no inotify: look again soon
    return;
  }
  if (wakeup.watching) {
    const ahead = tickets[place - POLLERS]!;
    const mark = wakeup.follow(path.join(queueDirFor(file), ahead), ahead);
    if (wakeup.watching) return wakeup.wait(mark, LINE_WAIT_MS * jitter);
  }
  await delay(Math.min(opts.maxDelayMs, (place - POLLERS + 1) * PER_PLACE_MS) * jitter);
}

/** How long a group-commit waiter sleeps between checks: with change events (a safety net), without. */
const EVENT_WAIT_MS = 100;
const POLL_WAIT_MS = 8;

/**
 * Group commit's way to wait: no ticket. Take the lock when it is free and nobody is queued (or
 * the line has left it free for IDLE_LINE_MS, its dead tickets dropped first); otherwise sleep
 * until the holder's lock directory goes (or is touched) or the watched path changes, and look
 * again, until `stopWaiting.done()` says the work is done. Every waiter still here wakes on every
 * release: the holder merged most of them, the rest race for the next cycle.
 */
async function acquireUnlessDone(
  file: string,
  opts: Required<LockOptions>,
  guard: LockGuard,
  stop: StopWaiting,
): Promise<Release | typeof STOPPED_WAITING> {
  const lockDir = lockPathFor(file);
  const wakeup = new DirWakeup();
  if (stop.watch !== undefined) wakeup.alsoWatch(stop.watch);
  try {
    let deadline = Date.now() + opts.budgetMs;
    let lastHolder: string | undefined;
    let attempts = 0;
    let idleSince: number | undefined; // when a line was first seen leaving the free lock alone
    for (;;) {
      if (stop.done()) return STOPPED_WAITING;
      const lock = lstatOrUndefined(lockDir);
      const odd = oddLockPath(file, lock);
      if (odd !== undefined) throw odd;
      // Try only a free lock, or one old enough to be a dead holder's (tryLock takes that over),
      // and only when nobody is queued for it, or the line has left it alone too long.
      const free = lock === undefined || Date.now() - lock.mtimeMs > opts.staleMs;
      const queued = free && hasQueue(file);
      idleSince = queued ? (idleSince ?? Date.now()) : undefined;
      const lineIdle = idleSince !== undefined && Date.now() - idleSince >= IDLE_LINE_MS;
      if (lineIdle) await clearDeadLine(file);
      if (free && (!queued || lineIdle)) {
        attempts++;
        const release = await tryLock(file, opts, guard);
        if (release) return release;
      }
      const now = Date.now();
      const holder = lock && identityOf(lock);
      if (holder !== lastHolder) deadline = now + opts.budgetMs; // the lock changes hands: progress
      lastHolder = holder;
      if (now >= deadline) throw lockTimeout(file, opts, attempts);
      if (holder === undefined) {
        await delay(1 + Math.random() * 2); // free but queued for, or just taken: look again soon
        continue;
      }
      const mark = wakeup.follow(lockDir, holder);
      if (stop.done()) return STOPPED_WAITING; // merged between the first look and the watch
      const wait = wakeup.watching ? EVENT_WAIT_MS : POLL_WAIT_MS;
      await wakeup.wait(mark, wait * (0.75 + Math.random() * 0.5));
    }
  } finally {
    wakeup.close();
  }
}

function lockTimeout(file: string, opts: Required<LockOptions>, attempts: number): SwarmError {
  return new SwarmError(
    'lock_timeout',
    `${file} is locked by another process (no progress for ${opts.budgetMs} ms, ${attempts} attempts); retry, or run 'swarm doctor' if it stays locked`,
  );
}

/** Drop the dead tickets at the head of a line, and the line itself once it is empty. */
async function clearDeadLine(file: string): Promise<void> {
  await dropDeadTickets(file, await queuedTickets(file));
  await removeLineIfEmpty(file);
}

/** Remove the waiting line's directory if no ticket is left in it (ENOTEMPTY otherwise: kept). */
async function removeLineIfEmpty(file: string): Promise<void> {
  await rmdir(queueDirFor(file)).catch(() => undefined);
}

/** True when a ticket line exists (the last one out removes it): those waiters go first. */
function hasQueue(file: string): boolean {
  return nodeFs.existsSync(queueDirFor(file));
}

/** The lock path's own entry (a symlink is not followed), or undefined when there is none. */
function lstatOrUndefined(p: string): nodeFs.Stats | undefined {
  try {
    return nodeFs.lstatSync(p);
  } catch {
    return undefined;
  }
}

/** Identity of the current lock directory, or undefined when nobody holds it. */
async function holderIdentity(file: string): Promise<string | undefined> {
  try {
    return identityOf(await stat(lockPathFor(file)));
  } catch {
    return undefined;
  }
}
