// CommonJS so that Node loads it without guessing: the root package.json
// declares no module type.
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  { ignores: ['dist/', 'build/', 'node_modules/', '.stryker-tmp*/'] },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
  },
  {
    files: ['eslint.config.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
  },
  {
    files: ['web/**/*.js'],
    languageOptions: { globals: { ...globals.browser } },
    // Text from links, attributes, files, storage and messages is never parsed
    // as HTML or run as code (issue 6): the page builds its DOM node by node.
    rules: {
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-script-url': 'error',
      'no-restricted-properties': ['error',
        { object: 'document', property: 'write', message: 'Build nodes with createElement/textContent.' },
        { object: 'document', property: 'writeln', message: 'Build nodes with createElement/textContent.' }],
      'no-restricted-syntax': ['error',
        ...['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'createContextualFragment', 'setHTMLUnsafe', 'srcdoc'].map((name) => ({
          selector: `MemberExpression[property.name='${name}']`,
          message: `${name} parses HTML: build nodes with createElement/textContent.`,
        })),
        { selector: "CallExpression[callee.property.name='parseFromString']", message: 'DOMParser parses HTML: build nodes instead.' }],
    },
  },
  {
    // The engine's JS API is classic-script fragments the build concatenates and wraps in a
    // function (scripts/build.mjs): each names what it takes from the others (/* global */)
    // and gives them (/* exported */); the loader, last, returns from that function.
    files: ['cpp/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser } },
  },
  {
    files: ['cpp/bindings/loader.js'],
    languageOptions: { parserOptions: { ecmaFeatures: { globalReturn: true } } },
  },
  {
    files: ['scripts/**/*.{js,mjs}', 'tests/**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    // Browser tests also hold functions that run inside the page.
    files: ['tests/browser/**/*.{js,mjs}'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['tests/browser/**/*.{js,mjs}', 'scripts/**/*.{js,mjs}'],
    rules: {
      'no-restricted-syntax': ['error', {
        selector: "CallExpression[callee.property.name='waitForFunction'] > :function[async=true]",
        message: 'waitForFunction takes the promise an async function returns for true at once: poll in page.evaluate instead.',
      }],
    },
  },
];
