// What a spawned teammate's mode and model come from (teammates/spawn.ts typedSettings): the
// spawn's own > a model's request > the agent type's > the default, with the person's choice as the
// ceiling: a model's request above it throws, the agent type's above it is lowered to it and
// reported. Pure; the spawns that use it are in spawn.test.ts.
import { describe, expect, it } from 'vitest';
import type { AgentType } from '../../src/protocol/agent-type.js';
import { describeLoweredMode, typedSettings } from '../../src/teammates/spawn.js';

const type = (permissionMode?: AgentType['permissionMode']): AgentType => ({
  name: 'verification',
  description: 'checks',
  disallowedTools: [],
  prompt: '',
  source: 'project',
  file: '/p/.claude/agents/verification.md',
  ...(permissionMode ? { permissionMode } : {}),
});

describe('typedSettings: the person is the ceiling', () => {
  it("lowers an agent type's mode above the person's choice (none: default) and says from what", () => {
    expect(typedSettings({}, type('bypassPermissions'))).toEqual({ model: undefined, mode: 'default', lowered: { from: 'bypassPermissions', to: 'default' } });
    expect(typedSettings({ defaultPermissionMode: 'acceptEdits' }, type('bypassPermissions'))).toMatchObject({ mode: 'acceptEdits', lowered: { from: 'bypassPermissions', to: 'acceptEdits' } });
    expect(typedSettings({ defaultPermissionMode: 'plan' }, type('default'))).toMatchObject({ mode: 'plan', lowered: { from: 'default', to: 'plan' } });
  });

  it("keeps an agent type's mode at or below the ceiling, and the person's own choice as is", () => {
    expect(typedSettings({}, type('plan'))).toEqual({ model: undefined, mode: 'plan' });
    expect(typedSettings({ defaultPermissionMode: 'bypassPermissions' }, type('acceptEdits'))).toEqual({ model: undefined, mode: 'acceptEdits' });
    // The person's --permission-mode for this spawn wins over the type, and nothing was lowered.
    expect(typedSettings({ permissionMode: 'default' }, type('bypassPermissions'))).toEqual({ model: undefined, mode: 'default' });
    expect(typedSettings({ permissionMode: 'bypassPermissions' }, type('plan'))).toEqual({ model: undefined, mode: 'bypassPermissions' });
    expect(typedSettings({ defaultPermissionMode: 'acceptEdits' }, undefined)).toEqual({ model: undefined, mode: 'acceptEdits' });
    expect(typedSettings({}, undefined)).toEqual({ model: undefined, mode: undefined });
  });

  it("refuses a model's request above the ceiling (the run's mode, else default); one at or below it wins over the type", () => {
    expect(() => typedSettings({ requestedMode: 'bypassPermissions' }, undefined)).toThrow(/^mode bypassPermissions is above default, the permission mode the person chose/);
    expect(() => typedSettings({ requestedMode: 'bypassPermissions', defaultPermissionMode: 'acceptEdits' }, undefined)).toThrow(/above acceptEdits/);
    expect(() => typedSettings({ requestedMode: 'default', defaultPermissionMode: 'plan' }, undefined)).toThrow(/above plan/);
    expect(() => typedSettings({ requestedMode: 'yolo' }, undefined)).toThrow(/^mode: expected default\|acceptEdits\|bypassPermissions\|plan, got "yolo"/);
    expect(typedSettings({ requestedMode: 'plan', defaultPermissionMode: 'acceptEdits' }, type('bypassPermissions'))).toEqual({ model: undefined, mode: 'plan' });
    expect(typedSettings({ requestedMode: 'bypassPermissions', defaultPermissionMode: 'bypassPermissions' }, undefined)).toEqual({ model: undefined, mode: 'bypassPermissions' });
  });

  it('the note names the type, its file, both modes and the flag', () => {
    expect(describeLoweredMode('v', type('bypassPermissions'), { from: 'bypassPermissions', to: 'default' })).toBe(
      'agent type verification (/p/.claude/agents/verification.md) asks for permissionMode bypassPermissions; v runs in default instead: ' +
        "an agent file never raises the mode above the person's (the person gives it with --permission-mode bypassPermissions, or permissionMode in a team file)",
    );
  });
});
