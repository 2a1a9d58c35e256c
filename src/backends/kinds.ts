// What `--backend` may name and which backend a recorded pane belongs to: plain values and pure
// functions, apart from the registry so that a command line (`--backend` choices in --help) and a
// liveness check of a roster with no panes load no backend (tmux, iTerm2, ssh, execa).
import { BackendTypeSchema, type BackendType } from '../protocol/config.js';

export const BACKEND_CHOICES = ['auto', 'tmux', 'iterm2', 'in-process', 'ssh'] as const;
export type BackendChoice = (typeof BACKEND_CHOICES)[number];

/** A recorded `backendType`, when it names a backend; undefined otherwise. */
export function parseBackendType(recorded: string | undefined): BackendType | undefined {
  return BackendTypeSchema.safeParse(recorded).data;
}

/**
 * The backend a recorded pane belongs to: its `backendType`, or for an old record without one, by
 * the id's shape (`%N` is tmux's, `in-process` the host's). Undefined when there is no pane yet.
 */
export function recordedBackendType(p: { backendType?: string | undefined; paneId: string }): BackendType | undefined {
  if (p.paneId === '') return undefined;
  if (p.paneId === 'in-process') return 'in-process';
  if (p.backendType === undefined) return /^%\d+$/.test(p.paneId) ? 'tmux' : undefined;
  return parseBackendType(p.backendType);
}
