// A new leader console (in-process, its terminal injected as streams) on a team whose last leader
// died before answering: it asks every question still open — the permission request and the plan
// request whose frames the dead leader had already taken from team-lead's inbox —, oldest first,
// and never the plan that was answered.
import { PassThrough } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { LeaderConsole } from '../../../src/cli/console/console.js';
import { questionsLeftOpen } from '../../support/open-questions.js';
import { setupTeam } from '../../support/perm-harness.js';
import { useTempRoot } from '../../support/tmp-root.js';
import { waitFor } from '../../support/wait.js';

let root = '';
let open: LeaderConsole | undefined;
useTempRoot((r) => (root = r), 'swarm-console-q-');
afterEach(async () => {
  await open?.quit(false);
  open = undefined;
});

describe('a new console on a team whose leader died', () => {
  it('asks the questions still open, oldest first: the plan, then the permission request; never the answered plan', async () => {
    const { base } = await setupTeam(root);
    const left = await questionsLeftOpen(base.team);
    const input = new PassThrough();
    const output = new PassThrough();
    let out = '';
    output.on('data', (b: Buffer) => (out += stripVTControlCharacters(b.toString())));
    const c = (open = new LeaderConsole({ team: base.team, env: { CLAUDE_CONFIG_DIR: root }, input, output }));
    await c.start();

    await waitFor(() => out.includes(`? plan from w2 [${left.planId}]`) && out.includes('· 2 pending'), 10_000, "w2's plan, asked first").catch((e: Error) => {
      throw new Error(`${e.message}; the console showed:\n${out}`);
    });
    expect(out).toContain('1. the open plan');
    input.write('y\n');
    await waitFor(() => out.includes('? permission'), 10_000, "w1's permission request, asked next");
    expect(out).toContain(left.permissionId);
    expect(out).toContain('npm run old-check');
    expect(out).not.toContain(left.answeredPlanId);
    input.write('/quit\n');
    await c.done;
  });
});
