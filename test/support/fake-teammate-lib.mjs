// What the fake teammate (fake-teammate.mjs) uses of the BUILT dist/: the mailbox and its follower,
// the lead's signature check, atomic writes, the team's paths and the control messages. One module
// of static re-exports, so that it bundles (fake-lib-bundle.ts) into one file, as swarm itself runs
// bundled: the suite's children and the spawn bench load that, not some 150 modules one by one.
export * from '../../dist/mailbox/mailbox.js';
export * from '../../dist/mailbox/follow.js';
export * from '../../dist/permissions/signing.js';
export * from '../../dist/storage/atomic.js';
export * from '../../dist/team/paths.js';
export * from '../../dist/team/team.js';
export * from '../../dist/protocol/control.js';
