// The CLI contract (SPEC §6) as a user meets it: --help with examples, one-line errors with exit
// codes, --team / SWARM_TEAM, and names that must never reach the file system. In-process through
// main(argv, io); the real bin/swarm.js (run `npm run build` first) for --version from another
// directory, the completion script in bash, and lead's check of a stdin that is no terminal.
import { execa } from 'execa';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { addMember, createTeam } from '../../src/team/index.js';
import { SWARM_BIN, swarmInProcess, type CliResult } from '../support/cli.js';
import { listTree } from '../support/fs-tree.js';
import { useTempRoot } from '../support/tmp-root.js';
import { Team } from '../../src/team/team.js';

let root: string;
useTempRoot((dir) => (root = dir));

/** A failure: the exit code, nothing on stdout, and exactly one `swarm: ...` line on stderr. */
function expectOneLineError(r: CliResult, code: number | 'non-zero', pattern?: RegExp): void {
  if (code === 'non-zero') expect(r.exitCode, r.stderr).not.toBe(0);
  else expect(r.exitCode, r.stderr).toBe(code);
  expect(r.stdout).toBe('');
  const lines = r.stderr.trimEnd().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^swarm: \S/);
  if (pattern) expect(lines[0]).toMatch(pattern);
}

describe('--version and completion', () => {
  it('--version prints the package version from any directory', async () => {
    const r = await execa(process.execPath, [SWARM_BIN, '--version'], { cwd: root, reject: false });
    expect(r.stdout).toBe((JSON.parse(await fs.readFile(path.join(path.dirname(SWARM_BIN), '../package.json'), 'utf8')) as { version: string }).version);
  });

  it('swarm completion gives bash a completion function that completes commands and subcommands', async () => {
    const bin = path.join(root, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'swarm'), `#!/bin/sh\nexec '${process.execPath}' '${SWARM_BIN}' "$@"\n`, { mode: 0o755 });
    // The script is written to a file and sourced from there (not `source <(swarm completion)`: in
    // one full-suite run that bash never returned), and every step has its own deadline, so a hang
    // names the step instead of timing out the whole test.
    const env = { PATH: `${bin}:${process.env.PATH ?? ''}`, CLAUDE_CONFIG_DIR: root };
    const completionScript = path.join(root, 'swarm-completion.bash');
    await fs.writeFile(completionScript, (await execa('swarm', ['completion'], { env, stdin: 'ignore', timeout: 10_000 })).stdout);
    const complete = async (...words: string[]): Promise<string[]> => {
      const script = `source ${completionScript}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _swarm_yargs_completions; printf '%s\\n' "\${COMPREPLY[@]}"`;
      const r = await execa('bash', ['-c', script], { env, stdin: 'ignore', timeout: 10_000 });
      return r.stdout.split('\n').filter(Boolean);
    };
    expect(await complete('swarm', 'shu')).toEqual(['shutdown']);
    expect(await complete('swarm', 'permissions', 'al')).toEqual(['allow']);
  });
});

describe('swarm completion --help', () => {
  it('prints the help of completion (exit 0), not the script', async () => {
    const r = await swarmInProcess(root, ['completion', '--help']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^swarm completion\n\nprint a bash\/zsh completion script/);
    expect(r.stdout).toContain('\n  swarm completion >> ~/.zshrc\n');
    expect(r.stdout).not.toContain('###-begin-swarm-completions-###');
  });
});

describe('swarm completion <shell>', () => {
  it('is one line (exit 2) saying the supported shells and the line to add to each', async () => {
    expectOneLineError(await swarmInProcess(root, ['completion', 'fish']), 2, /^swarm: swarm completion takes no shell name \(got "fish"\): .*bash or zsh.*; in bash: swarm completion >> ~\/\.bashrc, in zsh: swarm completion >> ~\/\.zshrc$/);
  });
});

describe('swarm lead without a terminal', () => {
  it('says it needs one and what to use from a script, in one line', async () => {
    await createTeam(root, { name: 'solo' });
    const r = await execa(process.execPath, [SWARM_BIN, 'lead', '--team', 'solo'], { env: { CLAUDE_CONFIG_DIR: root, NO_COLOR: '1' }, stdin: 'ignore', reject: false });
    expectOneLineError({ exitCode: r.exitCode ?? -1, stdout: String(r.stdout), stderr: String(r.stderr) }, 2, /^swarm: swarm lead needs a terminal \(it reads your keys\): .*'swarm inbox team-lead --follow'/);
  });
});

