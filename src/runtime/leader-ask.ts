// Asking team-lead for a tool call, through permissions/worker.requestPermission (team rules first,
// then pending/<id>.json + a permission_request frame, then a signed answer). This file only adapts
// it to the runtime: a description the leader can judge, pane lines for the wait, and the set of
// request ids this process is done with (so inbox delivery can drop their late frames).
import { isTool } from '../protocol/tool-names.js';
import { requestPermission, type PermissionEvent, type PermissionResult } from '../permissions/worker.js';
import type { TeammateSettings } from './args.js';
import type { Transcript } from './transcript.js';
import type { PaneView } from './view.js';

export interface AskRequest {
  toolName: string;
  toolUseId: string;
  input: Record<string, unknown>;
  summary: string;
}

export type Ask = (req: AskRequest, signal: AbortSignal) => Promise<PermissionResult>;

export function describeRequest(req: AskRequest): string {
  const description = req.input.description;
  if (isTool(req.toolName, 'Bash')) return typeof description === 'string' && description.trim() !== '' ? description : `Run: ${req.summary}`;
  return `${req.toolName} ${req.summary}`;
}

export function createLeaderAsk(
  s: Pick<TeammateSettings, 'team' | 'name' | 'color' | 'cwd' | 'verifyKey'>,
  deps: { view: PaneView; transcript: Transcript; finished: Set<string>; pollMs?: number },
): Ask {
  return async (req, signal) => {
    let id: string | undefined;
    const onEvent = (e: PermissionEvent): void => {
      deps.transcript.append({ ...e, kind: 'permission_event', event: e.kind });
      if (e.kind === 'requested') {
        id = e.id;
        deps.view.waiting(`asking team-lead: ${req.toolName} ${req.summary} [${e.id}]`);
      } else if (e.kind === 'rule') {
        deps.view.notice(`team rule ${e.rule} → ${e.decision}`);
      } else if (e.kind === 'rejected') {
        deps.view.warn(`ignored a forged answer to ${e.id} (${e.reason})`);
      } else if (e.kind === 'rules_error') {
        deps.view.warn(e.message);
      }
    };
    try {
      const result = await requestPermission({
        team: s.team,
        workerName: s.name,
        ...(s.color ? { workerColor: s.color } : {}),
        toolName: req.toolName,
        toolUseId: req.toolUseId,
        input: req.input,
        description: describeRequest(req),
        cwd: s.cwd,
        verifyKey: s.verifyKey,
        signal,
        onEvent,
        ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
      });
      id = result.id;
      return result;
    } finally {
      if (id) deps.finished.add(id);
    }
  };
}
