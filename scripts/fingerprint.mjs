// A fingerprint of the files under some directories (and some single files): sha256 over each
// regular file's path and bytes, in sorted order. Any change to any of them changes it. Used where
// work is skipped when its inputs are unchanged: the lint cache (eslint.config.js) and the build
// that `npm test` runs first (scripts/build.mjs).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** sha256 hex of `files` and of every file under `dirs`, all relative to `root`. */
export function fingerprint(root, { dirs = [], files = [] }) {
  const all = [...files];
  for (const dir of dirs) {
    for (const f of readdirSync(path.join(root, dir), { recursive: true })) all.push(path.join(dir, f));
  }
  const hash = createHash('sha256');
  for (const f of all.sort()) {
    const full = path.join(root, f);
    if (statSync(full).isFile()) hash.update(`${f}\0`).update(readFileSync(full)).update('\0');
  }
  return hash.digest('hex');
}
