// The live side of one team's board (docs/board.md): while at least one page listens, watch the
// team's files (status/, inboxes/, permissions/pending|resolved/, config.json, the task list:
// storage/watch DirWatchers, inotify with a slow stat poll behind it) and send a fresh snapshot to
// every listener when what it says changed. Between changes it re-reads once per `refreshMs`
// (liveness and a stale heartbeat change without a file changing); with no listener it watches
// nothing. A snapshot that fails (the team was deleted) is sent as a problem line instead.
import { DirWatcher, nextChange } from '../../storage/watch.js';
import type { Team } from '../../team/team.js';
import type { BoardSnapshot } from './snapshot.js';

export type FeedEvent = { kind: 'snapshot'; json: string } | { kind: 'problem'; message: string };
export type Listener = (e: FeedEvent) => void;

export class TeamFeed {
  private readonly listeners = new Set<Listener>();
  private last: FeedEvent | undefined;
  private stop: AbortController | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly team: Team,
    private readonly snapshot: () => Promise<BoardSnapshot>,
    private readonly refreshMs: number,
    private readonly onError: (message: string) => void,
  ) {}

  /** Listen; the latest event is sent at once when there is one. Returns the unsubscribe. */
  listen(l: Listener): () => void {
    this.listeners.add(l);
    if (this.last) l(this.last);
    if (!this.stop) this.start();
    return () => {
      this.listeners.delete(l);
      if (this.listeners.size === 0) void this.halt();
    };
  }

  private start(): void {
    const stop = (this.stop = new AbortController());
    this.running = this.run(stop.signal).catch((e: unknown) => this.onError(`board feed of ${this.team.name}: ${e instanceof Error ? e.message : String(e)}`));
  }

  /** Stop watching (the last listener left, or the board closes). */
  async halt(): Promise<void> {
    const running = this.running;
    this.stop?.abort();
    this.stop = undefined;
    this.running = undefined;
    this.last = undefined;
    await running;
  }

  private async run(signal: AbortSignal): Promise<void> {
    const p = this.team.paths;
    const json = (n: string): boolean => n.endsWith('.json');
    const watchers = await Promise.all([
      DirWatcher.open(p.statusDir),
      DirWatcher.open(p.inboxes, { match: json }),
      DirWatcher.open(p.pending, { match: json }),
      DirWatcher.open(p.resolved, { match: json }),
      DirWatcher.open(p.dir, { file: 'config.json' }),
      DirWatcher.open(p.tasks.dir, { match: json }),
    ]);
    try {
      while (!signal.aborted) {
        const event = await this.snapshot().then(
          (s): FeedEvent => ({ kind: 'snapshot', json: JSON.stringify(s) }),
          (e: unknown): FeedEvent => ({ kind: 'problem', message: e instanceof Error ? e.message : String(e) }),
        );
        if (signal.aborted) break;
        if (!sameEvent(event, this.last)) {
          this.last = event;
          for (const l of this.listeners) l(event);
        }
        await nextChange(watchers, signal, this.refreshMs);
      }
    } finally {
      await Promise.all(watchers.map((w) => w.close()));
    }
  }
}

function sameEvent(a: FeedEvent, b: FeedEvent | undefined): boolean {
  if (b === undefined || a.kind !== b.kind) return false;
  return a.kind === 'snapshot' ? a.json === (b as typeof a).json : a.message === (b as typeof a).message;
}
