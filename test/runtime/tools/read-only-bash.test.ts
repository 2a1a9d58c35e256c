// The read-only Bash check of Explore, Plan and verification (SPEC §10): plain read-only commands
// and pipelines pass; writes, redirections, chains, substitutions and writing options are refused.
import { describe, expect, it } from 'vitest';
import { readOnlyRefusal } from '../../../src/runtime/tools/read-only-bash.js';

describe('readOnlyRefusal', () => {
  it.each(['ls -la', 'cat src/a.ts | head -n 20', 'grep -rn "a|b;c" src', 'find . -name "*.ts"', 'git log --oneline -n 5', 'git diff HEAD~1 -- src', 'wc -l *.md', 'sort -n x'])(
    'allows %s',
    (cmd) => expect(readOnlyRefusal(cmd)).toBeUndefined(),
  );

  it.each([
    ['echo hi > out.txt', 'the shell operator >'],
    ['cat a >> b', 'the shell operator >>'],
    ['ls && rm -rf x', 'the shell operator &&'],
    ['ls; rm x', 'the shell operator ;'],
    ['ls\nrm x', 'several lines'],
    ['echo $(rm x)', 'substitution'],
    ['echo `rm x`', 'substitution'],
    ['rm -rf x', 'rm is not on the read-only list'],
    ['FOO=1 ls', 'FOO=1 is not on the read-only list'],
    ['find . -delete', 'find -delete can write files'],
    ['find . -exec rm {} ;', 'the shell operator ;'],
    ['find . -exec rm {} +', 'find -exec can write files'],
    ['sort -o out x', 'sort -o can write files'],
    ['git commit -m x', 'git commit is not one of the read-only git commands'],
    ['git diff --output=x', 'git diff --output=x writes a file'],
    ['ls | xargs rm', 'xargs is not on the read-only list'],
    ['sleep 1 &', 'the shell operator &'],
  ])('refuses %s', (cmd, why) => expect(readOnlyRefusal(cmd)).toContain(why));
});
