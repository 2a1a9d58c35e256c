// --help's examples (cli/output/help-examples.ts), in process: each command whole on its own line
// at the terminal's width, its description below it; a pipe gets a fixed 100 columns.
import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { exampleLines, helpWidth, layoutExamples } from '../../../src/cli/output/help-examples.js';

const LONG = '$0 teammate --agent-id alice@demo --agent-name alice --team-name demo --agent-color blue --parent-session-id <id>';

async function helpAt(width: number): Promise<string> {
  const cli = yargs([]);
  layoutExamples(cli, width);
  return cli
    .scriptName('swarm')
    .example(LONG, 'what swarm spawn runs in a pane')
    .example('$0 send alice hi', 'message a teammate')
    .wrap(width)
    .getHelp();
}

describe('help examples', () => {
  it('prints an example longer than 100 columns on one line at 200 columns, its description below it', async () => {
    const command = LONG.replace('$0', 'swarm');
    expect(command.length).toBeGreaterThan(100);
    const lines = (await helpAt(200)).split('\n');
    const at = lines.indexOf(`  ${command}`);
    expect(at, lines.join('\n')).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('      what swarm spawn runs in a pane');
    expect(lines.slice(at + 2, at + 4)).toEqual(['  swarm send alice hi', '      message a teammate']);
  });

  it('never cuts a command, even at a narrower width; a long description wraps under it', async () => {
    expect((await helpAt(60)).split('\n')).toContain(`  ${LONG.replace('$0', 'swarm')}`);
    expect(exampleLines('swarm x', 'one two three four five six seven', 26)).toEqual(['  swarm x', '      one two three four', '      five six seven']);
  });

  it('uses the terminal width, uncapped, and 100 columns for a pipe', () => {
    expect(helpWidth({ isTTY: true, columns: 200 })).toBe(200);
    expect(helpWidth({ isTTY: true, columns: 80 })).toBe(80);
    expect(helpWidth({ isTTY: undefined, columns: undefined })).toBe(100);
  });
});
