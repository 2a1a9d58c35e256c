// Durations given by a person (`--hibernate-after 10m`, the team file's `hibernateAfter: 90s`):
// a number and a unit as the `ms` package reads them (ms, s, m, h, d; `1.5h`, `10 minutes`). A bare
// number is refused: seconds or milliseconds would be a guess.
import ms, { type StringValue } from 'ms';
import { SwarmError } from './errors.js';

/** `value` (named `what` in the error) in milliseconds; a one-line SwarmError when it is not a positive duration with a unit. */
export function parseDuration(value: unknown, what: string): number {
  const text = typeof value === 'string' ? value.trim() : '';
  const parsed = /[a-z]$/i.test(text) ? ms(text as StringValue) : undefined;
  if (typeof parsed !== 'number' || !Number.isFinite(parsed) || parsed <= 0) {
    throw new SwarmError('invalid_input', `${what}: expected a duration with a unit (30s, 10m, 1h), got ${JSON.stringify(value)}`);
  }
  return Math.round(parsed);
}