describe('--help', () => {
  it('lists every command and shows examples', async () => {
    const r = await swarmInProcess(root, ['--help']);
    expect(r.exitCode).toBe(0);
    for (const cmd of ['team ', 'send <to> [text]', 'inbox <name>']) expect(r.stdout).toContain(`swarm ${cmd}`);
    expect(r.stdout).toContain('--team');
    expect(r.stdout).toContain('--json');
    expect(r.stdout).toMatch(/Examples:\n\s+swarm /);
  });

  it.each([['team'], ['send'], ['inbox']])('%s --help shows examples', async (...cmd) => {
    const r = await swarmInProcess(root, [...cmd, '--help']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`Examples:\\n\\s+swarm ${cmd.join(' ')} `));
  });

  it('demo, lead and teammate list only the global flags they honour, and refuse the others (exit 2)', async () => {
    const options = async (cmd: string): Promise<string> => (await swarmInProcess(root, [cmd, '--help'])).stdout.split('Examples:')[0]!;
    const [demo, lead, teammate] = await Promise.all([options('demo'), options('lead'), options('teammate')]);
    expect(demo).not.toMatch(/--team|--json/);
    expect(lead).toContain('--team');
    expect(lead).not.toContain('--json');
    expect(teammate).toContain('--team-name');
    expect(teammate).not.toMatch(/--team\b(?!-)|--json/);
    const [demoJson, leadJson, teammateTeam] = await Promise.all([
      swarmInProcess(root, ['demo', '--json']),
      swarmInProcess(root, ['lead', '--team', 'x', '--json']),
      swarmInProcess(root, ['teammate', '--team', 'x']),
    ]);
    expectOneLineError(demoJson, 2, /^swarm: --json is not an option of swarm demo$/);
    expectOneLineError(leadJson, 2, /^swarm: --json is not an option of swarm lead: .*swarm inbox team-lead --follow --json$/);
    expectOneLineError(teammateTeam, 2, /^swarm: --team is not an option of swarm teammate: use --team-name$/);
  }, 60_000);

  it('team list and team create name no team with --team: not in their --help, refused (exit 2), nothing created', async () => {
    for (const cmd of [['team', 'list'], ['team', 'create']]) expect((await swarmInProcess(root, [...cmd, '--help'])).stdout).not.toMatch(/--team\b/);
    const [list, create] = await Promise.all([swarmInProcess(root, ['team', 'list', '--team', 'x']), swarmInProcess(root, ['team', 'create', 'y', '--team', 'x'])]);
    expectOneLineError(list, 2, /^swarm: --team is not an option of swarm team list: it lists every team under the root$/);
    expectOneLineError(create, 2, /^swarm: --team is not an option of swarm team create: the new team is named by the argument: swarm team create <name>$/);
    expect((await swarmInProcess(root, ['team', 'list', '--json'])).stdout.trim()).toBe('[]');
  }, 60_000);
});

describe('usage errors', () => {
  it('no command → exit 2, one line', async () => {
    expectOneLineError(await swarmInProcess(root, []), 2, /swarm --help/);
  });

  it('unknown command → non-zero, one line', async () => {
    expectOneLineError(await swarmInProcess(root, ['lanch']), 'non-zero', /lanch/);
    expectOneLineError(await swarmInProcess(root, ['team', 'destroy', 'x']), 'non-zero', /destroy/);
  });

  it('unknown flag or missing argument → non-zero, one line', async () => {
    expectOneLineError(await swarmInProcess(root, ['send', 'w1', 'hi', '--team', 't', '--frm', 'w2']), 2, /^swarm: unknown flag --frm; did you mean --from\? \(see swarm --help\)$/);
    // "did you mean" for a mistyped flag, from the options of the command that was typed.
    const hints: [string[], string][] = [
      [['status', '--wach'], 'unknown flag --wach; did you mean --watch?'],
      [['launch', 'x.yaml', '--dry-rn'], 'unknown flag --dry-rn; did you mean --dry-run?'],
      [['launch', 'x.yaml', '--no-consol'], 'unknown flag --no-consol; did you mean --no-console?'],
      [['status', '--zzzzzz'], 'unknown flag --zzzzzz'],
      // The mistyped flag took the next word as its value, so yargs first missed a required
      // argument (the prompt, the goal): the flag is still what is named.
      [['spawn', 'bob', '--promt', 'review it', '--team', 't'], 'unknown flag --promt; did you mean --prompt?'],
      [['run', '--promt', 'fix it'], 'unknown flag --promt; did you mean --print?'],
    ];
    const results = await Promise.all(hints.map(([args]) => swarmInProcess(root, args)));
    hints.forEach(([, text], i) => expectOneLineError(results[i]!, 2, new RegExp(`^swarm: ${text.replace(/[?.()-]/g, '\\$&')} \\(see swarm --help\\)$`)));
    expectOneLineError(await swarmInProcess(root, ['send', 'w1']), 2);
  }, 60_000);

  it('--host -oProxyCommand=… is one line saying the flag got no value; nothing runs, nothing is made', async () => {
    await createTeam(root, { name: 't' });
    const before = await listTree(root);
    const marker = path.join(root, 'proxy-ran');
    const r = await swarmInProcess(root, ['spawn', 'bob', '-p', 'hi', '--team', 't', '--host', `-oProxyCommand=touch ${marker}`]);
    expectOneLineError(r, 2, /^swarm: --host got no value: "-oProxyCommand=touch \S+" starts with "-", so it was read as flags; put the value right after --host \(a value that starts with "-" as --host=<value>\) \(see swarm --help\)$/);
    const given = await swarmInProcess(root, ['spawn', 'bob', '-p', 'hi', '--team', 't', `--host=-oProxyCommand=touch ${marker}`]);
    expectOneLineError(given, 2, /^swarm: --host: expected \[user@\]host\[:port\] \(e\.g\. alice@build1:2222\), got "-oProxyCommand=touch \S+"$/);
    expect(await listTree(root)).toEqual(before);
  });

  it.each([
    ['send', 'w1', 'hi'],
    ['team', 'show'],
  ])('missing --team (%s) → exit 2 with a one-line error naming SWARM_TEAM', async (...args) => {
    expectOneLineError(await swarmInProcess(root, args), 2, /SWARM_TEAM/);
    expect(await listTree(root)).toEqual([]);
  });
});

