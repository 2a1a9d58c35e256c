// Usage errors that yargs words badly, in process (cli/main.ts): a flag whose value starts with "-"
// (yargs reads `--host -oProxyCommand=x` as --host with no value plus the short flags o, P, r, ...,
// and strict mode would list those letters as unknown arguments), and `swarm completion <shell>`
// (yargs' completion takes no word: "unknown command completion, did you mean kill?").
import { describe, expect, it } from 'vitest';
import { completionWordMessage, flagAsValueMessage, unknownTypedFlags } from '../../src/cli/main.js';

const VALUE_FLAGS = ['host', 'prompt', 'p', 'team', 't', 'ready-timeout'];
const KNOWN = [...VALUE_FLAGS, 'json', 'help', 'h', 'version'];

describe('a value flag followed by a word read as flags', () => {
  it('names the flag and the word, and how to give such a value', () => {
    expect(flagAsValueMessage(['spawn', 'bob', '--host', '-oProxyCommand=touch x'], VALUE_FLAGS, KNOWN)).toBe(
      '--host got no value: "-oProxyCommand=touch x" starts with "-", so it was read as flags; put the value right after --host (a value that starts with "-" as --host=<value>)',
    );
    expect(flagAsValueMessage(['spawn', 'bob', '-p', '-x'], VALUE_FLAGS, KNOWN)).toBe(
      '-p got no value: "-x" starts with "-", so it was read as flags; put the value right after -p (a value that starts with "-" as -p=<value>)',
    );
  });

  it('says nothing otherwise: a boolean flag, a value given with =, a known short flag, a negative number, --', () => {
    for (const argv of [
      ['status', '--json', '-x'],
      ['spawn', 'bob', '--host=-oProxyCommand=x'],
      ['spawn', 'bob', '--host', 'h', '-x'],
      ['spawn', 'bob', '--prompt', '-h'],
      ['spawn', 'bob', '--ready-timeout', '-5'],
      ['spawn', 'bob', '--prompt', '--', 'x'],
      ['spawn', 'bob', '--host'],
    ]) {
      expect(flagAsValueMessage(argv, VALUE_FLAGS, KNOWN), argv.join(' ')).toBeUndefined();
    }
  });
});

describe('swarm completion <shell>', () => {
  it('says which shells work and how to install the script, whatever shell was named', () => {
    for (const word of ['fish', 'bash', 'zsh', 'powershell']) {
      expect(completionWordMessage(['completion', word])).toBe(
        `swarm completion takes no shell name (got "${word}"): it prints the script for the shell $SHELL names, bash or zsh (no other shell is supported); in bash: swarm completion >> ~/.bashrc, in zsh: swarm completion >> ~/.zshrc`,
      );
    }
  });

  // `completion --help` is the command's help (help-errors.test.ts), so it is left to yargs too.
  it('leaves swarm completion alone, with a flag after it, and every other command', () => {
    for (const argv of [['completion'], ['completion', '--help'], ['send', 'completion', 'fish'], ['--get-yargs-completions', 'swarm', 'completion', 'fi'], []]) {
      expect(completionWordMessage(argv), argv.join(' ')).toBeUndefined();
    }
  });
});

describe('the long flags typed that the command does not know', () => {
  it('lists them as typed, knowing --no-x, dashed and camel-case spellings, and nothing after --', () => {
    const known = ['prompt', 'p', 'dry-run', 'dryRun', 'console', 'team'];
    expect(unknownTypedFlags(['spawn', 'bob', '--promt', 'x', '--team=t'], known)).toEqual(['promt']);
    expect(unknownTypedFlags(['launch', 'x.yaml', '--dry-run', '--no-console', '--no-consol'], known)).toEqual(['no-consol']);
    expect(unknownTypedFlags(['run', '--', '--promt'], known)).toEqual([]);
  });
});
