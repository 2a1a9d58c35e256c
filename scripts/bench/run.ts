// `npm run bench -- <name...>`: runs the named benchmarks (default: all) and prints their tables.
import { launchBench } from './launch.js';
import { leadBench } from './lead.js';
import { mailboxBench } from './mailbox.js';
import { permissionsBench } from './permissions.js';
import { spawnBench } from './spawn.js';
import { sshBench } from './ssh.js';
import { runtimeBench } from './runtime.js';
import { scaleBench } from './scale.js';
import { startupBench } from './startup.js';
import { tasksBench } from './tasks.js';

const benches: Record<string, () => Promise<void>> = {
  mailbox: mailboxBench,
  permissions: permissionsBench,
  spawn: spawnBench,
  runtime: runtimeBench,
  launch: launchBench,
  tasks: tasksBench,
  lead: leadBench,
  ssh: sshBench,
  startup: startupBench,
  scale: scaleBench,
};

const names = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const chosen = names.length > 0 ? names : Object.keys(benches);
for (const name of chosen) {
  const run = benches[name];
  if (!run) {
    process.stderr.write(`unknown benchmark "${name}"; choose from: ${Object.keys(benches).join(', ')}\n`);
    process.exit(2);
  }
  process.stdout.write(`\n## ${name}  (${new Date().toISOString()}, node ${process.version}, ${(await import('node:os')).cpus().length} cpus)\n`);
  await run();
}
