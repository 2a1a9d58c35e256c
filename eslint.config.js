// Lint what matters (STYLE.md): floating and misused promises, non-Error throws, `console` outside
// the CLI layer, and imports that point down the layers of SPEC §2 only. Type-aware rules read
// tsconfig.json through typescript-eslint's project service. `npm run lint` runs this with zero
// warnings allowed, and `npm test` runs it first (pretest).
import { defineConfig } from 'eslint/config';
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';
import { fingerprint } from './scripts/fingerprint.mjs';

// SPEC §2, lowest first. A layer may import its own files and any layer of a lower tier;
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

const typeAware = ['src/**/*.ts', 'test/**/*.ts', 'scripts/**/*.ts'];

// `npm run lint` uses --cache, which skips a file whose content and config are unchanged. A
// type-aware result also depends on the files it imports (a callee turning async makes an
// unchanged caller's promise float), so the config carries a fingerprint of every source and of
// where types come from: any change relints everything, and only an unchanged tree is answered
// from the cache (a rerun of `npm test` costs seconds instead of building the TypeScript program).
export default defineConfig(
  { ignores: ['dist/', 'node_modules/', '.bench-out/', '.stryker-tmp/', 'reports/'] },
  { settings: { 'swarm/source-fingerprint': fingerprint(import.meta.dirname, { dirs: ['src', 'test', 'scripts'], files: ['tsconfig.json', 'package-lock.json'] }) } },
  {
    files: typeAware,
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/only-throw-error': 'error',
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/cli/**'],
    rules: { 'no-console': 'error' },
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
  {
    // Outside tsconfig.json (bin/, JS test and bench workers, the configs): no type information,
    // so only syntax and unused disable comments are checked here.
    files: ['**/*.js', '**/*.mjs', '*.config.ts'],
    languageOptions: { parser: tseslint.parser },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
);
