// docs/commands.md's reference is the commands' own --help as they print it now: a changed help
// text without `npm run docs` fails here, so the page cannot drift from the CLI.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { REFERENCE_FILE, commandReference, withReference } from '../../scripts/docs/commands.js';

describe('the command reference (docs/commands.md)', () => {
  it('is what `npm run docs` makes from the help of every command and subcommand', async () => {
    const page = await readFile(REFERENCE_FILE, 'utf8');
    const reference = await commandReference();
    for (const c of ['launch', 'run', 'team create', 'permissions allow', 'tasks claim', 'doctor']) expect(reference).toContain(`\`swarm ${c}\``);
    expect(withReference(page, reference) === page, 'docs/commands.md is out of date: run `npm run docs`').toBe(true);
  }, 120_000);

  it('refuses a page without its markers rather than append a second reference', () => {
    expect(() => withReference('# commands\n', 'x')).toThrow(/no <!-- commands:start/);
  });
});
