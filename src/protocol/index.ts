// protocol/: the on-disk records and control messages as zod schemas with inferred types, names
// and ids. Pure: no I/O.
export * from './budget.js';
export * from './colors.js';
export * from './config.js';
export * from './context-window.js';
export * from './control.js';
export * from './conversation.js';
export * from './demo.js';
export * from './errors.js';
export * from './hosted.js';
export * from './ids.js';
export * from './message.js';
export * from './mode-ceiling.js';
export * from './names.js';
export * from './permission.js';
export * from './prices.js';
export * from './rate-limit.js';
export * from './shutdown-timing.js';
export * from './status.js';
export * from './task.js';
export * from './text.js';
