// The scripted "model" of `swarm demo` (the default): an agent lead and the teammates it spawns,
// each a deterministic brain (brain.ts) that looks at its whole conversation and picks its next
// move, so the run works whatever order the messages land in. The goal (LEAD_DEMO_GOAL) is for the
// project LEAD_DEMO_FILES (project.ts), whose greet() does not handle an empty name yet:
//   team-lead  creates two tasks, the test blocked by the fix (TaskCreate, TaskUpdate addBlockedBy);
//              spawns coder and gives it the fix, then tester and gives it the test (Agent, TaskUpdate
//              owner: owned tasks are never claimed by the wrong teammate), says go; once tester
//              reports, spawns a `verification` teammate; on its verdict shuts everyone down
//              (SendMessage shutdown_request) and gives its final answer (when the tests did not
//              pass, e.g. the person said n: no verifier, it shuts the team down, removes the test
//              task and says what is not done);
//   coder      on the go claims the fix, reads and rewrites src/greet.js, completes the task and
//              tells tester and team-lead;
//   tester     once coder is done claims the test, rewrites test/greet.test.js, runs it with Bash (the
//              person approves with `y`), completes the task if it passed and reports to team-lead;
//   verifier   reads both files, checks them, and reports ending with `VERDICT: PASS` (or FAIL).
// The teammates really write the files (DEMO_FILES's versions), so the verifier's check is real.
import type { ScriptInput, StepInput } from '../../standin/messages-server.js';
import { brainScript, reply, say, text, tool, uses, type Conversation } from './brain.js';
import type { TeamFile } from '../launch/team-file.js';
import { DEMO_FILES } from './project.js';

export const LEAD_DEMO_GOAL = 'Make greet() in src/greet.js handle an empty name (greet("") should say "Hello, world!"), with a test.';

/** The lead's final answer starts with this (the demo's test looks for it). */
export const LEAD_DEMO_DONE = "Done: greet('') now says";

const TURNS_PER_AGENT = 40;
const GREET = 'src/greet.js';
const TEST = 'test/greet.test.js';
const FIX_SUBJECT = 'greet(): an empty name greets the world';
const TEST_SUBJECT = 'test: greet("") says Hello, world!';
/** What the lead says to start the work, what coder says when the fix is in, what tester says after a run. */
const GO = 'Go: coder, start on task';
const FIX_DONE = 'greet() now greets the world for an empty name';
const PASSED = 'both tests pass';
const NOT_PASSED = 'the tests did not pass';

/** The id of the task the lead created with `subject`, from its TaskCreate results. */
function taskId(c: Conversation, subject: string): string | undefined {
  return new RegExp(`Task #(\\d+) created successfully: ${subject.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`).exec(c.results)?.[1];
}

/** The first group of `re` in what the agent heard (its prompt, its messages), else '?'. */
const fromHeard = (c: Conversation, re: RegExp): string => re.exec(c.heard)?.[1] ?? '?';

