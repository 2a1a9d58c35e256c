// team/: the root, team paths, the Team handle, config.json and the roster.
export * from './paths.js';
export * from './scratchpad.js';
export * from './slug.js';
export * from './spend.js';
export * from './team-store.js';
export * from './team.js';
