// A real headless Chromium for the board's page tests (docs/board.md): Debian's `chromium`
// (/usr/bin/chromium; .ci/run installs it with apt) driven by playwright-core, which downloads no
// browser. Each launch is closed when its test finishes (playwright ends the process it started).
// Where there is no chromium the tests skip, saying why once — except under CI=true, where that is
// a failure (.ci/run installs it, so CI never skips them).
import { chromium, type Browser } from 'playwright-core';
import which from 'which';
import { afterThisTest } from './tmp-root.js';

/** The chromium binary, or undefined. */
export function chromiumBinary(): string | undefined {
  return which.sync('chromium', { nothrow: true }) ?? which.sync('chromium-browser', { nothrow: true }) ?? undefined;
}

function chromiumSkip(): string | undefined {
  if (chromiumBinary() !== undefined) return undefined;
  const why = 'no chromium here: the board page tests are skipped (apt-get install -y chromium; .ci/run does it)';
  if (process.env.CI === 'true') throw new Error(`CI=true, but ${why}`);
  process.stderr.write(`${why}\n`);
  return why;
}

/** This machine's answer: the page tests' `describe.skipIf(CHROMIUM_SKIP !== undefined)`. */
export const CHROMIUM_SKIP = chromiumSkip();

/** A headless Chromium, closed (its process ended) when the current test finishes. */
export async function launchChromium(): Promise<Browser> {
  // --no-sandbox: the test machines run as root, where Chromium's sandbox refuses to start.
  const browser = await chromium.launch({ executablePath: chromiumBinary()!, args: ['--no-sandbox'] });
  afterThisTest(() => browser.close());
  return browser;
}
