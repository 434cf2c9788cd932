// `npm run mutate`: Stryker's mutation score of the page modules whose logic the node tests
// can check (the formatting, show-the-work, colours, tokenize, the undo history and the
// exports), with its TAP runner over the node tests that import them. Not part of `npm test`:
// it takes minutes. Writes docs/mutation.md (generated: the score per module, and each
// surviving mutant, to be killed by a test or explained).
//   node scripts/mutate.mjs [--modules ui/format,views/work] [--tests web-format,web-work] [--out docs/mutation.md]
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './build.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const MODULES = arg('modules', 'ui/format,views/work,ui/color,io/tokenize,state/history,io/export').split(',');
// The node tests of those modules (the engine's API tests need the wasm build and cover none of
// them; web-export.test runs numpy and pandoc, ~28 s a run here: too slow for one run a mutant).
// The tests of issue 33 (web-see-*) come last: a mutant's covering files run in this order and
// stop at the first that fails, so a mutant killed by one of them survived all the others, and
// the score without them ("before") is read from the same run.
const TESTS = arg('tests', 'web-format,web-work,web-color,web-tokenize,web-store,web-see-format,web-see-work,web-see-tokenize,web-see-export').split(',');
const isNew = (file) => /web-see-/.test(file);
const OUT = path.resolve(ROOT, arg('out', 'docs/mutation.md'));
// the JSON report and the sandbox are named after the output, so that two runs can go at once
const NAME = path.basename(OUT, '.md');
const REPORT = path.join(ROOT, 'build', 'mutation', `${NAME}.json`);

const { Stryker } = await import('@stryker-mutator/core');
const started = Date.now();
rmSync(REPORT, { force: true });
const stryker = new Stryker({
  testRunner: 'tap',
  plugins: ['@stryker-mutator/tap-runner'],
  tap: { testFiles: TESTS.map((name) => `tests/js/${name}.test.mjs`) },
  mutate: MODULES.map((name) => `web/src/${name}.js`),
  // the sandbox copies only what these tests read (no builds, no C++)
  ignorePatterns: ['/build', '/dist', '/cpp', '/docs', '/hosts', '/types', '/.stryker-tmp*', '/tests/browser', '/tests/cpp', '/tests/fuzz', '/tests/bench'],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 20000,
  reporters: ['json', 'clear-text', 'progress-append-only'],
  jsonReporter: { fileName: path.relative(ROOT, REPORT) },
  tempDirName: `.stryker-tmp-${NAME}`,
  cleanTempDir: 'always',
  logLevel: 'warn',
});
await stryker.runMutationTest();
if (!existsSync(REPORT)) throw new Error(`mutate: Stryker wrote no report (${REPORT})`);

// The score per module: killed (and timed out) over all mutants that were run or not covered.
const report = JSON.parse(readFileSync(REPORT, 'utf8'));
const rows = [];
const survivors = [];
const before = { killed: 0 };
// a test's id → its file (the TAP runner's tests are files)
const testNames = Object.fromEntries(Object.values(report.testFiles || {}).flatMap((f) => f.tests.map((t) => [t.id, t.name])));
const testName = (id) => testNames[id] || id;
for (const [file, { mutants, source }] of Object.entries(report.files).sort()) {
  const count = (...statuses) => mutants.filter((m) => statuses.includes(m.status)).length;
  const killed = count('Killed', 'Timeout');
  const survived = count('Survived');
  const noCoverage = count('NoCoverage');
  const valid = killed + survived + noCoverage;
  // killed without the web-see-* tests: by an older file (a timeout counts as killed in both)
  const killedBefore = mutants.filter((m) => m.status === 'Timeout' || (m.status === 'Killed' && !(m.killedBy || []).some((id) => isNew(testName(id))))).length;
  const pct = (k) => (valid ? `${((100 * k) / valid).toFixed(1)} %` : '–');
  before.killed += killedBefore;
  rows.push(`| ${file} | ${valid} | ${killed} | ${survived} | ${noCoverage} | ${pct(killedBefore)} | ${pct(killed)} |`);
  const lines = source.split('\n');
  for (const m of mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
    const line = m.location.start.line;
    const code = lines[line - 1].trim().slice(0, 100).replace(/\|/g, '\\|');
    survivors.push(`| ${file}:${line} | ${m.mutatorName} | ${m.status} | \`${(m.replacement || '').slice(0, 60).replace(/\|/g, '\\|').replace(/`/g, "'")}\` | \`${code.replace(/`/g, "'")}\` |`);
  }
}
const all = Object.values(report.files).flatMap((f) => f.mutants);
const killedAll = all.filter((m) => m.status === 'Killed' || m.status === 'Timeout').length;
const validAll = all.filter((m) => ['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(m.status)).length;
const minutes = ((Date.now() - started) / 60000).toFixed(1);
writeFileSync(OUT, `# Mutation score (generated)

Written by \`npm run mutate\` (scripts/mutate.mjs): Stryker ${JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@stryker-mutator/core/package.json'), 'utf8')).version}, its TAP runner over
${TESTS.map((t) => `\`tests/js/${t}.test.mjs\``).join(', ')}.
Do not edit by hand. \`npm run mutate${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`, run of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC, ${minutes} min on this machine.

Score = killed (or timed out) / (killed + survived + not covered). "Before": the same run, counting
only the mutants that a test older than issue 33's (not web-see-*) killed; "after": all of them.

| module | mutants | killed | survived | no coverage | score before | score after |
| --- | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
| all | ${validAll} | ${killedAll} | | | ${((100 * before.killed) / validAll).toFixed(1)} % | ${((100 * killedAll) / validAll).toFixed(1)} % |

## Surviving mutants

| where | mutator | status | replacement | code |
| --- | --- | --- | --- | --- |
${survivors.join('\n')}
`);
console.log(`mutate: ${((100 * killedAll) / validAll).toFixed(1)} % of ${validAll} mutants killed; wrote ${path.relative(ROOT, OUT)} (${minutes} min)`);
