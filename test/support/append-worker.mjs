// Child process for concurrency tests: appends `count` messages `<writer>:<i>` to one inbox through
// the real Mailbox (built dist/, through dist-lib.mjs), then prints one JSON line of latencies.
// argv: root team to writer count [lockBudgetMs] [lockStaleMs]
import { distLib } from './dist-lib.mjs';
import { staleWindow } from './stale-window.mjs';

const { Mailbox, Team } = distLib;

const [root, team, to, writer, countArg, budgetArg, staleArg] = process.argv.slice(2);
const count = Number(countArg);
const lock = {
  ...(budgetArg ? { budgetMs: Number(budgetArg) } : {}),
  ...staleWindow(staleArg),
};
const mailbox = new Mailbox({ team: new Team(root, team), lock });
const latencies = [];
let failed = 0;
let lastError = '';
for (let i = 0; i < count; i++) {
  const t0 = performance.now();
  try {
    await mailbox.append(to, { from: writer, text: `${writer}:${i}` });
    latencies.push(performance.now() - t0);
  } catch (e) {
    failed++;
    lastError = e.message;
  }
}
process.stdout.write(`${JSON.stringify({ writer, ok: latencies.length, failed, lastError, latencies })}\n`);
