// The presets (web/src/state/presets.js) against tests/fixtures/preset_cases.json,
// which tests/make_preset_fixtures.py builds with numpy from the presets'
// rationale: the same tokens and numbers, the engine's weights equal to
// numpy's, and the pattern each preset is for (the largest weight of each
// listed row on the listed keys, by the fixture's margin).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { PRESETS, presetOf } from '../../web/src/state/presets.js';
import { tokenize } from '../../web/src/io/tokenize.js';
import { STRINGS } from '../../web/src/ui/i18n.js';
import { PRESET_KEYS } from '../../web/src/edit/panel.js';
import { nearUniform, NEAR_UNIFORM_RATIO } from '../../web/src/views/extras.js';
import { createAttentionEngine, maxAbsDiff, TUTORIAL_EXPECTED } from './fixtures.mjs';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/preset_cases.json', import.meta.url), 'utf8'));
const INPUTS = ['x', 'wq', 'wk', 'wv'];
const engine = await createAttentionEngine();
const plainRows = (m) => Array.from(m, (row) => Array.from(row));
const inputsOf = (preset) => Object.fromEntries(INPUTS.map((f) => [f, preset[f]]));

test('the fixture covers every preset, the tutorial first, and the ratio the page uses', () => {
  assert.deepEqual(Object.keys(PRESETS), Object.keys(FIXTURE.presets));
  assert.equal(Object.keys(PRESETS)[0], 'tutorial');
  assert.equal(FIXTURE.nearUniform, NEAR_UNIFORM_RATIO);
  assert.ok(FIXTURE.margin >= 0.2);
});

test('each preset has the fixture\'s tokens and numbers, a button and a note in both languages', () => {
  // the editor's buttons (editor.js), in the presets' order, each with its label
  assert.deepEqual(Object.keys(PRESET_KEYS), Object.keys(PRESETS));
  for (const key of Object.values(PRESET_KEYS)) assert.ok(STRINGS[key], key);
  for (const [name, expected] of Object.entries(FIXTURE.presets)) {
    const preset = PRESETS[name];
    assert.deepEqual(tokenize(preset.sentence, preset.mode), expected.tokens, name);
    for (const field of INPUTS) assert.deepEqual(preset[field], expected[field], `${name}.${field}`);
    assert.ok(STRINGS[`presetNote_${name}`], `presetNote_${name}`);
  }
});

test('the tutorial preset keeps the tutorial\'s numbers', () => {
  assert.deepEqual(FIXTURE.presets.tutorial.tokens, ['我', '爱', '你']);
  assert.deepEqual(FIXTURE.presets.tutorial.x, [[1, 0], [0.5, 0.5], [0, 1]]);
  assert.deepEqual(FIXTURE.presets.tutorial.weights, TUTORIAL_EXPECTED.weights); // tests/REFERENCE.md, as tests/reference.py prints it
});

test('the engine gives numpy\'s weights on every preset, and each preset\'s pattern', () => {
  for (const [name, expected] of Object.entries(FIXTURE.presets)) {
    const { weights } = engine.compute(inputsOf(PRESETS[name]));
    assert.ok(maxAbsDiff(weights, expected.weights) <= 1e-12, `${name}: ${maxAbsDiff(weights, expected.weights)}`);
    for (const [r, largest] of expected.rows) {
      const row = weights[r];
      const top = Math.max(...row);
      for (const c of largest) assert.ok(top - row[c] <= 1e-12, `${name} row ${r}: key ${c} has the largest weight`);
      const others = row.filter((_, c) => !largest.includes(c));
      assert.ok(Math.min(...largest.map((c) => row[c])) - Math.max(...others) >= FIXTURE.margin, `${name} row ${r}: margin`);
    }
  }
});

test('"it" looks at "animal" by a clear margin', () => {
  const { tokens } = FIXTURE.presets.animal;
  const { weights } = engine.compute(inputsOf(PRESETS.animal));
  const row = weights[tokens.indexOf('it')];
  const order = [...row.keys()].sort((a, b) => row[b] - row[a]);
  assert.equal(tokens[order[0]], 'animal');
  assert.ok(row[order[0]] - row[order[1]] >= 0.2, `${row[order[0]]} vs ${row[order[1]]}`);
});

test('near-uniform weights: the tutorial\'s are, the other presets\' are not', () => {
  for (const [name, { weights }] of Object.entries(FIXTURE.presets)) {
    assert.equal(nearUniform(weights, null), name === 'tutorial' || name === 'english', name);
  }
});

test('near-uniform: masked keys do not count, exactly even rows are no case for a lower temperature', () => {
  const even = [[0.5, 0.5], [0.5, 0.5]];
  assert.equal(nearUniform(even, null), false, 'a temperature cannot spread equal scores');
  assert.equal(nearUniform([[0.45, 0.55]], null), true);
  assert.equal(nearUniform([[0.39, 0.61]], null), false, 'ratio above 1.5');
  // causal: row 0 sees one key; row 1's masked 0 is no part of its spread
  assert.equal(nearUniform([[1, 0], [0.45, 0.55]], [[false, true], [false, false]]), true);
  assert.equal(nearUniform([[1, 0], [0.5, 0.5]], [[false, true], [false, false]]), false);
  assert.equal(nearUniform([[1]], null), false, 'one key');
});

test('presetOf names the preset on screen, and no longer once a number or token differs', () => {
  for (const [name, preset] of Object.entries(PRESETS)) {
    const matrices = Object.fromEntries(INPUTS.map((f) => [f, preset[f].map((row) => Float64Array.from(row))]));
    assert.equal(presetOf(tokenize(preset.sentence, preset.mode), matrices), name);
    const changed = { ...matrices, wk: plainRows(matrices.wk) };
    changed.wk[0][0] += 0.5;
    assert.equal(presetOf(tokenize(preset.sentence, preset.mode), changed), null, `${name}: W_K edited`);
    assert.equal(presetOf(['other', ...tokenize(preset.sentence, preset.mode).slice(1)], matrices), null, `${name}: token edited`);
  }
});
