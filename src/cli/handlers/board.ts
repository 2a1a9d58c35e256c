// What `swarm board` does (the command line is commands/board.ts; docs/board.md): start the board's
// server (cli/board/server.ts) for the team --team or SWARM_TEAM names — or, with neither, for every
// team under the root — print its URL with the access token, open it with --open where the machine
// has a browser opener, and serve until Ctrl-C. The token is printed once, on stdout, and nowhere else.
import { spawn } from 'node:child_process';
import which from 'which';
import { SwarmError } from '../../protocol/errors.js';
import { readTeam } from '../../team/team-store.js';
import { Team } from '../../team/team.js';
import { isLoopback } from '../board/access.js';
import { startBoard } from '../board/server.js';
import { println, rootDir } from '../context.js';
import type { GlobalArgs } from '../global-flags.js';
import { INTERRUPT_SIGNALS, onSignals } from '../interrupts.js';
import { cliIo } from '../io.js';
import { chalk } from '../output/render.js';

export interface BoardArgs extends GlobalArgs {
  port?: number;
  host?: string;
  open: boolean;
}

function checkPort(port: number | undefined): number {
  if (port === undefined) return 0;
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new SwarmError('invalid_input', `expected --port to be a port number 1-65535, got ${String(port)}`);
  return port;
}

/** The machine's "open this URL" command on the command's PATH, if it has one. */
async function browserOpener(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const name = process.platform === 'darwin' ? 'open' : 'xdg-open';
  return (await which(name, { nothrow: true, ...(env.PATH !== undefined ? { path: env.PATH } : {}) })) ?? undefined;
}

async function openInBrowser(url: string, env: NodeJS.ProcessEnv): Promise<void> {
  const opener = await browserOpener(env);
  if (opener === undefined) {
    cliIo().stderr.write(`${chalk.yellow('swarm:')} no browser opener (xdg-open) on this machine; open the URL above yourself\n`);
    return;
  }
  const child = spawn(opener, [url], { stdio: 'ignore', detached: true, env });
  child.on('error', () => undefined); // the URL is printed: nothing is lost if the opener fails
  child.unref();
}

export async function board(args: BoardArgs): Promise<void> {
  const env = cliIo().env;
  const port = checkPort(args.port);
  const root = rootDir();
  const name = args.team ?? (env.SWARM_TEAM || undefined); // an empty SWARM_TEAM names no team
  if (name !== undefined) await readTeam(new Team(root, name)); // not_found before anything listens
  const b = await startBoard({
    root,
    ...(name !== undefined ? { team: name } : {}),
    ...(args.host !== undefined ? { host: args.host, explicitHost: true } : {}),
    port,
    env,
    log: (line) => cliIo().stderr.write(`${line}\n`),
  });
  const ended = new Promise<void>((resolve) => {
    const off = onSignals(INTERRUPT_SIGNALS, () => {
      off();
      resolve();
    });
  });
  println(`${chalk.bold('swarm board')} ${name !== undefined ? `of team ${name}` : 'of every team'}: ${b.url}`);
  if (!isLoopback(b.host)) {
    cliIo().stderr.write(`${chalk.yellow('swarm:')} the board listens on ${args.host}: anyone who can reach it and has the URL can answer permission requests; prefer 127.0.0.1 and ssh -L (docs/board.md)\n`);
  }
  println(chalk.dim('the URL carries the access token: share it with nobody. Ctrl-C stops the board.'));
  if (args.open) await openInBrowser(b.url, env);
  await ended;
  await b.close();
}
