// The expected values are what numpy computes today: the committed fixtures are what
// tests/make_fixtures.py writes, byte for byte, and the worked example's values in
// tests/REFERENCE.md and fixtures.mjs are what tests/reference.py prints.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { FIXTURE_FILE, VARIANT_FIXTURE_FILE, RESULTS, TUTORIAL_EXPECTED, loadFixtureCases } from './fixtures.mjs';

const PYTHON = '/usr/bin/python3';
const TESTS = new URL('..', import.meta.url);
const NO_NUMPY = spawnSync(PYTHON, ['-c', 'import numpy'], { stdio: 'ignore' }).status !== 0
  && `${PYTHON} has no numpy, so the fixtures cannot be regenerated: npm run bootstrap installs python3-numpy`;

function python(script, args = []) {
  const run = spawnSync(PYTHON, [new URL(script, TESTS).pathname, ...args], { encoding: 'utf8' });
  assert.equal(run.status, 0, `${script} failed: ${run.stderr}`);
  return run.stdout;
}

test('the committed fixtures are what tests/make_fixtures.py writes, byte for byte', { skip: NO_NUMPY }, () => {
  const folder = mkdtempSync(path.join(tmpdir(), 'fixtures-'));
  try {
    python('make_fixtures.py', ['--out', folder]);
    for (const committed of [FIXTURE_FILE, VARIANT_FIXTURE_FILE]) {
      const name = path.basename(committed.pathname);
      const fresh = readFileSync(path.join(folder, name));
      assert.ok(fresh.equals(readFileSync(committed)), `tests/fixtures/${name} differs from what make_fixtures.py writes now`);
    }
  } finally {
    rmSync(folder, { recursive: true });
  }
});

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
