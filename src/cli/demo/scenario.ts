// The scripted "model" of `swarm demo`, served by the stand-in Messages API (src/standin). Each
// teammate is a small deterministic brain: it looks at its whole conversation (which tools it has
// used, what teammates wrote) and picks its next move, so the scenario works whatever order the
// teammates' messages land in:
//   reader  reads README.md and src/greet.js, sends notes to writer and a summary to team-lead;
//   writer  reads docs/STYLE.md, waits for reader's notes, then sends team-lead a README blurb;
//   tester  reads the test, asks to run `node test/greet.test.js` with Bash (the leader approves
//           with `y`), and reports the result to team-lead and writer.
// Every brain approves a shutdown_request (brain.ts), so `/shutdown --all` and Ctrl-C → y end the
// demo gracefully. This is `swarm demo --manual`; the default demo is lead-scenario.ts.
import type { ScriptInput, StepInput } from '../../standin/messages-server.js';
import type { TeamFile } from '../launch/team-file.js';
import { brainScript, reply, say, text, tool, type Brain, type Conversation } from './brain.js';

export const DEMO_TEAM = 'demo';
const TURNS_PER_AGENT = 16;

function reader(c: Conversation): StepInput {
  if (!c.used.includes('Read')) {
    return reply(text("I'll read the README and the code."), tool('Read', { file_path: 'README.md' }), tool('Read', { file_path: 'src/greet.js' }));
  }
  if (!c.used.includes('SendMessage')) {
    return reply(
      say('writer', 'greet(name) returns "Hello, <name>!"; an empty or missing name greets the world. The README shows greet("Ada").', 'notes on greet()'),
      say('team-lead', 'Read README.md and src/greet.js: one function, greet(name), with a fallback to "world". Notes sent to writer.', 'project read'),
    );
  }
  return reply(text('My notes are with writer and team-lead.'));
}

function writer(c: Conversation): StepInput {
  if (!c.used.includes('Read')) return reply(text('Reading the style guide while reader looks at the code.'), tool('Read', { file_path: 'docs/STYLE.md' }));
  const notes = c.heard.includes('teammate_id="reader"');
  if (!notes) return reply(text("Style guide read. Waiting for reader's notes."));
  if (!c.used.includes('SendMessage')) {
    return reply(
      say('team-lead', 'README blurb: "greet says hello. greet("Ada") gives "Hello, Ada!", and an empty name greets the world."', 'README blurb ready'),
      say('reader', 'Thanks for the notes, the blurb is with team-lead.', 'thanks'),
    );
  }
  return reply(text('The blurb is with team-lead.'));
}

function tester(c: Conversation): StepInput {
  if (!c.used.includes('Read')) return reply(text("Let me look at the test first."), tool('Read', { file_path: 'test/greet.test.js' }));
  if (!c.used.includes('Bash')) {
    return reply(text('Now I need to run it; that needs team-lead’s approval.'), tool('Bash', { command: 'node test/greet.test.js', description: 'Run the greeting tests' }));
  }
  if (!c.used.includes('SendMessage')) {
    const denied = /denied/i.test(c.last);
    const passed = c.last.includes('ok 2');
    const result = denied ? 'team-lead did not let me run the tests.' : passed ? 'both tests pass (ok 1, ok 2).' : 'the tests did not pass; see my pane.';
    return reply(say('team-lead', `Ran node test/greet.test.js: ${result}`, 'test results'), say('writer', `FYI: ${result}`, 'tests'));
  }
  return reply(text('Results reported.'));
}

const BRAINS: Record<string, Brain> = { reader, writer, tester };

/** The stand-in script: each agent's turns all ask its brain. */
export function demoScript(): ScriptInput {
  return brainScript(BRAINS, TURNS_PER_AGENT);
}

/** The demo team, as if read from a team file; `cwd` is the demo project. */
export function demoTeamFile(cwd: string, name: string = DEMO_TEAM): TeamFile {
  return {
    name,
    description: 'swarm demo: three scripted teammates',
    members: [
      { name: 'reader', cwd, prompt: 'You are reader. Read README.md and src/greet.js, then send your notes to writer and a summary to team-lead.' },
      { name: 'writer', cwd, prompt: "You are writer. Read docs/STYLE.md; when reader's notes arrive, send team-lead a one-line README blurb." },
      { name: 'tester', cwd, prompt: 'You are tester. Read test/greet.test.js, run it with Bash (node test/greet.test.js), and report to team-lead and writer.' },
    ],
  };
}
