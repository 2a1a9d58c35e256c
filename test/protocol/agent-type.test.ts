// Agent files in Claude Code's format (SPEC §10), parsed and checked: the fields, tools as a comma
// list or an array, model aliases, and a one-line error naming the file and the field for each
// kind of bad file; the verdict line of a verifier.
import { describe, expect, it } from 'vitest';
import { agentTypeModel, BUILTIN_AGENT_TYPES, parseAgentFile, verdictOf } from '../../src/protocol/agent-type.js';

const FILE = '/p/.claude/agents/x.md';
const parse = (front: string, body = 'Body text.') => parseAgentFile(`---\n${front}\n---\n${body}\n`, FILE, 'project');
const errorOf = (front: string): string => {
  try {
    parse(front);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected a parse error');
};

describe('parseAgentFile', () => {
  it('reads every field; tools as a comma list or an array; the body is the prompt', () => {
    const t = parse('name: reviewer\ndescription: Reviews\ntools: Read, Grep ,Glob\ndisallowedTools: [Bash]\nmodel: opus\npermissionMode: plan\ncolor: red\nhooks: {}', '\nYou review.\n');
    expect(t).toEqual({
      name: 'reviewer',
      description: 'Reviews',
      tools: ['Read', 'Grep', 'Glob'],
      disallowedTools: ['Bash'],
      model: 'opus',
      permissionMode: 'plan',
      color: 'red',
      prompt: 'You review.',
      source: 'project',
      file: FILE,
    });
    expect(parse('name: a\ndescription: d\ntools:\n  - Read\n  - Write').tools).toEqual(['Read', 'Write']);
    expect(parse('name: a\ndescription: d').tools).toBeUndefined(); // absent = every tool
  });

  it('model: aliases map to current ids the price table knows; inherit and none mean the default', () => {
    expect(agentTypeModel({ model: 'sonnet' })).toBe('claude-sonnet-5-5');
    expect(agentTypeModel({ model: 'opus' })).toBe('claude-opus-5-5');
    expect(agentTypeModel({ model: 'haiku' })).toBe('claude-haiku-5-5');
    expect(agentTypeModel({ model: 'claude-opus-4-5' })).toBe('claude-opus-4-5');
    expect(agentTypeModel({ model: 'inherit' })).toBeUndefined();
    expect(agentTypeModel({})).toBeUndefined();
  });

  it('a bad file is one line naming the file and the field', () => {
    expect(errorOf('name: a\ndescription: d\ntools: Read, Fly')).toBe(`${FILE}: tools: unknown tool "Fly" (expected names like Read, Grep, Glob, Bash, Edit, Write)`);
    expect(errorOf('name: a\ndescription: d\npermissionMode: yolo')).toBe(`${FILE}: permissionMode: expected default|acceptEdits|bypassPermissions|plan, got "yolo"`);
    expect(errorOf('name: a\ndescription: d\nmodel: 3')).toMatch(new RegExp(`^${FILE}: model: expected sonnet, opus, haiku, inherit or a model id`));
    expect(errorOf('description: d')).toMatch(new RegExp(`^${FILE}: name: expected a name`));
    expect(errorOf('name: [oops')).toMatch(new RegExp(`^${FILE}: front matter: not valid YAML`));
    expect(() => parseAgentFile('no front matter\n', FILE, 'user')).toThrow(`${FILE}: front matter: expected the file to start with a --- line`);
    for (const front of ['name: a\ndescription: d\ntools: Read, Fly', 'name: [oops', 'name: a\ndescription: d\npermissionMode: 7']) {
      expect(errorOf(front)).not.toContain('\n');
    }
  });
});

describe('built-in types and the verdict', () => {
  it('general-purpose, Explore, Plan, verification; the read-only ones have read-only Bash; verification asks for the VERDICT line', () => {
    expect(BUILTIN_AGENT_TYPES.map((t) => t.name)).toEqual(['general-purpose', 'Explore', 'Plan', 'verification']);
    expect(BUILTIN_AGENT_TYPES.filter((t) => t.readOnlyBash === true).map((t) => t.name)).toEqual(['Explore', 'Plan', 'verification']);
    expect(BUILTIN_AGENT_TYPES.find((t) => t.name === 'verification')!.prompt).toContain('VERDICT: PASS, VERDICT: FAIL, VERDICT: PARTIAL');
  });

  it('verdictOf reads the last non-blank line only', () => {
    expect(verdictOf('All checks pass.\nVERDICT: PASS\n\n')).toBe('PASS');
    expect(verdictOf('**VERDICT: PARTIAL**')).toBe('PARTIAL');
    expect(verdictOf('VERDICT: FAIL\nbut then more text')).toBeUndefined();
    expect(verdictOf('VERDICT: MAYBE')).toBeUndefined();
  });
});
