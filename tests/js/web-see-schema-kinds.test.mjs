// The state's schema as a user meets it when a state is of the wrong kind: not an object, or its
// second sentence, heads, W_O, view or target of the wrong kind or range, each refused in words
// (web-see-schema.test.mjs has the rest of the schema's messages).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateState } from '../../web/src/state/schema.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { describe } from '../../web/src/ui/i18n.js';
import { encodeHash, decodeHash } from '../../web/src/state/link.js';
import { OPTIONS } from '../../web/src/state/options.js';
import { DATA_ATTRIBUTES } from '../../web/src/element/attributes.js';

const says = (input) => {
  const result = validateState(input);
  return result.ok ? null : describe('en', result.message).replace(/^The state is not valid: /, '');
};
const base = () => tutorialState('en');

test('a state that is not an object, or whose second sentence, heads, W_O or view are of the wrong kind, is refused in words, never read on', () => {
  for (const input of [5, 'state', null, [], true]) assert.equal(says(input), 'it is not valid JSON.', JSON.stringify(input));
  const cases = [
    [{ context: 5 }, '“context” must be an object { tokens, x }.'],
    [{ context: 'text' }, '“context” must be an object { tokens, x }.'],
    [{ context: null }, '“context” must be an object { tokens, x }.'],
    [{ heads: ['abc'] }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ heads: [base().heads[0], { wq: [[1]] }] }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ wo: [[1], [2]] }, '“wo” is 2 × 1, but must be 2 × 2.'],
    [{ view: 5 }, '“view” must be an object { step, head, lang, decimals }.'],
    [{ view: 'softmax' }, '“view” must be an object { step, head, lang, decimals }.'],
    [{ learn: { goal: 'custom', target: [[-0.5, 0.5, 1], [1, 0, 0], [1, 0, 0]] } }, /^“learn.target” .*3.*3/],
    // within the sum's tolerance (1e-9) of 1, but a weight above 1
    [{ learn: { goal: 'custom', target: [[1 + 1e-12, 0, 0], [1, 0, 0], [1, 0, 0]] } }, /^“learn.target” .*3.*3/],
  ];
  for (const [fields, text] of cases) {
    const said = says({ ...base(), ...fields });
    if (text instanceof RegExp) assert.match(said, text, JSON.stringify(fields));
    else assert.equal(said, text, JSON.stringify(fields));
  }
});

test('an exercise that is not text is refused naming it as given; one of several items that does not read is named alone', () => {
  const none = 'which is none of: a step’s matrix (weights), a row (weights[1]) or a cell (weights[0][1]), from 0, apart by commas.';
  assert.equal(says({ ...base(), exercise: ['weights'] }), `“exercise” has “weights”, ${none}`);
  assert.equal(says({ ...base(), exercise: ['Bogus X'] }), `“exercise” has “Bogus X”, ${none}`);
  assert.equal(says({ ...base(), exercise: 'weights, Bogus[1]' }), `“exercise” has “bogus[1]”, ${none}`);
});

test('a link keeps the exercise, the model and the layer away from their defaults', () => {
  for (const fields of [{ exercise: 'weights[1]' }, { layer: 2 }, { model: 'induction' }]) {
    const state = { ...base(), ...fields };
    const read = decodeHash(`#${encodeHash(state)}`);
    assert.equal(read.ok, true, JSON.stringify(fields));
    for (const [key, value] of Object.entries(fields)) assert.equal(read.state[key], value, key);
  }
});

test('the element hears every option\'s attribute as data (a change recomputes)', () => {
  for (const option of OPTIONS) assert.ok(DATA_ATTRIBUTES.includes(option.attribute), option.attribute);
});
