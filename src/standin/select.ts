// Which script turn answers a request. The rule, exactly:
//
// 1. The request's agent is its `x-swarm-agent` header ('' when absent: all header-less clients
//    share one agent). Every agent has its own cursor: a count of uses per turn.
// 2. A turn's match has two parts. *Audience*: `agent` (exact header) and `system` (substring of the
//    system prompt) — who is asking. *Content*: `lastUser` (substring of the last user message's
//    text) and `toolResult` (that message carries a tool_result for a tool of that name), or a
//    predicate function — what they are asking about. A missing condition always holds.
// 3. The answer is the first turn, in script order, that the agent has not used up and whose
//    audience and content both match. A turn is used up after one use, or after `times` uses for
//    an error / disconnect step. Turns skipped over stay available: an agent consumes its turns in
//    order, but a later turn may be taken first when only it matches the content.
// 4. No such turn, but every turn whose audience matches is used up → the agent is *exhausted*
//    (answered with the short end_turn text). Otherwise the request is *unmatched*: either no turn
//    is meant for this audience at all, or turns remain for it but none matches the content; the
//    reason names the agent, the system prompt, the last user message and what the next turn wants.
//
// 0. Before all that: with `"shutdown": "approve"` in the script, a request whose last user message
//    holds a shutdown_request is answered with the approval (kind `shutdown`) and uses no turn.
//
// The selection is synchronous, so concurrent requests from one agent never take the same turn.

import { oneLine } from '../protocol/text.js';
import type { IncomingRequest } from './request.js';
import { lastToolResultNames, lastUserText, shutdownRequestId, systemText } from './request.js';
import type { Action, Match, MatchPredicate, Script } from './script.js';

export type Selection =
  | { kind: 'turn'; index: number; action: Action }
  | { kind: 'shutdown'; requestId: string }
  | { kind: 'exhausted' }
  | { kind: 'unmatched'; reason: string };

function audienceMatches(match: Match | MatchPredicate, req: IncomingRequest): boolean {
  if (typeof match === 'function') return true;
  if (match.agent !== undefined && match.agent !== req.agent) return false;
  return match.system === undefined || systemText(req.body).includes(match.system);
}

function contentMatches(match: Match | MatchPredicate, req: IncomingRequest): boolean {
  if (typeof match === 'function') return match(req);
  if (match.lastUser !== undefined && !lastUserText(req.body).includes(match.lastUser)) return false;
  return match.toolResult === undefined || lastToolResultNames(req.body).includes(match.toolResult);
}

function usesAllowed(action: Action): number {
  if (action.kind === 'error') return action.error.times;
  if (action.kind === 'disconnect') return action.disconnect.times;
  return 1;
}

function excerpt(text: string, max = 120): string {
  return JSON.stringify(oneLine(text, max));
}

function describeMatch(match: Match | MatchPredicate): string {
  return typeof match === 'function' ? 'a predicate function' : JSON.stringify(match);
}

function describeRequest(req: IncomingRequest): string {
  const agent = req.agent === '' ? '(no x-swarm-agent header)' : JSON.stringify(req.agent);
  const tools = lastToolResultNames(req.body);
  return (
    `agent ${agent}, system ${excerpt(systemText(req.body))}, last user message ${excerpt(lastUserText(req.body))}` +
    (tools.length > 0 ? `, tool_results for [${tools.join(', ')}]` : '')
  );
}

/** Creates the per-agent cursors over `script` and returns the selection function. */
export function createTurnSelector(script: Script): (req: IncomingRequest) => Selection {
  const usesByAgent = new Map<string, number[]>();

  return (req) => {
    const shutdownId = script.shutdown === 'approve' ? shutdownRequestId(req.body) : undefined;
    if (shutdownId !== undefined) return { kind: 'shutdown', requestId: shutdownId };
    const uses = usesByAgent.get(req.agent) ?? script.turns.map(() => 0);
    usesByAgent.set(req.agent, uses);
    const audience = script.turns.flatMap((turn, index) => (audienceMatches(turn.match, req) ? [index] : []));
    if (audience.length === 0) {
      return { kind: 'unmatched', reason: `no script turn is meant for ${describeRequest(req)}` };
    }
    const open = audience.filter((i) => (uses[i] ?? 0) < usesAllowed(script.turns[i]!.action));
    if (open.length === 0) return { kind: 'exhausted' };
    const index = open.find((i) => contentMatches(script.turns[i]!.match, req));
    if (index === undefined) {
      const next = script.turns[open[0]!]!;
      return {
        kind: 'unmatched',
        reason:
          `${open.length} script turn(s) remain for ${describeRequest(req)}, but none matches it; ` +
          `the next one (turns[${open[0]}]) expects ${describeMatch(next.match)}`,
      };
    }
    uses[index] = (uses[index] ?? 0) + 1;
    return { kind: 'turn', index, action: script.turns[index]!.action };
  };
}
