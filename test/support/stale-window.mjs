// Lock options for test children that shrink the stale window from an argv word: the window, and a
// refresh four times within it (proper-lockfile needs update < stale / 2). No word: the defaults.
export function staleWindow(staleArg) {
  return staleArg ? { staleMs: Number(staleArg), updateMs: Math.floor(Number(staleArg) / 4) } : {};
}
