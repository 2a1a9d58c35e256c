// tasks/: the team's shared task list on Claude Code's files (docs/protocol.md#task-list): create, list, update,
// claim and release tasks under the list and task locks.
export { CLAIM_REFUSALS } from './errors.js';
export * from './task-list.js';
export { scanList, type CorruptTask, type SkippedEntry } from './store.js';
export { findCycle, taskEdges, type Edge } from './graph.js';
