import { describe, expect, it } from 'vitest';
import { isSwarmError } from '../../src/protocol/errors.js';
import {
  checkRule,
  evaluate,
  evaluateWithReason,
  formatRule,
  parseRule,
  ruleMatches,
  suggestRule,
  type ToolRequest,
} from '../../src/permissions/rules.js';

const CWD = '/work/proj';
const bash = (command: string): ToolRequest => ({ toolName: 'Bash', input: { command }, cwd: CWD });
const file = (toolName: string, file_path: string): ToolRequest => ({ toolName, input: { file_path }, cwd: CWD });
const allowOnly = (...allow: string[]) => ({ allow, deny: [] });
/** What `fn` threw: its SwarmError kind (undefined for any other error) and its message. */
function thrown(fn: () => unknown): { kind: string | undefined; message: string } {
  try {
    fn();
  } catch (e) {
    return { kind: isSwarmError(e) ? e.kind : undefined, message: (e as Error).message };
  }
  throw new Error('expected a throw');
}

describe('parseRule / formatRule', () => {
  it.each([
    ['Bash', { tool: 'Bash' }, 'Bash'],
    ['  Read  ', { tool: 'Read' }, 'Read'],
    ['Bash(npm test)', { tool: 'Bash', pattern: 'npm test' }, 'Bash(npm test)'],
    ['Bash( npm test :*)', { tool: 'Bash', pattern: 'npm test:*' }, 'Bash(npm test:*)'],
    ['Bash(echo (hi):*)', { tool: 'Bash', pattern: 'echo (hi):*' }, 'Bash(echo (hi):*)'],
    ['Edit(src/**)', { tool: 'Edit', pattern: 'src/**' }, 'Edit(src/**)'],
    ['Edit(./src/)', { tool: 'Edit', pattern: 'src/**' }, 'Edit(src/**)'],
    ['Read(//etc//hosts)', { tool: 'Read', pattern: '/etc/hosts' }, 'Read(/etc/hosts)'],
    ['Read(/)', { tool: 'Read', pattern: '/**' }, 'Read(/**)'],
    ['Read(/.)', { tool: 'Read', pattern: '/**' }, 'Read(/**)'], // the root spelled `/.` is the root too
    ['Bash( npm test )', { tool: 'Bash', pattern: 'npm test' }, 'Bash(npm test)'], // blanks around an exact command
    ['Edit( src/** )', { tool: 'Edit', pattern: 'src/**' }, 'Edit(src/**)'], // blanks around a glob
    ['Grep(.)', { tool: 'Grep', pattern: '**' }, 'Grep(**)'],
    ['Write(src/*.{ts,tsx})', { tool: 'Write', pattern: 'src/*.{ts,tsx}' }, 'Write(src/*.{ts,tsx})'],
    ['mcp__github__create_issue', { tool: 'mcp__github__create_issue' }, 'mcp__github__create_issue'],
  ])('parses %j', (s, rule, formatted) => {
    expect(parseRule(s)).toEqual(rule);
    expect(formatRule(parseRule(s))).toBe(formatted);
  });

  it.each([
    ['', /expected Tool/],
    ['Bash(npm test', /expected Tool/],
    ['Bash (npm test)', /expected Tool/],
    ['1Bash', /tool name/],
    ['Ba$h', /tool name/],
    ['Bash()', /write Bash/],
    ['Bash(*)', /write Bash/],
    ['Bash(:*)', /write Bash/],
    ['Bash(npm run *)', /trailing `:\*`/],
    ['Bash(npm test && rm -rf /)', /cannot contain/],
    ['Bash(npm test; ls:*)', /cannot contain/],
    ['Bash(cat $(x))', /cannot contain/],
    ['Bash(a\nb)', /control characters/],
    ['Edit()', /empty/],
    ['Edit(../x/**)', /`\.\.`/],
    ['Edit(src/../../x)', /`\.\.`/],
    ['Read(~/.ssh/**)', /absolute path/],
    ['Edit(src/{a,b)', /unclosed/],
    ['Edit(src/{a,{b}})', /nested/],
    ['Edit(src\\)', /escapes nothing/],
    ['WebFetch(domain:example.com)', /takes no pattern/],
    ['mcp__x(y)', /takes no pattern/],
  ])('rejects %j with a one-line message', (s, message) => {
    let error: unknown;
    try {
      parseRule(s);
    } catch (e) {
      error = e;
    }
    expect(isSwarmError(error, 'invalid_input')).toBe(true);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('names the tools that take a pattern when another one is given one', () => {
    expect(thrown(() => parseRule('WebFetch(domain:example.com)'))).toEqual({
      kind: 'invalid_input',
      message:
        'bad permission rule "WebFetch(domain:example.com)": WebFetch takes no pattern; write just WebFetch (patterns: Bash, Read, Edit, MultiEdit, Write, NotebookEdit, Glob, Grep)',
    });
  });
});

describe('evaluate: Bash', () => {
  it.each([
    // [rule, command, decision when the rule is the only allow rule]
    ['Bash', 'anything; at all && more', 'allow'],
    ['Bash(npm test)', 'npm test', 'allow'],
    ['Bash(npm test)', '  npm test  ', 'allow'],
    ['Bash(npm test)', 'npm test --watch', 'ask'],
    ['Bash(npm test)', 'npm  test', 'ask'],
    ['Bash(npm test:*)', 'npm test', 'allow'],
    ['Bash(npm test:*)', 'npm test -- --run', 'allow'],
    ['Bash(npm test:*)', 'npm test\t-x', 'allow'],
    ['Bash(npm test:*)', 'npm testing', 'ask'],
    ['Bash(npm test:*)', 'npm tes', 'ask'],
    ['Bash(npm test:*)', 'pnpm test', 'ask'],
    // compound commands never match an exact or prefix rule
    ['Bash(npm test:*)', 'npm test && rm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test || rm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test; rm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test & rm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test | sh', 'ask'],
    ['Bash(npm test:*)', 'npm test `rm -rf /`', 'ask'],
    ['Bash(npm test:*)', 'npm test $(rm -rf /)', 'ask'],
    ['Bash(npm test:*)', 'npm test > /etc/passwd', 'ask'],
    ['Bash(npm test:*)', 'npm test < /dev/zero', 'ask'],
    ['Bash(npm test:*)', 'npm test\nrm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test\rrm -rf /', 'ask'],
    ['Bash(npm test:*)', 'npm test -- "a;b"', 'ask'], // quoted operators are asked too
    ['Bash(git status:*)', 'git status --short', 'allow'],
  ] as const)('%s vs %j → %s', (rule, command, decision) => {
    expect(evaluate(allowOnly(rule), bash(command))).toBe(decision);
  });

  it('asks when the input has no command string', () => {
    expect(evaluate(allowOnly('Bash(npm test:*)'), { toolName: 'Bash', input: {}, cwd: CWD })).toBe('ask');
    expect(evaluate(allowOnly('Bash(npm test:*)'), { toolName: 'Bash', input: null, cwd: CWD })).toBe('ask');
    expect(evaluate(allowOnly('Bash'), { toolName: 'Bash', input: null, cwd: CWD })).toBe('allow');
  });

  it('lets deny beat allow', () => {
    const rules = { allow: ['Bash', 'Bash(git push:*)'], deny: ['Bash(git push:*)'] };
    expect(evaluate(rules, bash('git push origin main'))).toBe('deny');
    expect(evaluate(rules, bash('git pull'))).toBe('allow');
    expect(evaluateWithReason(rules, bash('git push'))).toEqual({ decision: 'deny', rule: 'Bash(git push:*)' });
    expect(evaluateWithReason(rules, bash('ls'))).toEqual({ decision: 'allow', rule: 'Bash' });
    expect(evaluateWithReason({ allow: [], deny: [] }, bash('ls'))).toEqual({ decision: 'ask' });
  });

  it.each([
    ['rm -rf build', 'deny'],
    ['ls; rm -rf /', 'deny'],
    ['ls && rm -rf /', 'deny'],
    ['ls | xargs rm', 'ask'], // best effort: xargs is not unwrapped
    ['echo $(rm -rf /)', 'deny'],
    ['echo `rm -rf /`', 'deny'],
    ['(rm -rf /)', 'deny'],
    ['if true; then rm -rf /; fi', 'deny'],
    ['FOO=1 rm -rf /', 'deny'],
    ['sudo rm -rf /', 'deny'],
    ['env A=b rm -rf /', 'deny'],
    ['/bin/rm -rf /', 'deny'],
    // every wrapper is dropped, alone or in a shell keyword position
    ['command rm x', 'deny'],
    ['exec rm x', 'deny'],
    ['nohup rm x', 'deny'],
    ['time rm x', 'deny'],
    ['nice rm x', 'deny'],
    ['for f in a b; do rm $f; done', 'deny'],
    ['if test -e x; then :; else rm x; fi', 'deny'],
    ['! rm x', 'deny'],
    ['\fsudo  rm -rf /', 'deny'], // leading whitespace of any kind (what the matcher trims) before a wrapper
    ['rm', 'deny'],
    ['rmdir x', 'ask'],
    ['echo rm', 'ask'],
  ] as const)('deny Bash(rm:*) vs %j → %s', (command, decision) => {
    expect(evaluate({ allow: [], deny: ['Bash(rm:*)'] }, bash(command))).toBe(decision);
  });

  it.each([
    // a deny rule naming a wrapper still matches the wrapper alone (nothing left after dropping it)
    ['Bash(env:*)', 'env', 'deny'],
    ['Bash(env:*)', 'env FOO=1', 'deny'],
    // the command with its wrappers dropped, first word kept as written (a path stays a path)
    ['Bash(./deploy.sh prod:*)', 'FOO=1  ./deploy.sh\tprod --force', 'deny'],
    // ... and with the first word's directory stripped, the rest of the words kept once
    ['Bash(rm -rf:*)', '/bin/rm -rf /', 'deny'],
    ['Bash(rm -rf:*)', 'sudo /bin/rm -rf /', 'deny'],
  ] as const)('deny %s vs %j → %s', (rule, command, decision) => {
    expect(evaluate({ allow: ['Bash'], deny: [rule] }, bash(command))).toBe(decision);
  });
});

describe('evaluate: paths', () => {
  it.each([
    // [allow rule, tool, file_path, decision]
    ['Edit(src/**)', 'Edit', 'src/a.ts', 'allow'],
    ['Edit(src/**)', 'Edit', '/work/proj/src/deep/er/a.ts', 'allow'],
    ['Edit(src/**)', 'Edit', 'lib/a.ts', 'ask'],
    ['Edit(src/**)', 'Edit', 'srcx/a.ts', 'ask'],
    ['Edit(src/*)', 'Edit', 'src/a.ts', 'allow'],
    ['Edit(src/*)', 'Edit', 'src/deep/a.ts', 'ask'], // * does not cross /
    ['Edit(src/*.ts)', 'Edit', 'src/a.ts', 'allow'],
    ['Edit(src/*.ts)', 'Edit', 'src/a.js', 'ask'],
    ['Edit(src/?.ts)', 'Edit', 'src/ab.ts', 'ask'],
    ['Edit(src/*.{ts,tsx})', 'Edit', 'src/a.tsx', 'allow'],
    ['Edit(**/*.md)', 'Edit', 'README.md', 'allow'],
    ['Edit(**/*.md)', 'Edit', 'docs/a/b.md', 'allow'],
    ['Edit(*.md)', 'Edit', 'docs/b.md', 'ask'],
    ['Edit(src/a\\*.ts)', 'Edit', 'src/a*.ts', 'allow'],
    ['Edit(src/a\\*.ts)', 'Edit', 'src/ab.ts', 'ask'],
    // dot files: not matched by wildcards in allow rules unless spelled out
    ['Edit(src/**)', 'Edit', 'src/.env', 'ask'],
    ['Edit(**)', 'Edit', '.git/hooks/pre-commit', 'ask'],
    ['Edit(*)', 'Edit', '.bashrc', 'ask'],
    ['Edit(.github/**)', 'Edit', '.github/workflows/ci.yml', 'allow'],
    ['Edit(**/.env)', 'Edit', 'src/.env', 'allow'],
    ['Edit(src/.*)', 'Edit', 'src/.env', 'allow'],
    // .. escapes and normalisation
    ['Edit(src/**)', 'Edit', 'src/../../etc/passwd', 'ask'],
    ['Edit(src/**)', 'Edit', 'src/../secret.txt', 'ask'],
    ['Edit(src/**)', 'Edit', 'lib/../src/a.ts', 'allow'],
    ['Edit(src/**)', 'Edit', './src/./a.ts', 'allow'],
    ['Edit(src/**)', 'Edit', '/work/proj-other/src/a.ts', 'ask'],
    ['Edit(**)', 'Edit', '/work/other/a.ts', 'ask'],
    ['Edit(**)', 'Edit', '../a.ts', 'ask'],
    // absolute patterns
    ['Edit(/tmp/**)', 'Edit', '/tmp/x/y', 'allow'],
    ['Edit(/tmp/**)', 'Edit', '/tmp/../etc/passwd', 'ask'],
    ['Edit(/work/proj/src/**)', 'Edit', 'src/a.ts', 'allow'],
    ['Read(/etc/hosts)', 'Read', '/etc/hosts', 'allow'],
    ['Read(/etc/hosts)', 'Read', '/etc/hostsx', 'ask'],
    // families
    ['Edit(src/**)', 'Write', 'src/new.ts', 'allow'],
    ['Edit(src/**)', 'MultiEdit', 'src/a.ts', 'allow'],
    ['Write(src/**)', 'Edit', 'src/a.ts', 'ask'],
    ['Read(src/**)', 'Edit', 'src/a.ts', 'ask'],
    ['Edit', 'Write', '/anything', 'allow'],
    // other tools are not matched by path rules
    ['Edit(src/**)', 'Bash', 'src/a.ts', 'ask'],
  ] as const)('%s on %s %j → %s', (rule, tool, p, decision) => {
    expect(evaluate(allowOnly(rule), file(tool, p))).toBe(decision);
  });

  it('matches NotebookEdit on notebook_path', () => {
    const req: ToolRequest = { toolName: 'NotebookEdit', input: { notebook_path: 'nb/a.ipynb' }, cwd: CWD };
    expect(evaluate(allowOnly('Edit(nb/**)'), req)).toBe('allow');
    expect(evaluate(allowOnly('NotebookEdit(nb/*)'), req)).toBe('allow');
  });

  it('matches Glob/Grep on path, defaulting to the cwd', () => {
    const grep = (input: object): ToolRequest => ({ toolName: 'Grep', input, cwd: CWD });
    expect(evaluate(allowOnly('Grep(src/**)'), grep({ pattern: 'x', path: 'src' }))).toBe('allow');
    expect(evaluate(allowOnly('Grep(src/**)'), grep({ pattern: 'x', path: 'src/a' }))).toBe('allow');
    expect(evaluate(allowOnly('Grep(src/**)'), grep({ pattern: 'x' }))).toBe('ask');
    expect(evaluate(allowOnly('Grep(**)'), grep({ pattern: 'x' }))).toBe('allow');
    expect(evaluate(allowOnly('Read(src/**)'), grep({ pattern: 'x', path: 'src' }))).toBe('allow');
    expect(evaluate(allowOnly('Grep(**)'), grep({ pattern: 'x', path: '/etc' }))).toBe('ask');
    const glob = (input: object): ToolRequest => ({ toolName: 'Glob', input, cwd: CWD });
    expect(evaluate(allowOnly('Glob(src/**)'), glob({ pattern: '**/*.ts', path: 'src' }))).toBe('allow');
    expect(evaluate(allowOnly('Glob(src/**)'), glob({ pattern: '../../**', path: 'src' }))).toBe('ask');
    expect(evaluate(allowOnly('Glob(**)'), glob({ pattern: '/etc/*' }))).toBe('ask');
  });

  it('asks when the path is missing or not a string', () => {
    expect(evaluate(allowOnly('Edit(**)'), { toolName: 'Edit', input: {}, cwd: CWD })).toBe('ask');
    expect(evaluate(allowOnly('Edit(**)'), { toolName: 'Edit', input: { file_path: 3 }, cwd: CWD })).toBe('ask');
    expect(evaluate(allowOnly('Edit(**)'), { toolName: 'Edit', input: 'src/a', cwd: CWD })).toBe('ask');
    expect(evaluate(allowOnly('Edit(**)'), { toolName: 'Edit', input: undefined, cwd: CWD })).toBe('ask');
  });

  it('asks when the path is empty, and when a Glob/Grep path is there but not a string (only a missing one means the cwd)', () => {
    expect(evaluate(allowOnly('Edit(**)'), file('Edit', ''))).toBe('ask');
    for (const path of ['', null, 3]) {
      expect(evaluate(allowOnly('Grep(**)'), { toolName: 'Grep', input: { pattern: 'x', path }, cwd: CWD }), String(path)).toBe('ask');
    }
  });

  it('reads the Glob `pattern` input only for Glob, only in allow rules, and never throws without one', () => {
    const glob = (input: object): ToolRequest => ({ toolName: 'Glob', input, cwd: CWD });
    const grep = (input: object): ToolRequest => ({ toolName: 'Grep', input, cwd: CWD });
    // Grep's pattern is a regex, not a path: a leading `/` or a `..` in it says nothing about where it searches
    expect(evaluate(allowOnly('Grep(src/**)'), grep({ pattern: '/api/v1', path: 'src' }))).toBe('allow');
    expect(evaluate(allowOnly('Grep(src/**)'), grep({ pattern: '../', path: 'src' }))).toBe('allow');
    expect(evaluate(allowOnly('Read(src/**)'), grep({ pattern: '../', path: 'src' }))).toBe('allow');
    // a deny rule still denies a Glob of its directory, whatever the Glob pattern
    const denySecrets = { allow: ['Glob'], deny: ['Glob(secrets/**)'] };
    expect(evaluate(denySecrets, glob({ pattern: '/etc/*', path: 'secrets' }))).toBe('deny');
    expect(evaluate(denySecrets, glob({ pattern: '../**', path: 'secrets' }))).toBe('deny');
    // odd tool input: no `pattern` at all
    expect(evaluate(allowOnly('Glob(src/**)'), glob({ path: 'src' }))).toBe('allow');
  });

  it('never allows a target outside the cwd, even for a glob whose first segment can match `..`', () => {
    expect(evaluate(allowOnly('Edit(.?/**)'), file('Edit', '.a/x'))).toBe('allow'); // the glob does match inside
    expect(evaluate(allowOnly('Edit(.?/**)'), file('Edit', '../a'))).toBe('ask');
    expect(evaluate(allowOnly('Edit(.[.]/**)'), file('Edit', '../x/y'))).toBe('ask');
    expect(evaluate(allowOnly('Edit(.*)'), file('Edit', '..'))).toBe('ask');
  });

  it('a hand-built pattern rule for a tool without a path field never matches, whatever the input', () => {
    const rule = { tool: 'WebFetch', pattern: '**' };
    for (const input of [{}, { url: 'https://x' }, { file_path: 'a.ts' }, { undefined: 'a.ts' }]) {
      for (const mode of ['allow', 'deny'] as const) {
        expect(ruleMatches(rule, { toolName: 'WebFetch', input, cwd: CWD }, mode), `${JSON.stringify(input)} ${mode}`).toBe(false);
      }
    }
  });

  it.each([
    ['Edit(secrets/**)', 'src/../secrets/k', 'deny'],
    ['Edit(secrets/**)', 'secrets/.env', 'deny'], // deny wildcards match dot files
    ['Edit(**)', '.git/config', 'deny'],
    ['Edit(*)', '.bashrc', 'deny'],
    ['Edit(secrets/**)', '../proj/secrets/k', 'deny'],
    ['Edit(secrets/**)', '/elsewhere/secrets/k', 'ask'],
    ['Edit(**/.env)', 'a/b/.env', 'deny'],
  ] as const)('deny %s vs %j → %s (deny beats allow Edit)', (rule, p, decision) => {
    expect(evaluate({ allow: ['Edit'], deny: [rule] }, file('Edit', p))).toBe(decision === 'ask' ? 'allow' : decision);
  });

  it('applies deny Read rules to Grep', () => {
    const req: ToolRequest = { toolName: 'Grep', input: { pattern: 'password', path: 'config' }, cwd: CWD };
    expect(evaluate({ allow: ['Grep'], deny: ['Read(config/**)'] }, req)).toBe('deny');
  });
});

describe('evaluate: the glob cases the two hand-written matchers disagreed on', () => {
  const rules = (allow: string[], deny: string[] = []) => ({ allow, deny });
  it.each([
    // character classes (the rules matcher used to read `[` literally)
    [rules(['Edit(src/[abc].ts)']), 'src/b.ts', 'allow'],
    [rules(['Edit(src/[abc].ts)']), 'src/d.ts', 'ask'],
    [rules(['Edit(src/[abc].ts)']), 'src/[abc].ts', 'allow'], // spelled exactly like the pattern
    [rules(['Edit(src/[!a]*.ts)']), 'src/b.ts', 'allow'],
    [rules(['Edit(src/[!a]*.ts)']), 'src/a.ts', 'ask'],
    [rules(['Edit(src/[a-c]?.ts)']), 'src/b1.ts', 'allow'],
    [rules([], ['Edit(src/[ab].ts)']), 'src/a.ts', 'deny'],
    // dot files: allow wildcards skip them, deny wildcards match them
    [rules(['Edit(**)']), '.git/config', 'ask'],
    [rules(['Edit(src/[.]env)']), 'src/.env', 'allow'], // a class naming `.` spells the dot
    [rules(['Edit(src/[!a]env)']), 'src/.env', 'ask'], // a negated class does not
    [rules(['Edit(src/[^a]*)']), 'src/.env', 'ask'],
    [rules(['Edit(src/?env)']), 'src/.env', 'ask'],
    [rules(['Edit(src/{a,.env})']), 'src/.env', 'allow'], // a brace alternative does
    [rules([], ['Edit(**)']), '.git/config', 'deny'],
    [rules([], ['Edit(src/*)']), 'src/.env', 'deny'],
    [rules([], ['Edit(**/*.pem)']), '.ssh/.k.pem', 'deny'],
    [rules(['Edit(**)'], ['Edit(**/.env)']), 'a/b/.env', 'deny'],
    // `**` at the start, middle and end, zero segments included
    [rules(['Edit(**/*.md)']), 'README.md', 'allow'],
    [rules(['Edit(docs/**/*.md)']), 'docs/a.md', 'allow'],
    [rules(['Edit(docs/**/*.md)']), 'docs/x/.hidden/a.md', 'ask'],
    [rules(['Edit(/**/*.md)']), '/README.md', 'allow'],
    // braces
    [rules(['Edit({src,lib}/**)']), 'lib/a.ts', 'allow'],
    [rules(['Edit({src,lib}/**)']), 'test/a.ts', 'ask'],
    [rules(['Edit(v{1..3}/*)']), 'v2/a', 'allow'],
    [rules(['Edit(v{1..3}/*)']), 'v4/a', 'ask'],
    // literal characters that a glob library would otherwise read as syntax
    [rules(['Edit(!secret)']), 'other', 'ask'], // not "everything but secret"
    [rules(['Edit(!secret)']), '!secret', 'allow'],
    [rules([], ['Edit(*(1).txt)']), 'x(1).txt', 'deny'],
    [rules(['Edit(a(b)c)']), 'abc', 'ask'],
    [rules(['Edit(a|b)']), 'a', 'ask'],
    [rules(['Edit(@(a))']), 'a', 'ask'],
  ] as const)('%j on Edit %j → %s', (set, p, decision) => {
    expect(evaluate(set, file('Edit', p))).toBe(decision);
  });

  it('the root itself (the cwd, or `/`) is matched only by all-`**` globs', () => {
    const grep = (p: string): ToolRequest => ({ toolName: 'Grep', input: { pattern: 'x', path: p }, cwd: CWD });
    expect(evaluate(allowOnly('Grep(**)'), grep('.'))).toBe('allow');
    expect(evaluate(allowOnly('Grep(*)'), grep('.'))).toBe('ask');
    expect(evaluate(allowOnly('Grep(/**)'), grep('/'))).toBe('allow');
    expect(evaluate(allowOnly('Grep(/*)'), grep('/'))).toBe('ask');
    expect(evaluate(allowOnly('Grep(/tmp/**)'), grep('/tmp'))).toBe('allow');
  });
});

describe('evaluate: tool names', () => {
  it.each([
    ['Read', 'Read', 'allow'],
    ['Read', 'Glob', 'allow'],
    ['Edit', 'Read', 'ask'],
    ['mcp__github__create_issue', 'mcp__github__create_issue', 'allow'],
    ['mcp__github', 'mcp__github__create_issue', 'allow'],
    ['mcp__github', 'mcp__githubx__create_issue', 'ask'],
    ['mcp__git', 'mcp__github__create_issue', 'ask'],
    ['mcp__my_server', 'mcp__my_server__do_thing', 'allow'], // a server name may hold single underscores
    ['mcp__github__create_issue', 'mcp__github__create_issue__x', 'ask'], // a tool rule is not a server rule
    ['xmcp__github', 'xmcp__github__create_issue', 'ask'], // only names starting with mcp__ cover others
    ['WebFetch', 'webfetch', 'ask'],
  ] as const)('%s vs tool %s → %s', (rule, toolName, decision) => {
    expect(evaluate(allowOnly(rule), { toolName, input: {}, cwd: CWD })).toBe(decision);
  });

  it('throws on a bad rule string or a relative cwd', () => {
    expect(() => evaluate({ allow: ['Bash(x'], deny: [] }, bash('x'))).toThrow(/bad permission rule/);
    expect(() => evaluate({ allow: [], deny: ['Edit(../x)'] }, bash('x'))).toThrow(/bad permission rule/);
    expect(() => evaluate(allowOnly('Bash'), { ...bash('x'), cwd: 'rel' })).toThrow(/absolute path/);
    expect(thrown(() => evaluateWithReason(allowOnly('Bash'), { ...bash('x'), cwd: 'rel' }))).toEqual({
      kind: 'invalid_input',
      message: 'permission request cwd: expected an absolute path, got "rel"',
    });
  });
});

describe('suggestRule', () => {
  it.each([
    [bash('npm test'), 'Bash(npm test:*)'],
    [bash('git status --short'), 'Bash(git status:*)'],
    [bash('ls'), 'Bash(ls:*)'],
    [bash('ls -la'), 'Bash(ls:*)'],
    [bash('  cargo build --release'), 'Bash(cargo build:*)'],
    [bash('npm run build -- --watch'), 'Bash(npm run build:*)'],
    [bash('cat README.md'), 'Bash(cat:*)'],
    [bash('./scripts/x.sh arg'), 'Bash(./scripts/x.sh arg:*)'],
    [bash('npm test && rm -rf /'), 'Bash(npm test:*)'],
    [bash('\fnpm test\u00a0'), 'Bash(npm test:*)'], // whitespace of any kind around it, as the matcher trims it
    [bash('git checkout main'), 'Bash(git checkout:*)'], // a third word only after run/exec
    [bash('npm exec vitest run'), 'Bash(npm exec vitest:*)'],
    [bash('npm run'), 'Bash(npm run:*)'],
    [bash('node build.js'), 'Bash(node:*)'], // a word with a dot is no subcommand
    [{ ...bash('npm test'), cwd: 'work/proj' }, undefined], // a relative cwd gets no suggestion
    [{ toolName: 'WebFetch', input: {}, cwd: 'work/proj' }, undefined],
    [bash('FOO=1 npm test'), undefined],
    [bash('$(evil)'), undefined],
    [bash(''), undefined],
    [{ toolName: 'Bash', input: {}, cwd: CWD }, undefined],
    [file('Edit', 'src/a.ts'), 'Edit(src/**)'],
    [file('Edit', '/work/proj/src/deep/a.ts'), 'Edit(src/deep/**)'],
    [file('Write', 'README.md'), 'Write(*)'],
    [file('Edit', 'src/.env'), 'Edit(src/.env)'],
    [file('Edit', '/tmp/x/a.ts'), 'Edit(/tmp/x/**)'],
    [file('Edit', '/a.ts'), 'Edit(/*)'],
    [file('Edit', '../sibling/a.ts'), 'Edit(/work/sibling/**)'],
    [file('Edit', '../a.ts'), 'Edit(/work/**)'], // the cwd's parent is outside it too
    [{ toolName: 'Edit', input: { file_path: '/a.ts' }, cwd: '/work' }, 'Edit(/*)'], // `/` is the cwd's parent
    [file('Edit', ''), undefined],
    // the cwd itself, when its name starts with a dot: no relative spelling exists (an empty glob is no rule)
    [{ toolName: 'Read', input: { file_path: '.' }, cwd: '/work/.dotfiles' }, 'Read(/work/.dotfiles)'],
    [file('Edit', 'we*ird/{x}/a.ts'), 'Edit(we\\*ird/\\{x\\}/**)'],
    [file('Read', 'docs/a.md'), 'Read(docs/**)'],
    [{ toolName: 'Grep', input: { pattern: 'x', path: 'src' }, cwd: CWD }, 'Grep(src/**)'],
    [{ toolName: 'Glob', input: { pattern: '*.ts' }, cwd: CWD }, 'Glob(**)'],
    [{ toolName: 'Grep', input: { pattern: 'x' }, cwd: CWD }, 'Grep(**)'],
    [{ toolName: 'Grep', input: { pattern: 'x', path: '' }, cwd: CWD }, undefined], // only a missing path means the cwd
    [{ toolName: 'Grep', input: { pattern: 'x', path: null }, cwd: CWD }, undefined],
    [{ toolName: 'Glob', input: { pattern: 'x', path: 3 }, cwd: CWD }, undefined],
    [{ toolName: 'WebFetch', input: { url: 'https://x' }, cwd: CWD }, 'WebFetch'],
    [{ toolName: 'mcp__github__create_issue', input: {}, cwd: CWD }, 'mcp__github__create_issue'],
    [{ toolName: 'Edit', input: {}, cwd: CWD }, undefined],
  ] as const)('%j → %s', (request, rule) => {
    expect(suggestRule(request)).toBe(rule);
  });

  it('suggests rules that parse and cover the request (simple commands)', () => {
    const requests: ToolRequest[] = [
      bash('npm test'),
      bash('git status --short'),
      bash('ls'),
      bash('npm run build -- --watch'),
      bash('\fnpm test\u00a0'),
      file('Edit', 'src/a.ts'),
      file('Edit', '../a.ts'),
      { toolName: 'Read', input: { file_path: '.' }, cwd: '/work/.dotfiles' },
      file('Write', 'README.md'),
      file('Edit', 'src/.env'),
      file('Edit', '/tmp/x/a.ts'),
      file('Edit', 'we*ird/{x}/a.ts'),
      file('Edit', '.github/workflows/ci.yml'),
      { toolName: 'Grep', input: { pattern: 'x', path: 'src' }, cwd: CWD },
      { toolName: 'Glob', input: { pattern: '*.ts' }, cwd: CWD },
      { toolName: 'WebFetch', input: {}, cwd: CWD },
    ];
    for (const request of requests) {
      const rule = suggestRule(request);
      expect(rule, JSON.stringify(request)).toBeDefined();
      expect(formatRule(parseRule(rule!))).toBe(rule);
      expect(evaluate(allowOnly(rule!), request), `${rule} for ${JSON.stringify(request)}`).toBe('allow');
    }
  });
});

describe('formatRule', () => {
  it('validates and normalises a hand-built rule', () => {
    expect(formatRule({ tool: 'Edit', pattern: './src/' })).toBe('Edit(src/**)');
    expect(() => formatRule({ tool: 'Edit', pattern: '../x' })).toThrow(/bad permission rule/);
    expect(() => formatRule({ tool: 'Bash', pattern: 'a; b' })).toThrow(/bad permission rule/);
  });
});

describe('checkRule: rules a person adds name a tool that exists', () => {
  it('refuses a mistyped tool with the rule probably meant, and passes real ones through normalised', () => {
    const cases: [string, string][] = [
      ['bash', 'unknown tool "bash" (tool names are case-sensitive); did you mean "Bash"?'],
      ['Bsh', 'unknown tool "Bsh"; did you mean "Bash"?'],
      ['bash(rm:*)', 'unknown tool "bash" (tool names are case-sensitive); did you mean "Bash(rm:*)"?'],
      ['edit(./src//)', 'unknown tool "edit" (tool names are case-sensitive); did you mean "Edit(src/**)"?'],
      ['webfetch', 'unknown tool "webfetch" (tool names are case-sensitive); did you mean "WebFetch"?'],
      ['bash(rm *)', 'unknown tool "bash" (tool names are case-sensitive); did you mean "Bash"?'], // the pattern is wrong too
    ];
    for (const [rule, why] of cases) expect(() => checkRule(rule), rule).toThrow(`bad permission rule ${JSON.stringify(rule)}: ${why}`);
    // blanks around the rule: the tool name and the rest are found after trimming
    expect(thrown(() => checkRule('  bash(rm:*) '))).toEqual({
      kind: 'invalid_input',
      message: 'bad permission rule "  bash(rm:*) ": unknown tool "bash" (tool names are case-sensitive); did you mean "Bash(rm:*)"?',
    });
    // no tool name at the start: the form is wrong, whatever follows
    for (const rule of ['', '(bash)', ' (Bash)']) {
      expect(thrown(() => checkRule(rule)), rule).toEqual({
        kind: 'invalid_input',
        message: `bad permission rule ${JSON.stringify(rule)}: expected Tool, Tool(pattern) such as Bash(npm test), Bash(npm test:*), Edit(src/**), Read(/abs/path/*)`,
      });
    }
    expect(() => checkRule('Frobnicate')).toThrow(/unknown tool "Frobnicate"; use one of Read, Write, .*, or mcp__<server>\[__<tool>\]$/);
    for (const rule of ['WebFetch', 'TodoWrite', 'Task', 'mcp__github', 'mcp__github__create_issue']) expect(checkRule(rule)).toBe(rule);
    expect(checkRule(' MultiEdit(./docs//) ')).toBe('MultiEdit(docs/**)');
    expect(() => checkRule('Bash(rm *)')).toThrow(/Bash patterns take `\*` only as a trailing `:\*`/);
  });
});
