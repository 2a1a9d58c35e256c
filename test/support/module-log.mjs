// `node --import <this file>` (or NODE_OPTIONS=--import=<this file>): appends the URL of every
// module the process loads to the file $SWARM_MODULE_LOG, one per line. The same file is the
// loader hook (run on Node's hooks thread) and what registers it (on the main thread). A file of
// the bundle (dist/bundle/, scripts/bundle.mjs) is logged as the modules bundled into it, read from
// its meta.json, so a test names what a process loaded in either build. Node's own modules are not
// loaded through the hook; those named in NODE_MODULES are logged as `node:<id>` once loaded (a
// look at process.moduleLoadList every 50 ms and at exit). Each Intl.Segmenter made is logged as
// `intl:Segmenter` (13 ms of ICU set-up: scripts/bundle.mjs).
import { appendFileSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

let file;
/** dist/bundle/<file> → the URLs of the modules in it, per package root. */
const bundles = new Map();

export function initialize(data) {
  file = data.file;
}

function bundledModules(url) {
  const at = url.indexOf('/dist/bundle/');
  const root = url.slice(0, at + 1);
  let outputs = bundles.get(root);
  if (outputs === undefined) {
    outputs = JSON.parse(readFileSync(new URL('dist/bundle/meta.json', root), 'utf8')).outputs;
    bundles.set(root, outputs);
  }
  const inputs = Object.keys(outputs[url.slice(root.length)]?.inputs ?? {});
  return [url, ...inputs.map((i) => new URL(i, root).href)];
}

export async function load(url, context, next) {
  const urls = url.startsWith('file:') && url.includes('/dist/bundle/') && url.endsWith('.js') ? bundledModules(url) : [url];
  appendFileSync(file, `${urls.join('\n')}\n`);
  return next(url, context);
}

/** undici: Node's fetch and its lazy globals (Headers, FormData, Response). */
const NODE_MODULES = ['internal/deps/undici/undici'];

if (isMainThread) {
  const log = process.env.SWARM_MODULE_LOG;
  register(import.meta.url, { data: { file: log } });
  const left = new Set(NODE_MODULES);
  const look = () => {
    for (const id of left) {
      if (!process.moduleLoadList.includes(`NativeModule ${id}`)) continue;
      appendFileSync(log, `node:${id}\n`);
      left.delete(id);
    }
  };
  setInterval(look, 50).unref();
  const Segmenter = Intl.Segmenter;
  Intl.Segmenter = class extends Segmenter {
    constructor(...args) {
      super(...args);
      appendFileSync(log, 'intl:Segmenter\n');
    }
  };
  process.on('exit', look);
}
