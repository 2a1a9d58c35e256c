// The person's permission mode as a ceiling (protocol/mode-ceiling.ts): plan < default < acceptEdits
// < bypassPermissions; a model's request above it is refused naming the ceiling and the flag, an
// agent file's mode above it is lowered to it; at or below it, either is kept.
import { describe, expect, it } from 'vitest';
import { PermissionModeSchema } from '../../src/protocol/config.js';
import { capMode, checkRequestedMode, exceedsCeiling, MODES_BY_RESTRICTION } from '../../src/protocol/mode-ceiling.js';
import { isSwarmError } from '../../src/protocol/errors.js';

describe('mode ceiling', () => {
  it('ranks every mode, plan the most restrictive and bypassPermissions the least', () => {
    expect(MODES_BY_RESTRICTION).toEqual(['plan', 'default', 'acceptEdits', 'bypassPermissions']);
    expect([...MODES_BY_RESTRICTION].sort()).toEqual([...PermissionModeSchema.options].sort());
  });

  it('a mode above the ceiling exceeds it and is lowered to it; at or below, it stays', () => {
    const cases: [string, string, boolean][] = [
      ['bypassPermissions', 'default', true],
      ['acceptEdits', 'default', true],
      ['default', 'plan', true],
      ['acceptEdits', 'plan', true],
      ['bypassPermissions', 'acceptEdits', true],
      ['default', 'default', false],
      ['plan', 'default', false],
      ['plan', 'bypassPermissions', false],
      ['acceptEdits', 'bypassPermissions', false],
      ['bypassPermissions', 'bypassPermissions', false],
    ];
    for (const [mode, ceiling, above] of cases) {
      const m = PermissionModeSchema.parse(mode);
      const c = PermissionModeSchema.parse(ceiling);
      expect(exceedsCeiling(m, c), `${mode} over ${ceiling}`).toBe(above);
      expect(capMode(m, c), `${mode} capped at ${ceiling}`).toBe(above ? c : m);
    }
  });

  it("a model's request above the ceiling is an error naming the ceiling, what it may pick and the flag that raises it", () => {
    expect(checkRequestedMode('plan', 'default')).toBe('plan');
    expect(checkRequestedMode('acceptEdits', 'acceptEdits')).toBe('acceptEdits');
    let caught: unknown;
    try {
      checkRequestedMode('bypassPermissions', 'default');
    } catch (e) {
      caught = e;
    }
    expect(isSwarmError(caught, 'invalid_input')).toBe(true);
    expect((caught as Error).message).toBe(
      'mode bypassPermissions is above default, the permission mode the person chose for this run, and a model cannot raise it; ' +
        'spawn with mode default or a more restrictive one (plan, default), ' +
        'or ask the person, who can raise it with --permission-mode bypassPermissions (swarm run / swarm lead --agent) or permissionMode in the team file',
    );
    expect(() => checkRequestedMode('default', 'plan')).toThrow(/^mode default is above plan, .* \(plan\), or ask the person/);
  });
});
