// Formatting and lint checks: clang-format for the C++, ESLint for the JS, and the front end's
// layers (scripts/check-layers.mjs). Exit 1 on any finding.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkLayers } from './check-layers.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CPP_DIRS = ['cpp', 'tests/cpp', 'tests/bench'];

function cppFiles(dir) {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) return cppFiles(rel);
    return /\.(cpp|h)$/.test(e.name) ? [rel] : [];
  });
}

function run(cmd, args) {
  return spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

export function lint() {
  const files = CPP_DIRS.flatMap(cppFiles);
  const cppOk = run('clang-format', ['--dry-run', '--Werror', ...files]);
  console.log(`lint: clang-format on ${files.length} C++ files: ${cppOk ? 'clean' : 'NOT formatted (run clang-format -i)'}`);
  const jsOk = run(path.join(ROOT, 'node_modules/.bin/eslint'), ['--max-warnings=0', '.']);
  console.log(`lint: eslint: ${jsOk ? 'clean' : 'problems above'}`);
  const layers = checkLayers();
  for (const problem of layers.problems) console.error(`lint: web/src layers: ${problem}`);
  console.log(`lint: web/src layers: ${layers.modules} modules, ${layers.problems.length ? 'problems above' : 'no upward import, no loop'}`);
  return cppOk && jsOk && layers.problems.length === 0;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exit(lint() ? 0 : 1);
}
