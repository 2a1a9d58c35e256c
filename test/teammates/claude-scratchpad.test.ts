// Interop with the real Claude Code: a `--runtime claude` teammate (2.1.112, the devDependency run
// with node, and the native 2.1.332) in default mode, spawned by swarm on a private tmux socket,
// offline against the stand-in Messages API, writes into the team's scratchpad with its Write tool
// and nobody is asked: the --settings allow rule swarm starts it with (teammates/command-line.ts)
// is one Claude Code applies (`Edit(//<abs>/**)` covers its Write tool; with a single `/` the rule
// is relative to the settings file and Claude Code asks team-lead). Its system prompt carries the
// team memory section swarm appends (--append-system-prompt-file), as a swarm teammate's does.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { Mailbox } from '../../src/mailbox/mailbox.js';
import { parseControl } from '../../src/protocol/control.js';
import { lastToolResultNames, lastUserText, systemText, type IncomingRequest } from '../../src/standin/request.js';
import type { MessagesServer } from '../../src/standin/messages-server.js';
import { spawnTeammate } from '../../src/teammates/spawn.js';
import { CLAUDE_CODE_BUILDS, claudeSettingsLeftBehind } from '../support/claude-code.js';
import { useClaudeCodeTeam } from '../support/claude-code-team.js';
import { waitFor } from '../support/wait.js';

const TEAM = 'cc';
const PROMPT = 'Write your findings to the scratchpad.';
const FINDINGS = 'The flaky test waits on a fixed sleep.\n';
const NOTES = 'Notes left by w2 for c1.\n';

/** Claude Code's main conversation (its side requests, e.g. a title from Haiku, carry no tools). */
const main = (r: IncomingRequest): boolean => (r.body.tools ?? []).some((t) => t.name === 'Write');

describe.each(CLAUDE_CODE_BUILDS)('a real Claude Code $version teammate and the scratchpad', (build) => {
  const cc = useClaudeCodeTeam(TEAM, build, 'swarm-ccs-');
  let standin: MessagesServer;
  let file: string;
  let left: string;

  beforeEach(async () => {
    file = path.join(cc.team.paths.scratchpad, 'c1-findings.md');
    left = path.join(cc.team.paths.scratchpad, 'w2-notes.md');
    await fs.writeFile(left, NOTES);
    standin = await cc.serve({
      script: {
        turns: [
          { match: (r) => main(r) && lastUserText(r.body).includes(PROMPT), reply: { content: [{ type: 'tool_use', name: 'Write', input: { file_path: file, content: FINDINGS } }] } },
          { match: (r) => main(r) && lastToolResultNames(r.body).includes('Write'), reply: { content: [{ type: 'tool_use', name: 'Read', input: { file_path: left } }] } },
          { match: (r) => main(r) && lastToolResultNames(r.body).includes('Read'), reply: 'Findings written, notes read.' },
          // Anything else (side requests, later turns): a short answer, as often as asked.
          ...Array.from({ length: 40 }, () => ({ match: () => true, reply: 'ok' })),
        ],
      },
    });
  });

  it('writes there and reads it in default mode without a permission request', async () => {
    const { team, backend, work } = cc;
    const env = cc.env(standin);
    const started = Date.now() - 1000; // mtimes are coarser than Date.now()
    const spawned = await spawnTeammate({ team, name: 'c1', prompt: PROMPT, runtime: 'claude', permissionMode: 'default', cwd: work, backend, env, readyTimeoutMs: 60_000 });
    const asked = async (): Promise<string[]> =>
      (await new Mailbox({ team }).read('team-lead')).flatMap((m) => {
        const p = parseControl(m.text);
        return p.kind === 'control' && p.message.type === 'permission_request' ? [m.text] : [];
      });

    // On a timeout, say what Claude Code showed and whether it asked (CI cannot be watched).
    await waitFor(async () => (await fs.readFile(file, 'utf8').catch(() => undefined)) === FINDINGS, 60_000, 'the findings Claude Code writes').catch(async (e: Error) => {
      const screen = (await backend.capture({ paneId: spawned.paneId, backendType: spawned.backendType }, 40).catch(() => ({ lines: ['(no capture)'] }))).lines.join('\n');
      throw new Error(`${e.message}\n--- permission requests to team-lead:\n${(await asked()).join('\n')}\n--- the pane:\n${screen}`);
    });
    // Then it reads what another member left there: nobody asked either.
    const results = (): string =>
      standin.requests
        .flatMap((r) => {
          const last = r.body?.messages.at(-1);
          return last === undefined || typeof last.content === 'string' ? [] : last.content.filter((b) => b.type === 'tool_result');
        })
        .map((b) => JSON.stringify(b))
        .join('\n');
    await waitFor(() => standin.requests.some((r) => r.body !== undefined && lastToolResultNames(r.body).includes('Read')), 30_000, 'the Read result back at the model');
    expect(results()).toContain('Notes left by w2 for c1.');
    expect(await asked()).toEqual([]);
    const mainRequest = standin.requests.find((r) => r.body !== undefined && (r.body.tools ?? []).some((t) => t.name === 'Write'));
    expect(systemText(mainRequest!.body!)).toContain('# Team memory');
    // Its settings came from the team's file: nothing of this root left in Claude Code's temp directory.
    expect(await claudeSettingsLeftBehind(cc.root, started)).toEqual([]);
  }, 120_000);
});
