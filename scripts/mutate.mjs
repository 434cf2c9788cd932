// `npm run mutate`: Stryker's mutation score of the page modules whose logic the node tests
// can check (the formatting, show-the-work, colours, tokenize, the undo history, the exports,
// the store, the share link, the state's JSON, schema and option registry, the presets, the
// editor's model and the matrix parser, the stored work), with its TAP runner over the node
// tests that check them. Not part of `npm test`: it takes minutes. Writes docs/mutation.md
// (generated: the score per module, and each surviving mutant, to be killed by a test or
// explained). A survivor no test can kill (an equivalent mutant: the same behaviour by another
// path) is explained in docs/mutation-explained.json, keyed by `module mutator original →
// replacement`; the report shows each explanation by its mutant, and the run fails on a key that
// matches no survivor (stale: the code changed, or a test now kills it).
//   node scripts/mutate.mjs [--runs state,model] [--concurrency 2] [--incremental] [--reuse] [--list-unexplained]
// --runs: only these runs (below); the others' results are read from their last run
// (build/mutation/<run>.json). --reuse: no run, the page written again from those results (after
// a change of the explanations). --incremental: the mutants whose code and covering tests are
// unchanged since a run's last keep their result (after adding tests, only what they cover runs).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './build.mjs';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
// The runs, one Stryker after another (the machine is shared): each its modules and only the node
// test files that check them, so that a mutant runs in about a second (a mutant runs the files
// of its run that cover it, and a module imported by many files, e.g. io/parse.js, would run them
// all). Node tests too slow to run once a mutant are in none: web-export.test (numpy and pandoc,
// 30–40 s) and web-share-large.test (~5 s).
// The tests of issue 33 (web-see-*) come last in each: a mutant's covering files run in this
// order and stop at the first that fails, so a mutant killed by one of them survived all the
// others, and the score without them ("before") is read from the same run.
const RUNS = {
  view: { modules: 'ui/format,views/work,io/tokenize,io/export', tests: 'web-color,web-format,web-store,web-tokenize,web-work,web-see-color,web-see-export-text,web-see-export,web-see-format,web-see-history,web-see-tokenize,web-see-work-notes,web-see-work' },
  history: { modules: 'state/history,ui/color', tests: 'web-color,web-store,web-see-color,web-see-history' },
  state: { modules: 'state/store,state/link,state/json', tests: 'web-model,web-parse,web-persist,web-pipeline,web-share,web-store,web-variant,web-see-history,web-see-link,web-see-state,web-see-store' },
  presets: { modules: 'state/presets', tests: 'web-model,web-parse,web-persist,web-pipeline,web-share,web-store,web-variant,web-presets,web-tools,web-check,web-see-history,web-see-link,web-see-state,web-see-store,web-see-presets' },
  schema: { modules: 'state/schema,state/options', tests: 'web-attributes,web-share,web-see-link,web-see-state,web-see-schema,web-see-schema-kinds' },
  model: { modules: 'state/model,io/parse', tests: 'web-parse,web-model,web-variant,web-share,web-see-model' },
  persist: { modules: 'state/persist', tests: 'web-persist' },
};
for (const run of Object.values(RUNS)) Object.assign(run, { modules: run.modules.split(','), tests: run.tests.split(',') });
const RUN_NAMES = arg('runs', Object.keys(RUNS).join(',')).split(',');
for (const name of RUN_NAMES) if (!RUNS[name]) throw new Error(`mutate: no run ${name} (runs: ${Object.keys(RUNS).join(', ')})`);
const MODULES = Object.values(RUNS).flatMap((run) => run.modules);
// a module moved or split away is an error, not a run that mutates nothing of it; so is a test
// file that is not there
for (const module of MODULES) if (!existsSync(path.join(ROOT, 'web/src', `${module}.js`))) throw new Error(`mutate: no module web/src/${module}.js (moved or split? name the files it is now)`);
for (const name of new Set(Object.values(RUNS).flatMap((run) => run.tests))) if (!existsSync(path.join(ROOT, 'tests/js', `${name}.test.mjs`))) throw new Error(`mutate: no test file tests/js/${name}.test.mjs`);
const isNew = (file) => /web-see-/.test(file);
const OUT = path.join(ROOT, 'docs', 'mutation.md');
const EXPLAINED_FILE = path.join(ROOT, 'docs', 'mutation-explained.json');
const { excluded: EXCLUDED = {}, mutants: EXPLAINED = {} } = JSON.parse(readFileSync(EXPLAINED_FILE, 'utf8'));
// A function left out of the run ("excluded": `module name` → why, e.g. checked only by a test
// too slow to run once a mutant): the module's mutate pattern is its lines outside the function,
// from its `function name(` or `const name = ` line to the `}` that closes it at the start of a line.
const excludedOf = (module) => Object.entries(EXCLUDED).filter(([key]) => key.split(' ')[0] === `${module}.js`).map(([key, why]) => {
  const name = key.split(' ')[1];
  const lines = readFileSync(path.join(ROOT, 'web/src', `${module}.js`), 'utf8').split('\n');
  const start = lines.findIndex((l) => new RegExp(`^(export )?(function ${name}\\(|const ${name} = )`).test(l));
  // a function's body ends at the first line that is '}' alone ('};' for an arrow function's); a
  // one-line definition is its own line
  const end = /[{([]$/.test(lines[start] || '') ? lines.findIndex((l, i) => i > start && /^}[;)]*$/.test(l)) : start;
  if (start < 0 || end < 0) throw new Error(`mutate: ${path.relative(ROOT, EXPLAINED_FILE)} excludes ${key}, which is not there (stale)`);
  return { key, why, from: start + 1, to: end + 1, total: lines.length };
});
const mutatePatterns = (modules) => modules.flatMap((module) => {
  const file = `web/src/${module}.js`;
  const out = excludedOf(module).sort((a, b) => a.from - b.from);
  if (!out.length) return [file];
  const kept = [];
  let next = 1;
  for (const { from, to } of out) {
    if (from > next) kept.push(`${file}:${next}-${from - 1}`);
    next = to + 1;
  }
  if (next <= out[0].total) kept.push(`${file}:${next}-${out[0].total}`);
  return kept;
});
const reportOf = (name) => path.join(ROOT, 'build', 'mutation', `${name}.json`);

const started = Date.now();
if (!process.argv.includes('--reuse')) {
  const { Stryker } = await import('@stryker-mutator/core');
  for (const name of RUN_NAMES) {
    const { modules, tests } = RUNS[name];
    const runStarted = Date.now();
    rmSync(reportOf(name), { force: true });
    const stryker = new Stryker({
      testRunner: 'tap',
      plugins: ['@stryker-mutator/tap-runner'],
      tap: { testFiles: tests.map((test) => `tests/js/${test}.test.mjs`) },
      mutate: mutatePatterns(modules),
      // the sandbox copies only what these tests read (no builds but the page's, no C++): dist/ for
      // the tests that compute with the engine (web-presets, web-tools, web-check: 4 MB, built from
      // the sources as they are, never mutated); hosts/ (100 kB) for web-see-schema, which checks the
      // Hugo shortcode's and the Python host's generated attributes
      ignorePatterns: ['/build', '/dist/python', '/cpp', '/docs', '/.stryker-tmp*', '/tests/browser', '/tests/cpp', '/tests/fuzz', '/tests/bench'],
      coverageAnalysis: 'perTest',
      concurrency: Number(arg('concurrency', 2)),
      timeoutMS: 20000,
      reporters: ['json', 'progress-append-only'],
      jsonReporter: { fileName: path.relative(ROOT, reportOf(name)) },
      tempDirName: `.stryker-tmp-${name}`,
      incremental: process.argv.includes('--incremental'),
      incrementalFile: path.relative(ROOT, path.join(ROOT, 'build', 'mutation', `${name}-incremental.json`)),
      cleanTempDir: 'always',
      logLevel: 'warn',
    });
    await stryker.runMutationTest();
    // when and how long: shown on the page beside the run's results
    writeFileSync(reportOf(`${name}-time`), JSON.stringify({ at: new Date().toISOString(), minutes: (Date.now() - runStarted) / 60000, concurrency: Number(arg('concurrency', 2)), tests }));
  }
}
// A run with no result here yet is named on the page as not measured (its modules are not in
// the table), and the command fails: the page is then incomplete.
const DONE = Object.keys(RUNS).filter((name) => existsSync(reportOf(name)) && existsSync(reportOf(`${name}-time`)));
const MISSING = Object.keys(RUNS).filter((name) => !DONE.includes(name));

// The score per module: killed (and timed out) over all mutants that were run or not covered.
const runs = DONE.map((name) => JSON.parse(readFileSync(reportOf(name), 'utf8')));
const timeOf = (name) => JSON.parse(readFileSync(reportOf(`${name}-time`), 'utf8'));
const report = { files: {}, testFiles: {} };
for (const run of runs) {
  for (const file of Object.keys(run.files)) if (report.files[file]) throw new Error(`mutate: ${file} is in two runs`);
  Object.assign(report.files, run.files);
  // a test's id is its run's own: prefixed by the run, in the killers' lists too
  const tag = `${runs.indexOf(run)}:`;
  for (const [name, f] of Object.entries(run.testFiles || {})) report.testFiles[`${tag}${name}`] = { ...f, tests: f.tests.map((t) => ({ ...t, id: `${tag}${t.id}` })) };
  for (const f of Object.values(run.files)) for (const m of f.mutants) m.killedBy = (m.killedBy || []).map((id) => `${tag}${id}`);
}
const rows = [];
const survivors = [];
const unexplained = [];
const before = { killed: 0 };
// a test's id → its file (the TAP runner's tests are files)
const testNames = Object.fromEntries(Object.values(report.testFiles || {}).flatMap((f) => f.tests.map((t) => [t.id, t.name])));
const testName = (id) => testNames[id] || id;
// A survivor's key in docs/mutation-explained.json: its module (under web/src), mutator, the code
// it replaces and the replacement, each on one line; the same for the same change of the same
// code anywhere in the module, so that lines moving elsewhere leave it standing.
const oneLine = (text) => text.replace(/\s+/g, ' ').trim();
const keyOf = (file, m, source) => {
  const { start, end } = m.location;
  const lines = source.split('\n');
  const original = start.line === end.line ? lines[start.line - 1].slice(start.column - 1, end.column - 1)
    : [lines[start.line - 1].slice(start.column - 1), ...lines.slice(start.line, end.line - 1), lines[end.line - 1].slice(0, end.column - 1)].join('\n');
  return `${file.replace(/^web\/src\//, '')} ${m.mutatorName} ${oneLine(original).slice(0, 80)} → ${oneLine(m.replacement || '').slice(0, 80)}`;
};
const used = new Set();
const cell = (text) => `\`${text.replace(/\|/g, '\\|').replace(/`/g, "'")}\``;
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
  const lines = source.split('\n');
  let explained = 0;
  for (const m of mutants.filter((x) => x.status === 'Survived' || x.status === 'NoCoverage')) {
    const line = m.location.start.line;
    const key = keyOf(file, m, source);
    const why = EXPLAINED[key];
    if (why) {
      used.add(key);
      explained += 1;
    } else {
      unexplained.push(key);
    }
    const code = lines[line - 1].trim().slice(0, 100);
    survivors.push(`| ${file}:${line} | ${m.mutatorName} | ${m.status} | ${cell((m.replacement || '').replace(/\s+/g, ' ').slice(0, 60))} | ${cell(code)} | ${why ? why.replace(/\|/g, '\\|') : '**not explained**'} |`);
  }
  rows.push(`| ${file} | ${valid} | ${killed} | ${survived} | ${noCoverage} | ${explained} | ${pct(killedBefore)} | ${pct(killed)} | ${pct(killed + explained)} |`);
}
const all = Object.values(report.files).flatMap((f) => f.mutants);
const killedAll = all.filter((m) => m.status === 'Killed' || m.status === 'Timeout').length;
const validAll = all.filter((m) => ['Killed', 'Timeout', 'Survived', 'NoCoverage'].includes(m.status)).length;
const minutes = ((Date.now() - started) / 60000).toFixed(1);
const ranAt = (name) => `${timeOf(name).at.slice(0, 16).replace('T', ' ')} UTC, ${timeOf(name).minutes.toFixed(1)} min at concurrency ${timeOf(name).concurrency}`;
const leftOut = DONE.flatMap((name) => RUNS[name].modules).flatMap((module) => excludedOf(module).map(({ key, why, from, to }) => `- \`${key}\` (lines ${from}–${to}): ${why}`));
// explanations of this run's modules that matched no survivor: stale
const ran = Object.keys(report.files).map((f) => f.replace(/^web\/src\//, ''));
const stale = Object.keys(EXPLAINED).filter((key) => ran.includes(key.split(' ')[0]) && !used.has(key));
writeFileSync(OUT, `# Mutation score (generated)

Written by \`npm run mutate\` (scripts/mutate.mjs): Stryker ${JSON.parse(readFileSync(path.join(ROOT, 'node_modules/@stryker-mutator/core/package.json'), 'utf8')).version}, its TAP runner over
the node test files of each run (scripts/mutate.mjs's RUNS), run one after another:
${Object.entries(RUNS).map(([name, { modules, tests }]) => `- ${name} (${DONE.includes(name) ? ranAt(name) : '**no result: not measured on this page**'}): ${modules.join(', ')}; ${(DONE.includes(name) ? timeOf(name).tests || tests : tests).map((t) => `\`${t}\``).join(', ')}`).join('\n')}

Do not edit by hand. Written ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC by \`npm run mutate${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}\`.

Score = killed (or timed out) / (killed + survived + not covered). "Before": the same run, counting
only the mutants that a test older than issue 33's (not web-see-*) killed; "after": all of them.
"Explained": survivors no test can kill, each explained in docs/mutation-explained.json (below,
by its mutant); the last column counts them with the killed. Node tests too slow to run once a
mutant are in no run (the runs' test files are listed above), so neither column counts what they
kill: web-export.test (numpy and pandoc, 30–40 s: export's "before" is low for that reason; it
also checks the numpy script, left out below) and web-share-large.test (deep nesting through
every field and a 5 MB state, ~5 s).

| module | mutants | killed | survived | no coverage | explained | score before | score after | killed or explained |
| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |
${rows.join('\n')}
| all | ${validAll} | ${killedAll} | | | ${validAll - killedAll - unexplained.length} | ${((100 * before.killed) / validAll).toFixed(1)} % | ${((100 * killedAll) / validAll).toFixed(1)} % | ${((100 * (validAll - unexplained.length)) / validAll).toFixed(1)} % |

${leftOut.length ? `## Left out of the run\n\n${leftOut.join('\n')}\n\n` : ''}## Surviving mutants

| where | mutator | status | replacement | code | why it survives |
| --- | --- | --- | --- | --- | --- |
${survivors.join('\n')}
`);
console.log(`mutate: ${((100 * killedAll) / validAll).toFixed(1)} % of ${validAll} mutants killed, ${unexplained.length} survivors not explained; wrote ${path.relative(ROOT, OUT)} (${minutes} min)`);
if (process.argv.includes('--list-unexplained')) for (const key of unexplained) console.log(JSON.stringify(key));
if (MISSING.length) {
  console.error(`mutate: no result of the run(s) ${MISSING.join(', ')} (build/mutation/<run>.json): their modules are not on the page; run them (--runs ${MISSING.join(',')})`);
  process.exitCode = 1;
}
if (stale.length) {
  console.error(`mutate: ${stale.length} explanation(s) in ${path.relative(ROOT, EXPLAINED_FILE)} match no surviving mutant (the code changed, or a test kills it now); remove or re-key them:\n${stale.map((k) => `  ${JSON.stringify(k)}`).join('\n')}`);
  process.exitCode = 1;
}
