// ESLint (flat config) for folio-perf's JavaScript: `make lint` runs it.
// Two runtimes: the k6 scripts and their modules (lib/, scripts/, the k6 scripts the tests run) see
// k6's globals and no Node; the tools, tests and dashboard generator are Node ES modules. Rules are
// eslint:recommended plus those that catch real bugs; layout (quotes, semicolons, wrapping) is
// Prettier's (.prettierrc.json), so no stylistic rule is on here.
import js from '@eslint/js';
import globals from 'globals';

// What k6's JavaScript runtime (Sobek) defines beside the ECMAScript built-ins. `open` and `require`
// work in the init context only; k6 reports a call elsewhere at run time.
const k6Globals = {
  __ENV: 'readonly',
  __VU: 'readonly',
  __ITER: 'readonly',
  open: 'readonly',
  require: 'readonly',
  module: 'readonly',
  exports: 'writable',
  console: 'readonly',
  setTimeout: 'readonly',
  clearTimeout: 'readonly',
  setInterval: 'readonly',
  clearInterval: 'readonly',
};

// The k6 scripts: everything under lib/ and scripts/, and the k6 scripts other parts run.
const k6Files = [
  'lib/**/*.js',
  'scripts/**/*.js',
  'minifolio/bench-floor.js',
  'tests/e2e/k6/**/*.js',
  'tests/unit/k6/**/*.js',
  'tests/unit/fixtures/**/*.js',
];

export default [
  {
    ignores: ['**/node_modules/', 'bin/', '.stack/', 'results/', 'data/', 'dashboards/generated/'],
  },
  js.configs.recommended,
  {
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // `x == null` (null or undefined) is the one loose comparison that is meant.
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // `const { omitted, ...rest } = o` drops a key on purpose; `_` marks a parameter kept for its position.
      'no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true },
      ],
      // A use before its declaration in the same scope is a TDZ error at run time; a function that
      // names a module constant declared below it is not.
      'no-use-before-define': ['error', { functions: false, classes: false, variables: false }],
      'no-self-compare': 'error',
      'no-unreachable-loop': 'error',
      'array-callback-return': 'error',
      'no-constructor-return': 'error',
      'no-new-wrappers': 'error',
      'no-useless-call': 'error',
      radix: 'error',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    ignores: k6Files,
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: { ...globals.node } },
  },
  {
    files: k6Files,
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: k6Globals },
    rules: {
      // k6 prints a thrown string as the error alone, one line without a stack trace: the scripts'
      // user errors are thrown strings on purpose, and their messages carry the cause's text.
      'preserve-caught-error': 'off',
    },
  },
];
