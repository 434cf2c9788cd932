// CommonJS so that Node loads it without guessing: the root package.json
// declares no module type.
const js = require('@eslint/js');
const globals = require('globals');

module.exports = [
  { ignores: ['dist/', 'build/', 'node_modules/'] },
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
  },
  {
    // The engine's JS API is a classic-script fragment the build wraps in a
    // closure; it exports through module.exports when run under Node.
    files: ['cpp/**/*.js'],
    languageOptions: { sourceType: 'script', globals: { ...globals.browser, module: 'readonly' } },
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
];
