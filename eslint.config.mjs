import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * `import { z } from 'zod'` brings the namespace object that holds every locale: measured with esbuild
 * (minified), 454 KB of zod in a bundle against 97 KB for `import * as z from 'zod'`.
 *
 * @remarks
 * A syntax rule rather than `no-restricted-imports`, whose `importNames` also rejects the namespace import.
 */
const zodNamespace = {
  selector: "ImportDeclaration[source.value='zod'] > ImportSpecifier[imported.name='z']",
  message: "Use `import * as z from 'zod'`: the named `z` export keeps all of zod's locales in the bundle (454 KB against 97 KB minified).",
};

/** The folders of the other layers, as a relative import from anywhere under src/ or webview/ spells them. */
const layer = (name) => [`**/${name}`, `**/${name}/**`];

/**
 * The layer rules, beside test/unit/architecture.spec.ts: the editor sees a violation as it is typed.
 *
 * @remarks
 * The core runs in the extension host, the CLI and the benchmark, so it imports neither `vscode` nor the
 * layers above it; the CLI, the benchmark and the protocol run outside the editor too. The webview runs
 * in a browser frame and talks to the extension only through the protocol's messages.
 */
const layers = [
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'src/core runs outside the editor (CLI, benchmark): keep vscode in src/extension.' }],
          patterns: [
            {
              group: [...layer('extension'), ...layer('cli'), ...layer('bench'), ...layer('protocol'), ...layer('webview')],
              message: 'src/core imports only itself and plain libraries.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['src/cli/**/*.ts', 'src/bench/**/*.ts', 'src/protocol/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'Only src/extension runs inside the editor.' }],
          patterns: [
            {
              group: [...layer('extension'), ...layer('webview')],
              message: 'Only src/extension may import the extension layer; the webview is browser code.',
            },
          ],
        },
      ],
    },
  },
  {
    // The ledger view's host rules (ledgerView/ledgerController.ts) are kept free of vscode precisely so
    // the benchmark can measure them at 100k decisions.
    files: ['src/bench/ledgerViewBench.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: 'vscode', message: 'Only src/extension runs inside the editor.' }],
          patterns: [{ group: [...layer('webview')], message: 'The webview is browser code.' }],
        },
      ],
    },
  },
  {
    // How a feature asks the session and what it says about the answer: unit-tested without an editor,
    // so the editor's facts come in as plain data (test/unit/architecture.spec.ts checks it too).
    files: ['src/extension/calls/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'src/extension/calls is tested without the editor: take the editor facts it needs as plain data.' },
          ],
        },
      ],
    },
  },
  {
    files: ['webview/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          // Any package (a specifier not starting with . or ..), and any folder of src/ but the protocol.
          patterns: [
            { regex: '^(?!\\.\\.?/)', message: 'webview/ is browser code that imports only its own files and src/protocol, no package.' },
            { regex: '(^|/)src/(?!protocol(/|$))', message: 'webview/ imports only its own files and src/protocol.' },
          ],
        },
      ],
    },
  },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'out/**', '.rung/**', '.vscode-test/**', 'test-results/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      eqeqeq: ['error', 'smart'],
      'no-restricted-syntax': ['error', zodNamespace],
    },
  },
  ...layers,
);
