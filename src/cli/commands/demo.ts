// `swarm demo` (docs/protocol.md#demo): the command line; the demo itself is cli/demo/run-demo.ts, loaded only
// when it runs (the stand-in server, the scenarios and the launch code would cost every other
// command start-up time).
import type { CommandModule } from 'yargs';
import { refuseGlobals, type GlobalArgs } from '../global-flags.js';

interface DemoArgs extends GlobalArgs {
  manual: boolean;
}

export const demoCommand: CommandModule<GlobalArgs, DemoArgs> = {
  command: 'demo',
  describe: 'an agent lead and its team on a small goal, with a scripted stand-in model: no API key needed',
  builder: (y) =>
    refuseGlobals(y, 'demo', { team: 'the demo always makes its own team, in a temporary root', json: '' })
      .option('manual', { type: 'boolean', default: false, describe: 'three scripted teammates and no agent lead: you approve and end it yourself' })
      .example('$0 demo', 'run it; answer the one permission question with y; it ends by itself')
      .example('$0 demo --manual', 'approve the Bash request with y; then /shutdown --all ends it'),
  handler: async (args) => {
    const { runDemo } = await import('../demo/run-demo.js');
    await runDemo(args.manual);
  },
};
