// Builds dist/: the engine with the wasm embedded, as a classic script (dist/attention-engine.js:
// a global in a page, module.exports under node) and as an ES module for bundlers
// (dist/attention-engine.mjs); the page's bundled script (dist/app.js), index.html, style.css;
// for embedding: the custom element with the engine in one classic script
// (dist/attention-visualizer.js) and as an ES module importing the engine's
// (dist/attention-visualizer.mjs, the package's main entry), embed.html with its script
// (dist/embed.js) and the example tutorial (dist/examples/); the Python package as a wheel
// carrying the element script (dist/python/, scripts/build_wheel.py).
//   node scripts/build.mjs              build (bootstrapping what is missing)
//   node scripts/build.mjs --if-needed  only when a source is newer than dist/
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bootstrap } from './bootstrap.mjs';
import { modelScript } from '../web/src/engine/models.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIST = path.join(ROOT, 'dist');
const SOURCES = ['cpp', 'web', 'hosts/python', 'CMakeLists.txt', 'scripts/build.mjs', 'scripts/build_wheel.py', 'package-lock.json'];
const SCRIPTS = ['attention-engine.js', 'attention-engine.mjs', 'app.js', 'attention-visualizer.js', 'attention-visualizer.mjs', 'embed.js'];
const STATIC_FILES = ['index.html', 'style.css', 'embed.html', 'embed.css'];
const VERSION = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
export const WHEEL = path.join(DIST, 'python', `attention_visualizer-${VERSION}-py3-none-any.whl`);

// em++ needs Debian's node modules (acorn) when node is not Debian's own build.
const EM_ENV = { ...process.env, NODE_PATH: '/usr/share/nodejs' };

function run(cmd, args, env = process.env) {
  execFileSync(cmd, args, { cwd: ROOT, stdio: 'inherit', env });
}

// The three CMake builds of the tree, each in build/<kind>.
const CMAKE_KINDS = {
  native: [],
  wasm: [],
  sanitize: ['-DCMAKE_CXX_COMPILER=clang++-14', '-DATTENTION_SANITIZE=ON'],
};

// Configures a CMake build folder (quick once cached; it also makes targets added since the
// last configure known to make), then builds the given targets.
export function cmakeBuild({ kind, targets }) {
  const wasm = kind === 'wasm';
  const dir = path.join(ROOT, 'build', kind);
  const configure = ['cmake', '-S', ROOT, '-B', dir, '-DCMAKE_BUILD_TYPE=Release', ...CMAKE_KINDS[kind]];
  if (wasm) run('emcmake', configure, EM_ENV);
  else run(configure[0], configure.slice(1));
  const args = ['--build', dir, '-j2'];
  for (const t of targets) args.push('--target', t);
  run('cmake', args, wasm ? EM_ENV : process.env);
  return dir;
}

// The trained models (scripts/train-models.mjs) go to dist/models/ as they are, each file checked
// against the sha256 its index.json entry records, so a hand-edited model never ships.
function copyModels() {
  const dir = path.join(ROOT, 'web/models');
  for (const { file, sha256 } of JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'))) {
    const got = createHash('sha256').update(readFileSync(path.join(dir, file))).digest('hex');
    if (got !== sha256) throw new Error(`web/models/${file}: sha256 ${got}, but index.json records ${sha256}: rerun node scripts/train-models.mjs`);
  }
  cpSync(dir, path.join(DIST, 'models'), { recursive: true });
  // each JSON file's script twin, for pages opened from file:// (web/src/engine/models.js)
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.json'))) {
    writeFileSync(path.join(DIST, 'models', file.replace(/\.json$/, '.js')), modelScript(readFileSync(path.join(dir, file), 'utf8')));
  }
}

function newestMtime(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return Math.max(s.mtimeMs, ...readdirSync(p).map((f) => newestMtime(path.join(p, f))));
}

function isUpToDate() {
  const outputs = [...[...SCRIPTS, ...STATIC_FILES].map((f) => path.join(DIST, f)), WHEEL];
  if (!outputs.every(existsSync)) return false;
  const built = Math.min(...outputs.map((f) => statSync(f).mtimeMs));
  return SOURCES.every((s) => newestMtime(path.join(ROOT, s)) <= built);
}

// The engine's JS API, concatenated in this order (cpp/bindings/loader.js says what each holds):
// declarations first, the loader last, as it ends the function with its return.
const ENGINE_API_FILES = ['validate.js', 'validate-model.js', 'engine.js', 'worker-client.js', 'worker-server.js', 'loader.js'];

// The Emscripten factory, the wasm bytes and the public wrapper in one self-contained function
// that returns createAttentionEngine (and, called with true, serves as a worker: startWorker
// runs its source text). Inside it `define`, `module` and `exports` are undefined, so the
// module's UMD tail registers nothing: no anonymous define() under RequireJS, nothing a
// bundler takes for CommonJS. Never Module or the raw factory outside.
function engineFunction(wasmDir) {
  const emitted = readFileSync(path.join(wasmDir, 'attention_module.js'), 'utf8');
  const wasm = readFileSync(path.join(wasmDir, 'attention_module.wasm')).toString('base64');
  const api = ENGINE_API_FILES.map((f) => readFileSync(path.join(ROOT, 'cpp/bindings', f), 'utf8')).join('\n');
  return [
    'function attentionEngineScript(asWorker) {',
    'var define, module, exports;',
    emitted,
    `var ATTENTION_WASM_BASE64 = '${wasm}';`,
    api,
    '}',
  ].join('\n');
}

