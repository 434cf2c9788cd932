// Installs what the build and the tests need and are missing: Debian packages (via apt-get
// when running as root, else it prints the exact command) and npm packages (npm ci).
//   node scripts/bootstrap.mjs          everything `npm test` needs
//   node scripts/bootstrap.mjs --build  only what `npm run build` / `npm start` need
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function hasCommand(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' }).status === 0;
}

function pythonHasNumpy() {
  return spawnSync('/usr/bin/python3', ['-c', 'import numpy'], { stdio: 'ignore' }).status === 0;
}

// [what, Debian package, present?, needed for the build (else only for the tests)]
const DEBIAN = [
  ['Emscripten 3.1.6 (emcc, em++)', 'emscripten', () => hasCommand('em++'), true],
  ['CMake', 'cmake', () => hasCommand('cmake'), true],
  ['make', 'make', () => hasCommand('make'), true],
  ['a native C++ compiler', 'g++', () => hasCommand('g++'), false],
  ['Catch2 v2', 'catch2', () => existsSync('/usr/include/catch2/catch.hpp'), true],
  ['clang-format', 'clang-format', () => hasCommand('clang-format'), false],
  ['Chromium', 'chromium', () => existsSync('/usr/bin/chromium'), false],
  [
    'Chinese fonts for the browser',
    'fonts-noto-cjk',
    () => existsSync('/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc'),
    false,
  ],
  ['numpy for /usr/bin/python3', 'python3-numpy', pythonHasNumpy, false],
];

export function bootstrap({ buildOnly = false } = {}) {
  const missing = DEBIAN.filter(([, , present, forBuild]) => (forBuild || !buildOnly) && !present());
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
    console.log('bootstrap: node_modules is missing, running npm ci');
    execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  bootstrap({ buildOnly: process.argv.includes('--build') });
  console.log('bootstrap: everything is installed');
}
