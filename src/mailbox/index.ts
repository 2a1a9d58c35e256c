// mailbox/: inboxes — append, send/broadcast, read, consume, compact, follow.
export * from './follow.js';
export * from './mailbox.js';
export * from './send.js';
