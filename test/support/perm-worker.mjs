// Child process for permission tests and the benchmark: a worker that asks for one permission
// through the real, built requestPermission (dist/), printing every event as a JSON line
// `{"event": ...}` and finally `{"result": ...}` or `{"error": message}`. SIGTERM aborts the wait.
// argv: one JSON object with the requestPermission options (team as {root, name}, workerName, ...).
import { requestPermission } from '../../dist/permissions/worker.js';
import { Team } from '../../dist/team/team.js';

const json = JSON.parse(process.argv[2]);
const opts = { ...json, team: new Team(json.team.root, json.team.name) };
const ac = new AbortController();
process.on('SIGTERM', () => ac.abort(new Error('worker stopped')));
const print = (obj) => process.stdout.write(`${JSON.stringify(obj)}\n`);
try {
  const result = await requestPermission({ ...opts, signal: ac.signal, onEvent: (event) => print({ event }) });
  print({ result });
} catch (e) {
  print({ error: e instanceof Error ? e.message : String(e) });
  process.exitCode = 1;
}
