import { test } from 'node:test';
import assert from 'node:assert/strict';
import { embedAttributes, readAttributes } from '../../web/src/element/attributes.js';
import { OPTIONS } from '../../web/src/state/options.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { validateState } from '../../web/src/state/schema.js';

// An element as the attribute codec reads it: its attributes, nothing else.
function elementWith(attrs) {
  const map = new Map(attrs.map(([name, value]) => [name, value]));
  return { getAttribute: (name) => (map.has(name) ? map.get(name) : null), hasAttribute: (name) => map.has(name) };
}

// state → embed attributes → state: the embed code writes what the attributes read back.
function roundTrip(state) {
  const errors = new Map();
  const read = readAttributes(elementWith(embedAttributes(state, [])), state.view.lang, null, errors);
  assert.deepEqual([...errors], [], 'every attribute written reads');
  return read;
}

// A value of each option other than its default (a switch flipped, a number, keys padded, cells to fill in).
// (a model and its layer: without an engine, under node, the model is not read, so its state
// keeps the tutorial's matrices, which its sentence gives back)
const OTHER = { boolean: (o) => !o.default, positive: () => 0.5, keyFlags: () => [false, true, false], exercise: () => 'weights[0][1],output[2]', modelName: () => 'learner-words', index: () => 1 };

test('the embed code is the inverse of the attributes: each registry option away from its default comes back', () => {
  for (const option of OPTIONS) {
    assert.ok(OTHER[option.type], `a value other than the default for ${option.type}`);
    const checked = validateState({ ...tutorialState('en'), [option.key]: OTHER[option.type](option), view: { step: 'softmax', head: 0, lang: 'en', decimals: 6 } });
    assert.ok(checked.ok, option.key);
    const state = checked.state;
    assert.deepEqual(roundTrip(state), state, option.key);
  }
});

test('the embed code is the inverse of the attributes: every option at once, several heads, W_O, a second sentence', () => {
  const base = tutorialState('zh');
  // (not a model: its embed code names the model instead of these heads and W_O, by design;
  // models-page.test.mjs checks that in Chromium)
  const options = Object.fromEntries(OPTIONS.filter((o) => o.stage !== 'model').map((o) => [o.key, OTHER[o.type](o)]));
  const checked = validateState({
    ...base, ...options,
    heads: [base.heads[0], { wq: [[1, 0], [0, 1]], wk: [[0.5, 0.5], [0, 1]], wv: [[2, 0], [0, 2]] }],
    wo: [[1, 0], [0, 1], [0.5, 0.5], [0, 2]],
    context: { tokens: ['a', 'b', 'c'], x: [[1, 2], [3, 4], [5, 6]] },
    view: { step: 'all', head: 1, lang: 'zh', decimals: 3 },
  });
  assert.ok(checked.ok, JSON.stringify(checked.message));
  assert.deepEqual(roundTrip(checked.state), checked.state);
});

test('the embed code is the inverse of the attributes: options at their defaults are left out and come back as defaults', () => {
  const checked = validateState({ ...tutorialState('en'), tokens: ['x', 'y', 'z'], view: { step: 'scores', head: 0, lang: 'en', decimals: 4 } });
  assert.ok(checked.ok);
  const written = embedAttributes(checked.state, []).map(([name]) => name);
  for (const option of OPTIONS) assert.ok(!written.includes(option.attribute), option.attribute);
  assert.deepEqual(roundTrip(checked.state), checked.state);
});
