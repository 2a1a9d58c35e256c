// Edit {file_path, old_string, new_string, replace_all?}: replace an exact string in a file.
// old_string must occur exactly once unless replace_all; an empty old_string creates a new file
// (refused if the file exists). Replacement is literal (no `$&` patterns). The file is written in
// place through checked-file.ts (never a team file by another name, never one with other links).
// Editing a protected file (secrets.ts) asks team-lead in every mode but plan: whether an
// old_string is found tells the model what the file holds. So does editing agent configuration
// (agent-config.ts): it configures other members. A team memory file (memory.ts) is edited without a
// question in every mode but plan; anything else in that directory is refused.
import { promises as fs } from 'node:fs';
import * as z from 'zod';
import { SwarmError } from '../../protocol/errors.js';
import { configSummary } from './agent-config.js';
import { updateChecked, writeChecked } from './checked-file.js';
import { protectedSummary } from './secrets.js';
import { defineTool } from './types.js';

const EditInput = z.object({
  file_path: z.string().min(1).describe('Path of the file (absolute, or relative to your working directory)'),
  old_string: z.string().describe('The exact text to replace (without Read line numbers)'),
  new_string: z.string().describe('The text to put instead'),
  replace_all: z.boolean().optional().describe('Replace every occurrence (default: old_string must be unique)'),
});

export function countOccurrences(text: string, needle: string): number {
  if (needle === '') return 0;
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + needle.length)) n++;
  return n;
}

/** The edited text, or a SwarmError saying why the edit does not apply. */
export function applyEdit(text: string, oldString: string, newString: string, replaceAll: boolean, file: string): { text: string; count: number } {
  const count = countOccurrences(text, oldString);
  if (count === 0) throw new SwarmError('invalid_input', `old_string was not found in ${file}; Read the file and copy the text exactly`);
  if (count > 1 && !replaceAll) {
    throw new SwarmError('invalid_input', `old_string occurs ${count} times in ${file}; add surrounding context to make it unique, or set replace_all`);
  }
  if (!replaceAll) {
    const i = text.indexOf(oldString);
    return { text: text.slice(0, i) + newString + text.slice(i + oldString.length), count: 1 };
  }
  return { text: text.split(oldString).join(newString), count };
}

export const editTool = defineTool({
  name: 'Edit',
  kind: 'edit',
  description:
    'Replace old_string with new_string in a file. old_string must match exactly (whitespace included) and be unique ' +
    'unless replace_all is true. An empty old_string creates a new file with new_string as its content.',
  schema: EditInput,
  prepare: async (input, ctx) => {
    const { abs, real } = await ctx.guard.resolve(input.file_path);
    if (input.old_string === input.new_string) throw new SwarmError('invalid_input', 'old_string and new_string are the same; nothing to change');
    const secret = ctx.secrets.match(abs, real);
    const configures = await ctx.agentConfig.configures(abs, real);
    const savesMemory = (await ctx.memory?.saves(input.file_path, ctx.cwd, abs, real)) === true;
    const target = {
      summary: configSummary(protectedSummary(input.file_path, secret), configures),
      targetPath: real,
      ...(secret !== undefined ? { secret } : {}),
      ...(configures !== undefined ? { configures } : {}),
      ...(savesMemory ? { savesMemory } : {}),
    };
    const replace = (text: string): { text: string; count: number } => applyEdit(text, input.old_string, input.new_string, input.replace_all === true, abs);
    const edit = async (expected?: { text: string; edited: { text: string; count: number } }) => {
      // Apply to the file as it is now, not as it was when the edit was checked.
      const result = await updateChecked(ctx.guard, real, abs, (now) => (now === expected?.text ? expected.edited : replace(now)));
      return { content: `Edited ${abs}: ${result.count} replacement${result.count === 1 ? '' : 's'}` };
    };
    // A protected file is not looked at before the gate: "old_string was not found" would answer a guess.
    if (secret !== undefined && input.old_string !== '') return { ...target, execute: () => edit() };
    const existing = await fs.readFile(real, 'utf8').catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined;
      throw new SwarmError('io', `cannot read ${abs}: ${e.message}`, { cause: e });
    });
    if (input.old_string === '') {
      if (existing !== undefined && existing !== '') throw new SwarmError('invalid_input', `${abs} already exists; give an old_string to edit it`);
      return {
        ...target,
        execute: async () => {
          await writeChecked(ctx.guard, real, abs, input.new_string);
          return { content: `Created ${abs}` };
        },
      };
    }
    if (existing === undefined) throw new SwarmError('not_found', `file does not exist: ${abs} (use an empty old_string or Write to create it)`);
    const edited = replace(existing);
    return { ...target, execute: () => edit({ text: existing, edited }) };
  },
});
