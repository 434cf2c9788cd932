// `npm test`: installs what is missing, builds everything, then runs every check:
// formatting and lint, Catch2 natively, in wasm and under ASan/UBSan, a bounded libFuzzer run
// (all through ctest), and node's test runner over tests/js (engine API, page modules) and
// tests/browser (headless Chromium on dist/).
import { spawnSync } from 'node:child_process';
import { bootstrap } from './bootstrap.mjs';
import { ROOT, buildDist, cmakeBuild } from './build.mjs';
import { lint } from './lint.mjs';

function run(cmd, args) {
  return spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit' }).status === 0;
}

bootstrap();
await buildDist();
const nativeDir = cmakeBuild({ kind: 'native', targets: ['all'] });
const wasmDir = cmakeBuild({ kind: 'wasm', targets: ['all'] });
const sanitizeDir = cmakeBuild({ kind: 'sanitize', targets: ['all'] });

const failed = [];
const stage = (name, ok) => {
  if (!ok) failed.push(name);
};
// --no-tests=error: a build that registered no test fails its stage instead of passing empty
const ctest = (dir) => run('ctest', ['--test-dir', dir, '--output-on-failure', '--no-tests=error']);
stage('lint', lint());
stage('Catch2 native', ctest(nativeDir));
stage('Catch2 wasm', ctest(wasmDir));
stage('ASan/UBSan + fuzzing', ctest(sanitizeDir));
// node's runner last: its summary closes the output. Two files at a time: a browser test spends
// much of its time waiting on Chromium, its worker or a server, so two share the 2 cores of the
// machine the suite is timed on (each file has its own Chromium, server and folders).
stage('node tests', run(process.execPath, ['--test', '--test-concurrency=2', 'tests/js/', 'tests/browser/']));

if (failed.length > 0) {
  console.error(`npm test: FAILED: ${failed.join(', ')}`);
  process.exit(1);
}
