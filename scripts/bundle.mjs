// The second half of `npm run build`: bundles what tsc wrote to dist/ into dist/bundle/, the code
// bin/swarm.js runs. Node 20 loads ES modules one file at a time, about half a millisecond each, and
// a `swarm` command loaded some 200 of them (zod alone is 95) before doing anything; a bundle is a
// handful of files. Two entries, as bin/swarm.js has: the full CLI (dist/cli/main.js) and the
// teammate's fast entry (dist/cli/teammate-main.js). Every `import()` stays lazy: with splitting,
// what a dynamic import loads is a chunk of its own, loaded only when the import runs. The package's
// dependencies are bundled too (they are most of the files); the files they read at run time are
// found from the bundle's place, dist/bundle/ being as deep in the package as dist/cli/.
// dist/bundle/meta.json maps each output file to the modules in it (test/support/module-log.mjs
// reads it to say which modules a process loaded).
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUT = path.join(PACKAGE, 'dist/bundle');

/**
 * string-width makes an Intl.Segmenter as its module loads: 13 ms of ICU set-up in every swarm
 * process, which loads it (through yargs' help layout and wrap-ansi) though most commands never
 * measure a string. In the bundle it makes it on first use instead, the same default segmenter. A
 * string-width that makes one some other way fails the build: look again.
 */
const lazySegmenter = {
  name: 'lazy-segmenter',
  setup(b) {
    b.onLoad({ filter: /[\\/]string-width[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      if (!source.includes('Intl.Segmenter')) return undefined; // an older string-width: none to make
      const eager = 'const segmenter = new Intl.Segmenter();';
      if (source.split(eager).length !== 2) throw new Error(`${args.path}: expected one "${eager}" to make lazy (scripts/bundle.mjs)`);
      return { contents: source.replace(eager, 'let made; const segmenter = { segment: (text) => (made ??= new Intl.Segmenter()).segment(text) };'), loader: 'js' };
    });
  },
};

const result = await build({
  absWorkingDir: PACKAGE,
  entryPoints: ['dist/cli/main.js', 'dist/cli/teammate-main.js'],
  outdir: OUT,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  metafile: true,
  plugins: [lazySegmenter],
  logLevel: 'warning',
  // No comments or layout in the code: V8 keeps each file's source text in every process's heap
  // (twice its size when one comment has a non-ASCII character: a two-byte string), and parses it
  // on every start. Identifiers keep their names, for stack traces. Licence comments go to a
  // .LEGAL.txt beside each file instead.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'external',
  // The CommonJS dependencies (proper-lockfile, shell-quote, which …) call require() for Node's
  // own modules: give the bundle one.
  banner: { js: "import { createRequire as __swarmRequire } from 'node:module'; const require = __swarmRequire(import.meta.url);" },
});
writeFileSync(path.join(OUT, 'meta.json'), JSON.stringify(result.metafile));
