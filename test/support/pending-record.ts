// A pending permission request as a worker writes it (`pending/<id>.json`): w1 of team `t` (or of
// the `teamName` given) asking to run `make`; each test passes only what it does differently.
import type { PendingRequest } from '../../src/protocol/permission.js';

export function pendingRecord(id: string, extra: Partial<PendingRequest> = {}): PendingRequest {
  const team = extra.teamName ?? 't';
  return {
    id,
    workerId: `w1@${team}`,
    workerName: 'w1',
    teamName: team,
    toolName: 'Bash',
    toolUseId: 'toolu_1',
    description: '',
    input: { command: 'make' },
    permissionSuggestions: [],
    status: 'pending',
    createdAt: 1,
    ...extra,
  };
}
