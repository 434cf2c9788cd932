// The expected values are what numpy computes today: the committed fixtures are what
// the scripts in tests/ write (make_fixtures.py, make_preset_fixtures.py,
// make_export_fixtures.py, make_editor_fixtures.py, make_check_fixtures.py, make_guess_fixtures.py,
// make_see_backward_fixtures.py), byte for byte, and the worked example's values in
// tests/REFERENCE.md and fixtures.mjs are what tests/reference.py prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { RESULTS, TUTORIAL_EXPECTED, loadFixtureCases } from './fixtures.mjs';

const PYTHON = '/usr/bin/python3';
const TESTS = new URL('..', import.meta.url);
const NO_NUMPY = spawnSync(PYTHON, ['-c', 'import numpy'], { stdio: 'ignore' }).status !== 0
  && `${PYTHON} has no numpy, so the fixtures cannot be regenerated: npm run bootstrap installs python3-numpy`;

function python(script, args = []) {
  const run = spawnSync(PYTHON, [new URL(script, TESTS).pathname, ...args], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${script} failed: ${run.stderr}`);
  return run.stdout;
}

// Each script writes into a fresh folder; every file it writes must be the committed one.
const SCRIPTS = [
  ['make_fixtures.py', 'fixtures'],
  ['make_preset_fixtures.py', 'fixtures'],
  ['make_export_fixtures.py', 'fixtures/exports'],
  ['make_editor_fixtures.py', 'fixtures'],
  ['make_check_fixtures.py', 'fixtures'],
  ['make_guess_fixtures.py', 'fixtures'],
  ['make_see_backward_fixtures.py', 'fixtures'],
];

for (const [script, committedFolder] of SCRIPTS) {
  test(`the committed files of tests/${script} are what it writes now, byte for byte`, { skip: NO_NUMPY }, () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'fixtures-'));
    try {
      python(script, ['--out', folder]);
      const written = readdirSync(folder);
      assert.ok(written.length > 0, `${script} wrote nothing`);
      for (const name of written) {
        const committed = new URL(`${committedFolder}/${name}`, TESTS);
        assert.ok(readFileSync(path.join(folder, name)).equals(readFileSync(committed)),
          `tests/${committedFolder}/${name} differs from what ${script} writes now`);
      }
    } finally {
      rmSync(folder, { recursive: true });
    }
  });
}

test('tests/REFERENCE.md and fixtures.mjs hold exactly what tests/reference.py prints', { skip: NO_NUMPY }, () => {
  const printed = python('reference.py');
  const reference = readFileSync(new URL('REFERENCE.md', TESTS), 'utf8');
  assert.ok(reference.includes(`\`\`\`\n${printed}\`\`\`\n`), 'REFERENCE.md shows the printed block verbatim');
  // "Weights [[…], …]" per line: Python's repr of float lists is JSON, and round-trip exact
  const steps = Object.fromEntries(printed.trim().split('\n').map((line) => {
    const [, label, rows] = /^(\S+)\s+(.*)$/.exec(line);
    return [label.toLowerCase(), JSON.parse(rows)];
  }));
  assert.deepEqual(steps, TUTORIAL_EXPECTED);
});

test('the fixtures\' tutorial case has the worked example\'s digits', () => {
  const tutorial = loadFixtureCases().find((c) => c.name === 'tutorial_woaini');
  for (const name of RESULTS) assert.deepEqual(tutorial[name], TUTORIAL_EXPECTED[name], name);
});
