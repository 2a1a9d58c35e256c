// The `swarm` command line: yargs wiring, global flags, and the one place that turns an error into
// a one-line message and an exit code (2 for usage errors, 1 for everything else).
import { createRequire } from 'node:module';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { demoCommand } from './commands/demo.js';
import { doctorCommand } from './commands/doctor.js';
import { inboxCommand } from './commands/inbox.js';
import { launchCommand } from './commands/launch.js';
import { leadCommand } from './commands/lead.js';
import { approveCommand, denyCommand, permissionsCommand } from './commands/permissions.js';
import { planCommand } from './commands/plan.js';
import { sendCommand } from './commands/send.js';
import { spawnCommand } from './commands/spawn.js';
import { statusCommand } from './commands/status.js';
import { killCommand, shutdownCommand } from './commands/stop.js';
import { teamCommand } from './commands/team.js';
import { teammateCommand } from './commands/teammate.js';
import { fail, failWith } from './fail.js';
import { handleClosedOutput } from './output/closed-output.js';

/** This package's version, from its package.json (yargs cannot find it from an ES module). */
const VERSION = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export async function main(argv: string[] = hideBin(process.argv)): Promise<void> {
  handleClosedOutput(); // `swarm status | head -1`: exit quietly, no EPIPE stack trace
  const cli = yargs(argv)
    .scriptName('swarm')
    .usage('$0 <command> [options]\n\nRun a team of Claude agents in tmux panes, coordinated through plain files.')
    .option('team', { alias: 't', type: 'string', global: true, describe: 'team name (default: $SWARM_TEAM)' })
    .option('json', { type: 'boolean', global: true, default: false, describe: 'machine-readable output' })
    .command(launchCommand)
    .command(leadCommand)
    .command(demoCommand)
    .command(teamCommand)
    .command(sendCommand)
    .command(inboxCommand)
    .command(spawnCommand)
    .command(killCommand)
    .command(shutdownCommand)
    .command(permissionsCommand)
    .command(approveCommand)
    .command(denyCommand)
    .command(planCommand)
    .command(teammateCommand)
    .command(statusCommand)
    .command(doctorCommand)
    .example('$0 team create review-squad', 'create a team (prints the SWARM_TEAM to export)')
    .example('$0 send alice "please review src/app.ts" --team review-squad', 'message a teammate')
    .example('SWARM_TEAM=review-squad $0 inbox team-lead --unread', "what the leader hasn't read")
    .example('$0 <command> --help', 'flags and examples of one command')
    .demandCommand(1, 'say what to do: swarm --help lists the commands')
    .recommendCommands()
    .strict()
    .help()
    .alias('h', 'help')
    .version(VERSION)
    .completion('completion', 'print a bash/zsh completion script: swarm completion >> ~/.bashrc')
    .wrap(Math.min(100, process.stdout.columns || 100))
    .fail((msg, err) => {
      if (err) throw err;
      // recommendCommands() says only "Did you mean X?": name what was typed too.
      const typed = argv.find((a) => !a.startsWith('-'));
      const what = msg?.startsWith('Did you mean') && typed ? `unknown command "${typed}". ${msg}` : msg;
      fail(`${what} (see swarm --help)`, 2);
    });
  try {
    await cli.parseAsync();
  } catch (e) {
    failWith(e);
  }
}
