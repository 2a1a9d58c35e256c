// team/: the root, team paths, config.json and the roster.
export * from './paths.js';
export * from './slug.js';
export * from './team-store.js';
export * from './team.js';
