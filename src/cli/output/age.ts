// How long ago something happened, for humans: the largest whole unit, rounded down, no space
// ("0s", "12s", "3m", "2h", "5d", "1y"). pretty-ms does the unit arithmetic. One format for
// `swarm status` (`2s ago`), doctor's findings and the console's permission line.
import prettyMs from 'pretty-ms';

/** `850` → "0s", `12_400` → "12s", `185_000` → "3m", `2 * 86_400_000` → "2d"; negative or NaN → "0s". */
export function formatAge(ms: number): string {
  const seconds = Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) : 0;
  // pretty-ms says "0ms" below a second and "950ms" for 950; an age is counted in whole seconds.
  return seconds === 0 ? '0s' : prettyMs(seconds * 1000, { compact: true });
}
