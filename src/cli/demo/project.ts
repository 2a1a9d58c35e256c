// The small project the demos work on: a greeting library with a README, a style note and a test
// a teammate runs (with the person's approval). Written into a fresh temp directory.
// `swarm demo --manual` gets it finished (DEMO_FILES); `swarm demo` (the agent lead's goal: an empty
// name greets the world, with a test) starts from LEAD_DEMO_FILES, where greet() and its test do not
// handle an empty name yet, and its teammates write DEMO_FILES's versions of those two files.
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const DEMO_FILES: Readonly<Record<string, string>> = {
  'package.json': `${JSON.stringify({ name: 'greet', version: '1.0.0', type: 'module', scripts: { test: 'node test/greet.test.js' } }, null, 2)}\n`,
  'README.md': [
    '# greet',
    '',
    'A tiny library that greets people by name.',
    '',
    '    import { greet } from "./src/greet.js";',
    '    greet("Ada"); // "Hello, Ada!"',
    '',
    'Run the tests with `node test/greet.test.js`.',
    '',
  ].join('\n'),
  'src/greet.js': [
    '// Greets someone by name; an empty name greets the world.',
    'export function greet(name) {',
    "  const who = String(name ?? '').trim() || 'world';",
    '  return `Hello, ${who}!`;',
    '}',
    '',
  ].join('\n'),
  'test/greet.test.js': [
    "import assert from 'node:assert/strict';",
    "import { greet } from '../src/greet.js';",
    '',
    "assert.equal(greet('Ada'), 'Hello, Ada!');",
    "console.log('ok 1 - greets by name');",
    "assert.equal(greet(''), 'Hello, world!');",
    "console.log('ok 2 - an empty name greets the world');",
    '',
  ].join('\n'),
  'docs/STYLE.md': ['# Style', '', '- Short sentences.', '- Every function has a one-line comment.', '- Examples in the README must run.', ''].join('\n'),
};

/** The lead demo's starting point: greet() without the empty-name case, and a test without it. */
export const LEAD_DEMO_FILES: Readonly<Record<string, string>> = {
  ...DEMO_FILES,
  'src/greet.js': ['// Greets someone by name.', 'export function greet(name) {', '  return `Hello, ${name}!`;', '}', ''].join('\n'),
  'test/greet.test.js': [
    "import assert from 'node:assert/strict';",
    "import { greet } from '../src/greet.js';",
    '',
    "assert.equal(greet('Ada'), 'Hello, Ada!');",
    "console.log('ok 1 - greets by name');",
    '',
  ].join('\n'),
};

/** Write a demo project (`files`, default the finished one) under `dir` (created); returns `dir`. */
export async function writeDemoProject(dir: string, files: Readonly<Record<string, string>> = DEMO_FILES): Promise<string> {
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(dir, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, text);
  }
  return dir;
}
