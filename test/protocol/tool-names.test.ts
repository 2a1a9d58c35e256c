// The tool names a permission rule may name cover every tool of swarm's own runtime, and MCP names
// only in their two forms; near misses are suggested by protocol/spelling.
import { describe, expect, it } from 'vitest';
import { ALL_TOOLS } from '../../src/runtime/tools/index.js';
import { nearest } from '../../src/protocol/spelling.js';
import { KNOWN_TOOL_NAMES, isKnownToolName, isTool, type ToolName } from '../../src/protocol/tool-names.js';
import type { ToolDefinition } from '../../src/runtime/tools/types.js';

describe('known tool names', () => {
  it("include every runtime tool, Claude Code's and MCP names", () => {
    for (const t of ALL_TOOLS) expect(KNOWN_TOOL_NAMES, t.name).toContain(t.name);
    for (const name of ['MultiEdit', 'NotebookEdit', 'WebFetch', 'WebSearch', 'TodoWrite', 'Task', 'mcp__github', 'mcp__my-server__do_thing']) {
      expect(isKnownToolName(name), name).toBe(true);
    }
    for (const name of ['bash', 'Bsh', 'mcp__', 'mcp__github__', 'Frobnicate']) expect(isKnownToolName(name), name).toBe(false);
  });

  it('nearest suggests a close candidate, ignoring case, and nothing for a far one', () => {
    expect(nearest('Bsh', KNOWN_TOOL_NAMES)).toBe('Bash');
    expect(nearest('webfetch', KNOWN_TOOL_NAMES)).toBe('WebFetch');
    expect(nearest('planModeRequred', ['planModeRequired', 'permissionMode'])).toBe('planModeRequired');
    expect(nearest('Frobnicate', KNOWN_TOOL_NAMES)).toBeUndefined();
  });

  it('a tool name written in code is a ToolName: a typo does not compile (npm run typecheck checks these lines)', () => {
    // @ts-expect-error 'Bsh' is no tool
    expect(isTool('Bash', 'Bsh')).toBe(false);
    // @ts-expect-error a runtime tool named 'Raed' does not compile
    const typo: Pick<ToolDefinition, 'name'> = { name: 'Raed' };
    // @ts-expect-error nor does a list of tools with one misspelled
    const list: readonly ToolName[] = ['Read', 'Glbo'];
    expect([typo.name, list[1]]).toEqual(['Raed', 'Glbo']);
    expect(isTool('Bash', 'Bash')).toBe(true);
  });
});
