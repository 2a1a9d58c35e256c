// The pane's environment travels in a private file, never on a command line: values with odd
// characters arrive intact, and the file and its directory are gone once the teammate runs.
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { argvWithEnvFile, envFileText } from '../../src/backends/env-file.js';

const ODD = `it's "quoted" $HOME \`x\` ; && | \\ \n newline`;

describe('env file', () => {
  it('renders export lines and refuses bad names', () => {
    expect(envFileText({ A: 'b' })).toBe("export A=b\n");
    expect(() => envFileText({ 'A-B': 'x' })).toThrow(/invalid environment variable name/);
  });

  it('loads odd values, keeps secrets out of argv, and removes the file and its directory', async () => {
    const argv = await argvWithEnvFile({ ANTHROPIC_API_KEY: 'sk-secret', SWARM_ODD: ODD }, [
      process.execPath,
      '-e',
      'process.stdout.write(JSON.stringify([process.env.ANTHROPIC_API_KEY, process.env.SWARM_ODD]))',
    ]);
    expect(argv.join(' ')).not.toContain('sk-secret');
    const file = argv[3]!;
    expect(existsSync(file)).toBe(true);
    const r = await execa(argv[0]!, argv.slice(1));
    expect(JSON.parse(r.stdout)).toEqual(['sk-secret', ODD]);
    expect(existsSync(file)).toBe(false);
    expect(existsSync(path.dirname(file))).toBe(false);
  });

  it('an empty environment runs the argv unchanged', async () => {
    expect(await argvWithEnvFile({}, ['a', 'b'])).toEqual(['a', 'b']);
  });
});
