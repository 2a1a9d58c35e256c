// `swarm board [--team t] [--port N] [--host H] [--open]`: a live page of the team in a browser
// (docs/board.md). The command line only; what it does is cli/handlers/board.ts, loaded when it
// runs (the HTTP server, the layout library and the team files would cost every other command
// start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';
import type { BoardArgs } from '../handlers/board.js';

export const boardCommand: CommandModule<GlobalArgs, BoardArgs> = {
  command: 'board',
  describe:
    'serve a live page of the team on 127.0.0.1 (members, task graph, messages, questions waiting for you, with answers from the page) and print its URL with an access token; without a team, a page listing every team',
  builder: (y) =>
    refuseGlobals(y, 'board', { json: '' })
      .option('port', { type: 'number', describe: 'port to listen on (default: a free one)' })
      .option('host', { type: 'string', describe: 'address to bind (default 127.0.0.1); anything else serves the board to the network: prefer ssh -L' })
      .option('open', { type: 'boolean', default: false, describe: 'open the page in the default browser, where there is one' })
      .example('$0 board --team review-squad', "print the board's URL; open it in a browser")
      .example('$0 board', 'every team under the root, a link to each')
      .example('ssh -L 8731:127.0.0.1:8731 server swarm board --team review-squad --port 8731', "a board on another machine, through ssh (then open the printed URL here)"),
  handler: async (args) => (await import('../handlers/board.js')).board(args),
};
