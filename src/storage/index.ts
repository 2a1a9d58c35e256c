// storage/: the file-system primitives every other module uses — atomic writes, locks, locked
// JSON read-modify-write with corrupt-file quarantine, regular-file-only reads, directory change hints.
export * from './atomic.js';
export * from './json-file.js';
export * from './jsonl.js';
export * from './lock.js';
export * from './regular-file.js';
export * from './watch.js';