const ENGINE_HEADER = (file) => [
  `/* ${file}: scaled dot-product attention in WebAssembly (wasm embedded).`,
  ' * Built by `npm run build` from cpp/; see docs/api.md for the API. */',
];

// dist/attention-engine.js, a classic script: in a page or worker it defines the global
// createAttentionEngine whatever else the page has (RequireJS, a `module` variable); under
// node's require() it is module.exports. dist/attention-engine.mjs: the same engine as an
// ES module (named and default export) for bundlers, with nothing node-only to resolve.
function writeEngineScripts(wasmDir) {
  const engine = engineFunction(wasmDir);
  const classic = [
    ...ENGINE_HEADER('attention-engine.js'),
    '(function () {',
    `var createAttentionEngine = (${engine})(false);`,
    "if (typeof window === 'undefined' && typeof self === 'undefined' && typeof module === 'object' && module && module.exports) {",
    '  module.exports = createAttentionEngine;',
    '} else {',
    '  globalThis.createAttentionEngine = createAttentionEngine;',
    '}',
    '})();',
    '',
  ];
  writeFileSync(path.join(DIST, 'attention-engine.js'), classic.join('\n'));
  const esm = [
    ...ENGINE_HEADER('attention-engine.mjs'),
    `const createAttentionEngine = (${engine})(false);`,
    'export { createAttentionEngine };',
    'export default createAttentionEngine;',
    '',
  ];
  writeFileSync(path.join(DIST, 'attention-engine.mjs'), esm.join('\n'));
}

// The custom element (its CSS bundled as text) after the engine, in one classic script, so
// one <script> tag is enough. The engine part is skipped when attention-engine.js came
// first: then every element uses that engine, never a second wasm module.
// As an ES module (web/src/page/package.js), the element imports ./attention-engine.mjs.
async function writeElementScripts(esbuild) {
  const common = { bundle: true, target: 'es2020', loader: { '.css': 'text' }, logLevel: 'warning' };
  const bundle = await esbuild({ ...common, entryPoints: [path.join(ROOT, 'web/src/element/element.js')], format: 'iife', write: false });
  const engine = readFileSync(path.join(DIST, 'attention-engine.js'), 'utf8');
  const text = [
    '/* attention-visualizer.js: the <attention-visualizer> element and the attention engine',
    ' * (wasm embedded). Built by `npm run build`; see docs/authoring.md. */',
    "if (typeof globalThis.createAttentionEngine !== 'function') {",
    engine,
    '}',
    bundle.outputFiles[0].text,
  ].join('\n');
  writeFileSync(path.join(DIST, 'attention-visualizer.js'), text);
  const engineModule = {
    name: 'engine-module',
    setup(build) {
      build.onResolve({ filter: /^attention-visualizer\/engine$/ }, () => ({ path: './attention-engine.mjs', external: true }));
    },
  };
  await esbuild({
    ...common,
    entryPoints: [path.join(ROOT, 'web/src/page/package.js')],
    format: 'esm',
    plugins: [engineModule],
    banner: { js: '/* attention-visualizer.mjs: the <attention-visualizer> element (import \'attention-visualizer\'). See docs/authoring.md. */' },
    outfile: path.join(DIST, 'attention-visualizer.mjs'),
  });
}

// The Python package's wheel (PEP 427, written with Python's standard library: no setuptools,
// no network) with dist/attention-visualizer.js inside: dist/python/.
function buildWheel() {
  run('/usr/bin/python3', [path.join(ROOT, 'scripts/build_wheel.py')]);
}

export async function buildDist() {
  bootstrap({ purpose: 'build' });
  mkdirSync(DIST, { recursive: true });
  const wasmDir = cmakeBuild({ kind: 'wasm', targets: ['attention_module'] });
  writeEngineScripts(wasmDir);
  // file:// pages cannot load ES modules: bundle the page's modules into one classic script
  const { build: esbuild } = await import('esbuild'); // installed by bootstrap() above
  await esbuild({
    entryPoints: [path.join(ROOT, 'web/src/page/main.js')],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    outfile: path.join(DIST, 'app.js'),
    logLevel: 'warning',
  });
  await esbuild({
    entryPoints: [path.join(ROOT, 'web/src/page/embed.js')],
    bundle: true,
    format: 'iife',
    target: 'es2020',
    outfile: path.join(DIST, 'embed.js'),
    logLevel: 'warning',
  });
  await writeElementScripts(esbuild);
  for (const f of STATIC_FILES) cpSync(path.join(ROOT, 'web', f), path.join(DIST, f));
  cpSync(path.join(ROOT, 'web/examples'), path.join(DIST, 'examples'), { recursive: true });
  copyModels();
  buildWheel();
  console.log(`build: ${path.relative(process.cwd(), DIST) || '.'}/ is ready (open dist/index.html)`);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv.includes('--if-needed') && isUpToDate()) {
    console.log('build: dist/ is up to date');
  } else {
    await buildDist();
  }
}