function lead(c: Conversation): StepInput {
  if (!c.used.includes('TaskCreate')) {
    return reply(
      text('Plan: the fix first, then a test that depends on it.'),
      tool('TaskCreate', { subject: FIX_SUBJECT, description: `Make greet() in ${GREET} return "Hello, world!" for an empty or missing name.` }),
      tool('TaskCreate', { subject: TEST_SUBJECT, description: `Add a check for greet("") to ${TEST} and run it.` }),
    );
  }
  const fix = taskId(c, FIX_SUBJECT);
  const test = taskId(c, TEST_SUBJECT);
  if (fix === undefined || test === undefined) return reply(text('The task list refused my tasks (see above), so I stop here.'));
  const updates = uses(c, 'TaskUpdate');
  const agents = uses(c, 'Agent');
  if (updates === 0) return reply(text(`Task #${test} waits for #${fix}.`), tool('TaskUpdate', { taskId: test, addBlockedBy: [fix] }));
  if (agents === 0) {
    const prompt =
      `You are coder. Your task is #${fix}: ${FIX_SUBJECT}. Wait for team-lead's go, then claim it (TaskUpdate status in_progress), ` +
      `make greet() in ${GREET} return "Hello, world!" for an empty or missing name, mark #${fix} completed, and tell tester (task #${test} waits for yours) and team-lead.`;
    return reply(text('coder takes the fix.'), tool('Agent', { name: 'coder', description: 'fixes greet()', mode: 'acceptEdits', prompt }));
  }
  if (updates === 1) return reply(tool('TaskUpdate', { taskId: fix, owner: 'coder' }));
  if (agents === 1) {
    const prompt =
      `You are tester. Your task is #${test}: ${TEST_SUBJECT}. It is blocked by #${fix}: coder tells you when that is done. ` +
      `Then claim it, add a check for greet("") to ${TEST}, run node ${TEST}, mark #${test} completed if it passes, and report the output to team-lead.`;
    return reply(text('tester takes the test.'), tool('Agent', { name: 'tester', description: 'tests the empty name', mode: 'acceptEdits', prompt }));
  }
  if (updates === 2) return reply(tool('TaskUpdate', { taskId: test, owner: 'tester' }));
  if (!c.used.includes('SendMessage')) {
    return reply(say('*', `${GO} #${fix} now. tester, task #${test} is yours once #${fix} is completed: coder will tell you.`, 'go'));
  }
  if (c.heard.includes(NOT_PASSED)) return notPassed(c, fix, test);
  if (!c.heard.includes(PASSED)) return reply(text('Waiting for coder and tester.'));
  if (agents === 2) {
    const prompt =
      `You are verifier. Check independently that greet("") returns "Hello, world!" in ${GREET} and that ${TEST} tests it. ` +
      'Report to team-lead; your last line must be VERDICT: PASS, VERDICT: FAIL or VERDICT: PARTIAL.';
    return reply(text('Both tasks are done. Now an independent check.'), tool('Agent', { name: 'verifier', subagent_type: 'verification', description: 'checks the result', prompt }));
  }
  const verdict = /VERDICT: (PASS|FAIL|PARTIAL)/.exec(c.heard)?.[1];
  if (verdict === undefined) return reply(text('Waiting for the verifier.'));
  if (uses(c, 'SendMessage') === 1) {
    return reply(text(`The verifier says ${verdict}. Shutting the team down.`), tool('SendMessage', { to: '*', message: { type: 'shutdown_request', reason: 'the goal is done and checked' } }));
  }
  if (verdict !== 'PASS') return reply(text(`Not done: the verifier's verdict is ${verdict} (its report is above). The team is shut down.`));
  return reply(
    text(
      `${LEAD_DEMO_DONE} "Hello, world!" (${GREET}, task #${fix} by coder), and ${TEST} checks it (task #${test} by tester, after #${fix}). ` +
        'The verifier read both files: VERDICT: PASS. The team is shut down.',
    ),
  );
}

/** tester could not run the tests (the person said n) or they failed: stop the team, drop the test task, say what is done. */
function notPassed(c: Conversation, fix: string, test: string): StepInput {
  if (uses(c, 'SendMessage') === 1) {
    return reply(text('The tests did not pass, so there is nothing to verify. Stopping the team.'), tool('SendMessage', { to: '*', message: { type: 'shutdown_request', reason: 'the tests could not pass' } }));
  }
  if (uses(c, 'TaskUpdate') === 3) return reply(tool('TaskUpdate', { taskId: test, status: 'deleted' }));
  return reply(text(`Not done: greet() is fixed (task #${fix} by coder), but the new test did not pass (${fromHeard(c, /the tests did not pass \(([^)]*)\)/)}). I removed task #${test}; run node ${TEST} yourself.`));
}

