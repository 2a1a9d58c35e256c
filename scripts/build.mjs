// `npm run build`: compile src/ to dist/ (tsgo, tsconfig.build.json), bundle it (scripts/bundle.mjs),
// then record in dist/.build-inputs the fingerprint of everything the build read. With
// `--if-changed` (what `npm test` runs first) nothing is done when that fingerprint still matches
// and the bundle is there: `npm ci` has just built the same tree (its prepare script), and building
// it again cost 5 s of every CI run.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fingerprint } from './fingerprint.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = path.join(ROOT, 'dist/.build-inputs');
const BUNDLE = path.join(ROOT, 'dist/bundle/main.js');
const inputs = () =>
  fingerprint(ROOT, {
    dirs: ['src'],
    files: ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts/build.mjs', 'scripts/bundle.mjs', 'scripts/fingerprint.mjs'],
  });

const before = inputs();
if (process.argv.includes('--if-changed') && existsSync(BUNDLE) && existsSync(STAMP) && readFileSync(STAMP, 'utf8').trim() === before) {
  process.stdout.write('build: dist/ is already built from these sources\n');
  process.exit(0);
}
rmSync(STAMP, { force: true }); // a build that fails half-way leaves no stamp behind
for (const step of [
  [path.join(ROOT, 'node_modules/tsgo/bin/tsc'), '-p', 'tsconfig.build.json'],
  [path.join(ROOT, 'scripts/bundle.mjs')],
]) {
  const r = spawnSync(process.execPath, step, { cwd: ROOT, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// Stamped only with what was read before the build began: a source edited meanwhile builds again next time.
if (inputs() === before) writeFileSync(STAMP, `${before}\n`);
