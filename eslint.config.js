// The layer rule: imports point down the layers of CONTRIBUTING.md only, and `console`
// stays in the CLI layer. Both are about src/, which is all ESLint reads. The type-aware rules
// (floating and misused promises, non-Error throws) are oxlint's (.oxlintrc.json, run with
// --type-aware by tsgolint on typescript-go): the same findings in 4 s where typescript-eslint's
// program took 20. `npm run lint` runs both with zero warnings allowed; `npm test` runs it first.
import { defineConfig } from 'eslint/config';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';
import { fingerprint } from './scripts/fingerprint.mjs';

// The layers (CONTRIBUTING.md), lowest first. A layer may import its own files and any layer of a lower tier;
// mailbox, permissions and tasks share a tier, where only permissions and tasks may import mailbox.
const tiers = [
  ['protocol'],
  ['storage'],
  ['team'],
  ['mailbox', 'permissions', 'tasks'],
  ['backends'],
  ['teammates'],
  ['runtime'],
  ['cli'],
];
const sameTier = { permissions: ['mailbox'], tasks: ['mailbox'] };
// The stand-in Messages API server sits beside the layers: it speaks the protocol and nothing else.
const beside = { standin: ['protocol'] };

const layers = [...tiers.flat(), ...Object.keys(beside)];
const allowedFrom = (layer) => {
  if (layer in beside) return beside[layer];
  const tier = tiers.findIndex((t) => t.includes(layer));
  return [...tiers.slice(0, tier).flat(), ...(sameTier[layer] ?? [])];
};
// cli may import everything, standin included (its demo runs the stand-in server), except the
// command handlers: cli/commands/ is a leaf (an element of its own) that only cli/main.ts, the
// wiring, imports; what two features share lives in a feature folder or cli/output/ instead.
const allowedTargets = (layer) => (layer === 'cli' ? layers : [layer, ...allowedFrom(layer)]);
const CLI_COMMANDS = 'cli-commands';

// `npm run lint` uses --cache, which skips a file whose content and config are unchanged. Whether
// an import is allowed depends on what it resolves to, so the config carries a fingerprint of the
// sources: a change anywhere in src/ relints it all, an unchanged tree is answered from the cache.
export default defineConfig(
  { ignores: ['dist/', 'node_modules/', '.bench-out/', '.stryker-tmp/', 'reports/'] },
  { settings: { 'swarm/source-fingerprint': fingerprint(import.meta.dirname, { dirs: ['src'], files: ['tsconfig.json', 'package-lock.json'] }) } },
  {
    files: ['src/**/*.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: { 'no-console': 'error' },
  },
  {
    // zod by its exports: esbuild keeps only what the bundle uses. `{ z }` (or the default) is the
    // whole namespace, its 40 locales too: 430 KB more that every swarm process parsed at start.
    files: ['src/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "ImportDeclaration[source.value=/^zod/] > :matches(ImportSpecifier[imported.name='z'], ImportDefaultSpecifier)",
          message: "import * as z from 'zod' (scripts/bundle.mjs: the bundle then keeps only the parts of zod swarm uses)",
        },
      ],
    },
  },
  {
    // The import direction rule, for product code only: test/ and scripts/ may import anything.
    files: ['src/**/*.ts'],
    plugins: { boundaries },
    settings: {
      'import/resolver': { typescript: { project: 'tsconfig.json' } },
      'boundaries/elements': [
        // Before cli: a command handler's file is of this type, not `cli`.
        { type: CLI_COMMANDS, pattern: 'src/cli/commands', partialMatch: false },
        ...layers.map((type) => ({ type, pattern: `src/${type}`, partialMatch: false })),
      ],
      'boundaries/dependency-nodes': ['import', 'export', 'dynamic-import'],
    },
    rules: {
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          policies: [
            { allow: { to: { module: { origin: ['external', 'core'] } } } },
            ...layers.map((type) => ({
              from: { element: { type } },
              allow: { to: { element: { types: { anyOf: allowedTargets(type) } } } },
            })),
            { from: { element: { type: CLI_COMMANDS } }, allow: { to: { element: { types: { anyOf: [...layers, CLI_COMMANDS] } } } } },
            { from: { file: { path: 'src/cli/main.ts' } }, allow: { to: { element: { types: { anyOf: [CLI_COMMANDS] } } } } },
          ],
        },
      ],
      // Every file under src/ belongs to a declared layer: a new top-level folder needs a place above.
      'boundaries/no-unknown-files': 'error',
    },
  },
);