function coder(c: Conversation): StepInput {
  const mine = fromHeard(c, /Your task is #(\d+)/);
  if (!c.heard.includes(GO)) return reply(text(`Task #${mine} is mine; I start when team-lead says go.`));
  const updates = uses(c, 'TaskUpdate');
  if (updates === 0) return reply(text(`Claiming task #${mine}.`), tool('TaskUpdate', { taskId: mine, status: 'in_progress' }));
  if (!c.used.includes('Read')) return reply(tool('Read', { file_path: GREET }));
  if (!c.used.includes('Write')) return reply(text('An empty or missing name should greet the world.'), tool('Write', { file_path: GREET, content: DEMO_FILES[GREET] }));
  if (updates === 1) return reply(tool('TaskUpdate', { taskId: mine, status: 'completed' }));
  if (!c.used.includes('SendMessage')) {
    const next = fromHeard(c, /task #(\d+) waits for yours/);
    return reply(
      say('tester', `Task #${mine} is done: ${FIX_DONE}. Task #${next} can start.`, `#${mine} done`),
      say('team-lead', `Task #${mine} is done: ${FIX_DONE} (${GREET}).`, `#${mine} done`),
    );
  }
  return reply(text(`Task #${mine} is done and reported.`));
}

function tester(c: Conversation): StepInput {
  const mine = fromHeard(c, /Your task is #(\d+)/);
  if (!c.heard.includes(FIX_DONE)) return reply(text(`Task #${mine} waits for #${fromHeard(c, /blocked by #(\d+)/)}; I start when coder says it is done.`));
  const updates = uses(c, 'TaskUpdate');
  if (updates === 0) return reply(text(`coder is done: claiming task #${mine}.`), tool('TaskUpdate', { taskId: mine, status: 'in_progress' }));
  if (!c.used.includes('Read')) return reply(tool('Read', { file_path: TEST }));
  if (!c.used.includes('Write')) return reply(text('Adding the empty-name check.'), tool('Write', { file_path: TEST, content: DEMO_FILES[TEST] }));
  if (!c.used.includes('Bash')) {
    return reply(text('Now I run the tests: that needs the person’s approval.'), tool('Bash', { command: `node ${TEST}`, description: 'Run the greeting tests' }));
  }
  const passed = c.results.includes('ok 2 - an empty name greets the world');
  if (passed && updates === 1) return reply(tool('TaskUpdate', { taskId: mine, status: 'completed' }));
  if (!c.used.includes('SendMessage')) {
    const result = passed ? `${PASSED} (ok 1, ok 2); task #${mine} is completed.` : `${NOT_PASSED} (${/denied/i.test(c.results) ? 'I was not allowed to run them' : 'see my pane'}).`;
    return reply(say('team-lead', `Ran node ${TEST}: ${result}`, 'test results'));
  }
  return reply(text('Results reported to team-lead.'));
}

function verifier(c: Conversation): StepInput {
  if (!c.used.includes('Read')) return reply(text('Checking the code and the test myself.'), tool('Read', { file_path: GREET }), tool('Read', { file_path: TEST }));
  const handles = c.results.includes("|| 'world'");
  const tested = c.results.includes("greet('')");
  const verdict = handles && tested ? 'PASS' : handles || tested ? 'PARTIAL' : 'FAIL';
  const report =
    `${GREET}: ${handles ? 'an empty or missing name falls back to "world"' : 'no fallback for an empty name'}; ` +
    `${TEST}: ${tested ? 'checks greet("") === "Hello, world!"' : 'no check for an empty name'}.\nVERDICT: ${verdict}`;
  if (!c.used.includes('SendMessage')) return reply(say('team-lead', report, `verdict: ${verdict}`));
  return reply(text(report));
}

/** The stand-in script of `swarm demo`: each agent's turns all ask its brain. */
export function leadDemoScript(): ScriptInput {
  return brainScript({ 'team-lead': lead, coder, tester, verifier }, TURNS_PER_AGENT);
}

/** The demo's team as if read from a team file: no members yet (the lead spawns them). */
export function leadDemoTeamFile(name: string): TeamFile {
  // The demo's person lets teammates edit in their cwd: the lead's Agent {mode: acceptEdits} asks
  // for no more than that (a model can never raise the person's mode: protocol/mode-ceiling.ts).
  return { name, description: 'swarm demo: an agent lead and the teammates it spawns', permissionMode: 'acceptEdits', members: [] };
}
