// The import direction rule in eslint.config.js can fail: an upward import is an error, a downward
// one is not; cli/commands/ is a leaf that only cli/main.ts imports.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const eslint = new ESLint({ cwd: repo, ruleFilter: ({ ruleId }) => ruleId.startsWith('boundaries/') });

async function layerErrors(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(repo, filePath) });
  return (result?.messages ?? []).map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

describe('import direction (eslint-plugin-boundaries)', () => {
  it('rejects storage importing team, a higher layer', async () => {
    const errors = await layerErrors('src/storage/layer-probe.ts', "export { teamPaths } from '../team/paths.js';\n");
    expect(errors).toEqual([expect.stringMatching(/^boundaries\/dependencies: .*"storage".*"team"/)]);
  });

  it('accepts storage importing protocol, its own layer and packages', async () => {
    const code = [
      "import * as z from 'zod';",
      "import { isSwarmError } from '../protocol/errors.js';",
      "import { writeFileAtomic } from './atomic.js';",
      'export const used = [z, isSwarmError, writeFileAtomic];',
      '',
    ].join('\n');
    expect(await layerErrors('src/storage/layer-probe.ts', code)).toEqual([]);
  });

  it('keeps one tier one-way: permissions may import mailbox, mailbox may not import permissions', async () => {
    expect(await layerErrors('src/permissions/layer-probe.ts', "export * from '../mailbox/index.js';\n")).toEqual([]);
    const upward = await layerErrors('src/mailbox/layer-probe.ts', "export * from '../permissions/rules.js';\n");
    expect(upward).toEqual([expect.stringMatching(/^boundaries\/dependencies: .*"mailbox".*"permissions"/)]);
  });

  it('keeps cli/commands a leaf: another cli folder may not import a command, cli/main.ts (the wiring) may', async () => {
    const fromConsole = await layerErrors('src/cli/console/layer-probe.ts', "export { shutdownCommand } from '../commands/stop.js';\n");
    expect(fromConsole).toEqual([expect.stringMatching(/^boundaries\/dependencies: .*"cli".*"cli-commands"/)]);
    const fromCliRoot = await layerErrors('src/cli/layer-probe.ts', "export { teammateCommand } from './commands/teammate.js';\n");
    expect(fromCliRoot).toEqual([expect.stringMatching(/^boundaries\/dependencies: .*"cli".*"cli-commands"/)]);
    expect(await layerErrors('src/cli/main.ts', "export { shutdownCommand } from './commands/stop.js';\n")).toEqual([]);
    // A command imports the rest of cli and the layers below as before.
    const command = ["export { shutdownCommand } from './stop.js';", "export { chalk } from '../output/render.js';", "export { LEAD_NAME } from '../../protocol/names.js';", ''].join('\n');
    expect(await layerErrors('src/cli/commands/layer-probe.ts', command)).toEqual([]);
  });
});