describe('--team and SWARM_TEAM', () => {
  beforeEach(async () => {
    await createTeam(root, { name: 'alpha' });
    await createTeam(root, { name: 'beta' });
    await addMember(new Team(root, 'alpha'), { name: 'w1' });
    await addMember(new Team(root, 'beta'), { name: 'w1' });
  });

  it('SWARM_TEAM selects the team; --team wins over it', async () => {
    const viaEnv = await swarmInProcess(root, ['send', 'w1', 'via env', '--json'], { SWARM_TEAM: 'alpha' });
    expect(viaEnv.exitCode, viaEnv.stderr).toBe(0);
    const viaFlag = await swarmInProcess(root, ['send', 'w1', 'via flag', '--team', 'beta', '--json'], { SWARM_TEAM: 'alpha' });
    expect(viaFlag.exitCode, viaFlag.stderr).toBe(0);
    const alpha = JSON.parse((await swarmInProcess(root, ['inbox', 'w1', '--json'], { SWARM_TEAM: 'alpha' })).stdout) as { text: string }[];
    const beta = JSON.parse((await swarmInProcess(root, ['inbox', 'w1', '--json', '-t', 'beta'])).stdout) as { text: string }[];
    expect(alpha.map((m) => m.text)).toEqual(['via env']);
    expect(beta.map((m) => m.text)).toEqual(['via flag']);
  });

  it('an unknown team is exit 1 with a hint; an invalid SWARM_TEAM is exit 2; nothing is created', async () => {
    const before = await listTree(root);
    expectOneLineError(await swarmInProcess(root, ['send', 'w1', 'hi', '--team', 'gamma']), 1, /no team "gamma".*swarm team/);
    expectOneLineError(await swarmInProcess(root, ['inbox', 'w1'], { SWARM_TEAM: '../alpha' }), 2, /invalid team name/);
    expect(await listTree(root)).toEqual(before);
  });
});

describe('bad names never touch the file system', () => {
  it('team create with an invalid name → exit 2, nothing created', async () => {
    for (const name of ['../x', 'a'.repeat(65)]) {
      expectOneLineError(await swarmInProcess(root, ['team', 'create', name]), 2, /invalid team name/);
    }
    expectOneLineError(await swarmInProcess(root, ['team', 'create', '-x']), 2); // a flag, not a name
    expect(await listTree(root)).toEqual([]);
  });

  it('send / inbox with a path-like member name → non-zero, no new file', async () => {
    await createTeam(root, { name: 't' });
    await addMember(new Team(root, 't'), { name: 'w1' });
    // (the leader's key under swarm/keys/ may be made on first use; team files must not change)
    const teams = path.join(root, 'teams');
    const before = await listTree(teams);
    for (const args of [
      ['send', '../w1', 'hi'],
      ['send', 'w1', 'hi', '--from', 'a/b'],
      ['inbox', '../w1'],
    ]) {
      expectOneLineError(await swarmInProcess(root, [...args, '--team', 't']), 'non-zero');
    }
    expect(await listTree(teams)).toEqual(before);
  });
});
