// `node --import <this file>` (or NODE_OPTIONS=--import=<this file>): appends the URL of every
// module the process loads to the file $SWARM_MODULE_LOG, one per line. The same file is the
// loader hook (run on Node's hooks thread) and what registers it (on the main thread).
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, next) {
  appendFileSync(file, `${url}\n`);
  return next(url, context);
}

if (isMainThread) register(import.meta.url, { data: { file: process.env.SWARM_MODULE_LOG } });
