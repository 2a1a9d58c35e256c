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

  // Every option that writes or runs a program, as its own word, with `=value` and (short ones)
  // with the value attached: dropping any one of them from the list lets it through.
  it.each([
    'find . -exec rm {} +',
    'find . -execdir rm {} +',
    'find . -ok rm {} +',
    'find . -okdir rm {} +',
    'find . -delete',
    'find . -fprint out',
    'find . -fprint0 out',
    'find . -fprintf out %p',
    'find . -fls out',
    'sort -o out x',
    'sort -oout x',
    'sort -o-- x',
    'sort --output out x',
    'sort --output=out x',
    'rg --pre cat x',
    'rg --pre=cat x',
    'tree -o out',
    'date -s 2020-01-01',
    'date --set 2020-01-01',
    'date --set=2020-01-01',
  ])('refuses the writing option in %s', (cmd) => {
    const program = cmd.split(' ')[0]!;
    expect(readOnlyRefusal(cmd)).toMatch(new RegExp(`^${program} -\\S+ can write files or run programs$`));
  });

  it.each(['git diff --output out', 'git log --output out', 'git show --output=out', 'git diff --output=out'])('refuses the writing git option in %s', (cmd) =>
    expect(readOnlyRefusal(cmd)).toMatch(/^git (diff|log|show) --output\S* writes a file$/),
  );

  it.each(['git grep -O x', 'git grep -Ovim x', 'git grep -nO x', 'git grep --open-files-in-pager=vim x', 'git grep --open-files-in-pager x'])('refuses git grep opening a pager in %s', (cmd) =>
    expect(readOnlyRefusal(cmd)).toMatch(/^git grep \S+ runs a program \(a pager\)$/),
  );

  it.each(['git grep -o foo', 'git grep -no foo', 'git ls-files -o', 'git log -n 3'])('allows the read-only git option in %s (-o is only-matching, others)', (cmd) =>
    expect(readOnlyRefusal(cmd)).toBeUndefined(),
  );

  // The options next to the writing ones stay allowed: a long option that starts like one, a short
  // option of another letter, a file name ending in the option, the plain forms of date and tree.
  it.each(['rg --pre-glob "*.gz" foo', 'sort -n -k2 x', 'sort x-o', 'git diff --stat', 'git log -p', 'date -u', 'date +%s', 'tree -L 2', 'find . -newer x -print', 'find . -executable'])(
    'allows the read-only options in %s',
    (cmd) => expect(readOnlyRefusal(cmd)).toBeUndefined(),
  );

  // The list the description and SPEC §10 promise: each program runs on its own, and each read-only git command.
  it.each([
    ...['ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'file', 'stat', 'du', 'df', 'basename', 'dirname', 'realpath', 'readlink', 'which', 'whoami', 'uname', 'diff', 'cmp', 'cut', 'tr', 'nl', 'grep', 'egrep', 'fgrep', 'true', 'false'],
    ...['find', 'sort', 'rg', 'tree', 'date'],
    ...['status', 'log', 'diff', 'show', 'ls-files', 'blame', 'rev-parse', 'grep', 'describe', 'shortlog'].map((sub) => `git ${sub}`),
  ])('allows the program %s', (program) => expect(readOnlyRefusal(`${program} x`)).toBeUndefined());

  it('names what to use instead, word for word', () => {
    const programs = 'basename, cat, cmp, cut, date, df, diff, dirname, du, echo, egrep, false, fgrep, file, find, git, grep, head, ls, nl, pwd, readlink, realpath, rg, sort, stat, tail, tr, tree, true, uname, wc, which, whoami';
    const git = 'status, log, diff, show, ls-files, blame, rev-parse, grep, describe, shortlog';
    expect(readOnlyRefusal('rm x')).toBe(`rm is not on the read-only list (${programs})`);
    expect(readOnlyRefusal('git')).toBe(`git is not one of the read-only git commands (${git})`);
    expect(readOnlyRefusal('git push')).toBe(`git push is not one of the read-only git commands (${git})`);
    expect(readOnlyRefusal('ls | | wc')).toBe('an empty command in the pipeline');
    expect(readOnlyRefusal('ls |')).toBe('an empty command in the pipeline');
    expect(readOnlyRefusal('ls # rm x')).toBe('a comment');
    expect(readOnlyRefusal('cat <(ls)')).toBe('command or process substitution');
    expect(readOnlyRefusal('ls >(cat)')).toBe('command or process substitution');
    // A program named by a variable is that word, never expanded to an allowed one.
    expect(readOnlyRefusal('$PAGER /etc/passwd')).toBe(`$PAGER is not on the read-only list (${programs})`);
    // Parentheses inside an argument are no substitution.
    expect(readOnlyRefusal('grep -E "(a|b)" src')).toBeUndefined();
  });
});
