// Installs what the build and the tests need and are missing: Debian packages (via apt-get
// when running as root, else it prints the exact command) and npm packages (npm install of
// the locked versions).
//   node scripts/bootstrap.mjs          everything `npm test` needs
//   node scripts/bootstrap.mjs --build  only what `npm run build` / `npm start` need
//   node scripts/bootstrap.mjs --bench  what `npm test` needs, and OpenBLAS for `npm run bench`
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function pythonHasNumpy() {
  return spawnSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
}

function pythonHasNbconvert() {
  return spawnSync('/usr/bin/python3', ['-c', 'import nbconvert, nbformat'], { stdio: 'ignore' }).status === 0;
}

// found without importing it (torch takes seconds to import)
function pythonHas(module) {
  const script = `import importlib.util, sys; sys.exit(importlib.util.find_spec('${module}') is None)`;
  return spawnSync('/usr/bin/python3', ['-c', script], { stdio: 'ignore' }).status === 0;
}

function hasLibFuzzer() {
  const dir = '/usr/lib/llvm-14/lib/clang';
  return existsSync(dir) && readdirSync(dir).some((v) => existsSync(`${dir}/${v}/lib/linux/libclang_rt.fuzzer-x86_64.a`));
}

export const OPENBLAS_DIR = '/usr/lib/x86_64-linux-gnu/openblas-serial';

// Each purpose needs its own packages and those of the purposes before it.
const PURPOSES = ['build', 'test', 'bench'];

// [what, Debian package, present?, first purpose that needs it]
const DEBIAN = [
  ['Emscripten 3.1.6 (emcc, em++)', 'emscripten', () => hasCommand('em++'), 'build'],
  ['CMake', 'cmake', () => hasCommand('cmake'), 'build'],
  ['make', 'make', () => hasCommand('make'), 'build'],
  ['Catch2 v2', 'catch2', () => existsSync('/usr/include/catch2/catch.hpp'), 'build'],
  ['Python 3 (writes the Python wheel)', 'python3', () => existsSync('/usr/bin/python3'), 'build'],
  ['a native C++ compiler', 'g++', () => hasCommand('g++'), 'test'],
  ['clang-format', 'clang-format', () => hasCommand('clang-format'), 'test'],
  ['Chromium', 'chromium', () => existsSync('/usr/bin/chromium'), 'test'],
  [
    'Chinese fonts for the browser',
    'fonts-noto-cjk',
    () => existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'),
    'test',
  ],
  ['numpy for /usr/bin/python3', 'python3-numpy', pythonHasNumpy, 'test'],
  ['pandoc (renders the Markdown export in its test)', 'pandoc', () => hasCommand('pandoc'), 'test'],
  ['clang 14 for the sanitizer build', 'clang-14', () => hasCommand('clang++-14'), 'test'],
  // hosts for the embedding tests (tests/browser/hosts.test.mjs)
  ['Hugo', 'hugo', () => hasCommand('hugo'), 'test'],
  ['MkDocs', 'mkdocs', () => hasCommand('mkdocs'), 'test'],
  ['nbconvert for /usr/bin/python3', 'python3-nbconvert', pythonHasNbconvert, 'test'],
  // the Python package's tests (tests/js/python-package.test.mjs, tests/browser/python-notebook.test.mjs)
  ['a Jupyter kernel for nbconvert --execute', 'python3-ipykernel', () => pythonHas('ipykernel'), 'test'],
  ['PyTorch for /usr/bin/python3', 'python3-torch', () => pythonHas('torch'), 'test'],
  ['venv for /usr/bin/python3', 'python3-venv', () => pythonHas('ensurepip'), 'test'],
  ['the classic Jupyter Notebook', 'jupyter-notebook', () => pythonHas('notebook'), 'test'],
  // the worksheet printed to PDF, its pages rendered and read (tests/browser/worksheet.test.mjs)
  ['poppler-utils (pdftoppm, pdftotext)', 'poppler-utils', () => hasCommand('pdftoppm'), 'test'],
  ['RequireJS', 'libjs-requirejs', () => existsSync('/usr/share/javascript/requirejs/require.js'), 'test'],
  ['libFuzzer and the sanitizer runtimes', 'libclang-rt-14-dev', hasLibFuzzer, 'test'],
  ['single-threaded OpenBLAS', 'libopenblas0-serial', () => existsSync(OPENBLAS_DIR), 'bench'],
];

export function bootstrap({ purpose = 'test' } = {}) {
  const level = PURPOSES.indexOf(purpose);
  const missing = DEBIAN.filter(
    ([, , present, needed]) => PURPOSES.indexOf(needed) <= level && !present(),
  );
  if (missing.length > 0) {
    const packages = missing.map(([, pkg]) => pkg);
    console.log(`bootstrap: missing ${missing.map(([what]) => what).join(', ')}`);
    if (process.getuid && process.getuid() === 0) {
      const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
      execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
      execFileSync('apt-get', ['install', '-y', ...packages], { stdio: 'inherit', env });
    } else {
      console.error(
        `bootstrap: not root, so not installing. Run:\n  sudo apt-get update && sudo apt-get install -y ${packages.join(' ')}`,
      );
      process.exit(1);
    }
  }
  if (!existsSync(path.join(ROOT, 'node_modules', '.package-lock.json'))) {
    // `npm install`, not `npm ci`: with no node_modules it installs the lock's versions, and
    // it skips an optional dependency the registry does not serve (vite 8.4 names a Windows-only
    // napi-windows-process-start-time that the lock cannot hold), where `npm ci` refuses to start.
    console.log('bootstrap: node_modules is missing, running npm install (the locked versions)');
    execFileSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = PURPOSES.find((p) => process.argv.includes(`--${p}`));
  bootstrap({ purpose: flag || 'test' });
  console.log('bootstrap: everything is installed');
}
