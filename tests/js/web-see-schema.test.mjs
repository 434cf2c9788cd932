// The state's schema and the option registry as a user meets them: what a state (a link, a file,
// el.state) and an attribute say when a field does not read, what they keep when it does, and
// the text the registry gives editors (custom-elements.json, the VS Code data).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { validateState, fitLearn } from '../../web/src/state/schema.js';
import { readAttribute, optionAttributes, OPTION_DEFAULTS, OPTIONS, COMPARED, SWITCHES, ENGINE_OPTIONS, atDefaults } from '../../web/src/state/options.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { describe, translate } from '../../web/src/ui/i18n.js';
import { elementData } from '../../scripts/make-element-data.mjs';

const says = (input) => {
  const result = validateState(input);
  return result.ok ? null : describe('en', result.message).replace(/^The state is not valid: /, '');
};
// the tutorial, its key padding left to its default (one flag per key, whichever the keys)
const base = () => {
  const { keyPadding, ...state } = tutorialState('en');
  assert.deepEqual(keyPadding, [false, false, false]);
  return state;
};
// "I love it, the animal": animal's goal applies (it → animal)
const animal = () => ({ ...base(), tokens: ['it', 'the', 'animal'] });
const CUSTOM = [[1, 0, 0], [0.5, 0.5, 0], [0, 0, 0]];

test('a state\'s options: each wrong value named by its field, in words', () => {
  const cases = [
    [{ temperature: -1 }, '“temperature” must be a finite number above 0.'],
    [{ temperature: '2' }, '“temperature” must be a finite number above 0.'],
    [{ temperature: Infinity }, '“temperature” must be a finite number above 0.'],
    [{ keyPadding: [false, true] }, '“keyPadding” must be an array of true/false, one per key (3).'],
    [{ keyPadding: [false, 1, false] }, '“keyPadding” must be an array of true/false, one per key (3).'],
    [{ positionalEncoding: 1 }, '“positionalEncoding” must be true or false.'],
    [{ alibi: 'on' }, '“alibi” must be true or false.'],
    [{ exercise: 'weights[9' }, /^“exercise” .*weights\[9/],
    [{ exercise: 3 }, /^“exercise” .*3/],
    [{ model: 'Learner Words' }, '“model” must be a model name (lower-case letters, digits and dashes, e.g. learner-words) or the address of a model file ending in .json (e.g. ./my.json)'],
    [{ model: 7 }, '“model” must be a model name (lower-case letters, digits and dashes, e.g. learner-words) or the address of a model file ending in .json (e.g. ./my.json)'],
    [{ layer: 16 }, '“layer” must be a whole number from 0 to 15.'],
    [{ layer: -1 }, '“layer” must be a whole number from 0 to 15.'],
    [{ layer: 1.5 }, '“layer” must be a whole number from 0 to 15.'],
  ];
  for (const [fields, text] of cases) {
    const said = says({ ...base(), ...fields });
    if (text instanceof RegExp) assert.match(said, text, JSON.stringify(fields));
    else assert.equal(said, text, JSON.stringify(fields));
  }
  // the right values read, and are kept as given (the exercise in its canonical text)
  const ok = validateState({ ...base(), temperature: 0.5, keyPadding: [false, true, false], alibi: true, exercise: 'weights[1]', model: 'learner-words', layer: 15 });
  assert.equal(ok.ok, true);
  assert.deepEqual([ok.state.temperature, ok.state.keyPadding, ok.state.alibi, ok.state.exercise, ok.state.model, ok.state.layer], [0.5, [false, true, false], true, 'weights[1]', 'learner-words', 15]);
  assert.equal(validateState({ ...base(), exercise: ' weights [1] , output ' }).state.exercise, validateState({ ...base(), exercise: 'weights[1],output' }).state.exercise);
  assert.equal(validateState({ ...base(), model: '' }).ok, true, 'no model');
  // left out: the defaults
  const { state } = validateState({ version: 1, tokens: ['a', 'b'], x: [[1], [2]], heads: [{ wq: [[1]], wk: [[1]], wv: [[1]] }] });
  assert.deepEqual(Object.fromEntries(Object.keys(OPTION_DEFAULTS).map((k) => [k, state[k]])), { ...OPTION_DEFAULTS, keyPadding: [false, false] });
});

test('an attribute that does not read says which and why; one that does gives the value, an absent one the value now or the default', () => {
  const read = (name, text, current) => {
    const r = readAttribute(name, text, current);
    return r.ok ? r.value : describe('en', r.detail);
  };
  assert.deepEqual(['', 'true', 'false', 'no', null].map((t) => read('causal', t, true)), [true, true, false, true, false]);
  assert.deepEqual([null, 'false', ''].map((t) => read('scale-by-sqrt-dk', t, false)), [true, false, true]);
  assert.deepEqual([' 2 ', '0.5', null].map((t) => read('temperature', t, 3)), [2, 0.5, 3]);
  assert.equal(read('temperature', '0', 3), '“temperature” must be a finite number above 0.');
  assert.equal(read('temperature', '-2', 3), '“temperature” must be a finite number above 0.');
  assert.equal(read('temperature', 'warm', 3), '“temperature” must be a finite number above 0.');
  assert.equal(read('temperature', '0,5', 3), '“temperature” must be written with a decimal point: 0.5, not 0,5.');
  assert.deepEqual(read('key-padding', '1, 0 true,,FALSE', []), [true, false, true, false]);
  assert.deepEqual(read('key-padding', null, [true]), [true]);
  assert.equal(read('key-padding', '0,yes,1', []), describe('en', { key: 'errBooleanEntry', params: { index: 2, text: 'yes' } }));
  assert.match(read('key-padding', '0,yes,1', []), /yes/);
  assert.match(read('key-padding', '0,yes,1', []), /2/);
  assert.equal(read('exercise', null, 'weights'), '');
  assert.equal(read('exercise', 'weights[1]', ''), 'weights[1]');
  assert.match(read('exercise', 'weights[9', ''), /^“exercise” .*weights\[9/);
  assert.deepEqual([' induction ', '', null].map((t) => read('model', t, 'animal-street')), ['induction', '', 'animal-street']);
  assert.equal(read('model', 'Bad Name', ''), '“model” must be a model name (lower-case letters, digits and dashes, e.g. learner-words) or the address of a model file ending in .json (e.g. ./my.json)');
  // the layer as on screen, from 1
  assert.deepEqual(['1', ' 3 ', '16', null].map((t) => read('layer', t, 4)), [0, 2, 15, 4]);
  for (const bad of ['0', '17', '1.5', 'two', '-1']) assert.equal(read('layer', bad, 0), '“layer” must be a whole number from 1 to 16.', bad);
});

test('the attributes written for a state are those off their default, each in the text that reads back', () => {
  const state = { ...tutorialState('en'), scaleBySqrtDk: false, causal: true, keyPadding: [false, true, false], temperature: 2.5, positionalEncoding: false, exercise: 'weights[1]', model: 'induction', layer: 1 };
  const attrs = optionAttributes(state);
  const byName = Object.fromEntries(attrs);
  assert.deepEqual(byName, { 'scale-by-sqrt-dk': 'false', causal: '', 'key-padding': 'false,true,false', temperature: '2.5', exercise: 'weights[1]', model: 'induction', layer: '2' });
  for (const [name, text] of attrs) {
    const key = { 'scale-by-sqrt-dk': 'scaleBySqrtDk', 'key-padding': 'keyPadding' }[name] || name;
    assert.deepEqual(readAttribute(name, text, undefined).value, state[key], name);
  }
  assert.deepEqual(optionAttributes(tutorialState('en')), [], 'the defaults: none');
});

test('"How it learns" in a state: each wrong goal, target, rate or switch named; the right ones kept, copied', () => {
  const cases = [
    [base(), 5, /^“learn” /],
    [base(), { goal: 'previous', speed: 1 }, '“learn.speed” is not a known field.'],
    [base(), { goal: 'next' }, '“learn.goal” must be one of previous, self, animal, custom.'],
    [base(), { goal: 'animal' }, '“learn.goal” animal does not apply to these tokens (choose previous, self, custom).'],
    [base(), { goal: 'self', target: CUSTOM }, '“learn.target” is only for goal custom.'],
    [base(), { goal: 'custom', target: [[1, 0, 0]] }, /^“learn.target” .*3.*3/],
    [base(), { goal: 'custom', target: [[1, 0], [1, 0], [1, 0]] }, /^“learn.target” .*3.*3/],
    [base(), { goal: 'custom', target: [[0.5, 0.4, 0], [1, 0, 0], [1, 0, 0]] }, /^“learn.target” .*3.*3/],
    [base(), { goal: 'custom', target: [[1.5, -0.5, 0], [1, 0, 0], [1, 0, 0]] }, /^“learn.target” .*3.*3/],
    [base(), { goal: 'custom', target: [[1, 0, 'x'], [1, 0, 0], [1, 0, 0]] }, '“learn.target” has "x" at row 1, column 3: a finite number is expected.'],
    [base(), { goal: 'self', lr: 0.3 }, '“learn.lr” must be one of 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5.'],
    [base(), { goal: 'self', trainX: 'yes' }, '“learn.trainX” must be true or false.'],
    [{ ...base(), context: { tokens: ['x', 'y'], x: [[1, 0], [0, 1]] } }, { goal: 'previous' }, '“learn.goal” previous does not apply to these tokens (choose custom).'],
  ];
  for (const [state, learn, text] of cases) {
    const said = says({ ...state, learn });
    if (text instanceof RegExp) assert.match(said, text, JSON.stringify(learn));
    else assert.equal(said, text, JSON.stringify(learn));
  }
  const target = [[1, 0, 0], [0.25, 0.75, 0], [0, 0, 0]];
  const learn = { goal: 'custom', target, lr: 0.01, trainX: true };
  const { state } = validateState({ ...base(), learn });
  assert.deepEqual(state.learn, learn);
  assert.notEqual(state.learn.target, target, 'a copy');
  assert.notEqual(state.learn.target[0], target[0], 'a copy, row by row');
  assert.deepEqual(validateState({ ...animal(), learn: { goal: 'animal' } }).state.learn, { goal: 'animal' });
  assert.deepEqual(validateState({ ...base(), learn: { goal: 'self', trainX: false } }).state.learn, { goal: 'self', trainX: false });
  assert.equal('learn' in validateState(base()).state, false);
});

test('a state\'s "How it learns" after its tokens changed keeps what still applies: the goal without a target of the old shape, nothing of a goal gone', () => {
  const custom = { ...base(), learn: { goal: 'custom', target: CUSTOM, lr: 0.02 } };
  assert.equal(fitLearn(custom), custom, 'fits: the same state');
  const shorter = { ...custom, tokens: ['I', 'love'], x: [[1, 0], [0.5, 0.5]] };
  assert.deepEqual(fitLearn(shorter), { ...shorter, learn: { goal: 'custom', lr: 0.02 } });
  assert.deepEqual(custom.learn.target, CUSTOM, 'the state given is not changed');
  const gone = { ...animal(), tokens: ['it', 'the', 'cat'], learn: { goal: 'animal' } };
  const { learn, ...rest } = gone;
  assert.equal(learn.goal, 'animal');
  assert.deepEqual(fitLearn(gone), rest);
  const plain = base();
  assert.equal(fitLearn(plain), plain, 'no learn: the same state');
  // a second sentence: its tokens are the keys
  const cross = { ...base(), context: { tokens: ['x', 'y'], x: [[1, 0], [0, 1]] }, learn: { goal: 'custom', target: [[1, 0], [0, 1], [0.5, 0.5]] } };
  assert.equal(fitLearn(cross), cross);
  assert.deepEqual(fitLearn({ ...cross, context: { tokens: ['x', 'y', 'z'], x: [[1, 0], [0, 1], [1, 1]] } }).learn, { goal: 'custom' });
});

test('a second sentence, the view and the dimensions: each wrong one named, in words', () => {
  const context = { tokens: ['x', 'y'], x: [[1, 0, 0], [0, 1, 0]] };
  const crossHeads = [{ wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[1, 0], [0, 1], [1, 1]], wv: [[1, 0], [0, 1], [1, 1]] }];
  assert.equal(says({ ...base(), context, heads: crossHeads }), null, 'W_K and W_V take the second sentence\'s width');
  const cases = [
    [{ context: { tokens: ['x'] } }, '“context.x” must be a matrix: rows of finite numbers, all the same length.'],
    [{ context: { tokens: [], x: [[1]] } }, '“context.tokens” must be an array of non-empty strings.'],
    [{ context: { tokens: ['x', 'y'], x: [[1, 0, 0]] }, heads: crossHeads }, '“context.x” has 1 rows but there are 2 tokens.'],
    [{ context, heads: [{ ...crossHeads[0], wk: [[1, 0], [0, 1]] }] }, '“heads[0].wk” is 2 × 2, but must be 3 × 2.'],
    [{ context, heads: [{ ...crossHeads[0], wv: [[1, 0], [0, 1]] }] }, '“heads[0].wv” is 2 × 2, but must be 3 × 2.'],
    [{ context, heads: crossHeads, keyPadding: [false, false, false] }, '“keyPadding” must be an array of true/false, one per key (2).'],
    [{ heads: [] }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ heads: Array(9).fill(base().heads[0]) }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ heads: [{ wq: [[1]], wk: [[1]] }] }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ heads: [null] }, '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.'],
    [{ heads: [base().heads[0], { ...base().heads[0], wv: [[1], [2]] }] }, '“heads[1].wv” is 2 × 1, but must be 2 × 2.'],
    [{ x: undefined }, '“x” is missing.'],
    [{ view: [] }, '“view” must be an object { step, head, lang, decimals }.'],
    [{ view: { zoom: 2 } }, '“view.zoom” is not a known field.'],
    [{ view: { step: 'softmax', head: 1 } }, '“view.head” must be a whole number from 0 to 0.'],
    [{ view: { head: -1 } }, '“view.head” must be a whole number from 0 to 0.'],
    [{ view: { step: 7 } }, '“view.step” must be a step id such as softmax.'],
    [{ view: { step: 'a'.repeat(17) } }, '“view.step” must be a step id such as softmax.'],
    [{ view: { decimals: 0 } }, '“view.decimals” must be a whole number from 1 to 8.'],
    [{ tokens: ['a', 'b', 'c'.repeat(101)] }, '“tokens” must hold tokens of at most 100 characters: token 3 has 101.'],
  ];
  for (const [fields, text] of cases) {
    const said = says({ ...base(), ...fields });
    if (text instanceof RegExp) assert.match(said, text, JSON.stringify(fields).slice(0, 80));
    else assert.equal(said, text, JSON.stringify(fields).slice(0, 80));
  }
  // d_model 65: over the page's limit of 64, whichever matrix has it
  const wide = Array.from({ length: 3 }, () => Array(65).fill(0));
  assert.equal(says({ ...base(), x: wide, heads: [{ wq: Array(65).fill([1, 0]), wk: Array(65).fill([1, 0]), wv: Array(65).fill([1, 0]) }] }), '“x” must have dimensions from 1 to 64.');
  assert.equal(says({ ...base(), heads: [{ wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: Array(2).fill(Array(65).fill(1)) }] }), '“x” must have dimensions from 1 to 64.');
  // the view read back as given, its defaults filled in; the matrices copied
  const input = { ...base(), context, heads: crossHeads, view: { step: 'softmax', head: 0, lang: 'en', decimals: 6 } };
  const { state } = validateState(input);
  assert.deepEqual(state.view, { step: 'softmax', head: 0, lang: 'en', decimals: 6 });
  assert.deepEqual(state.context, context);
  assert.notEqual(state.context.x[0], context.x[0]);
  assert.notEqual(state.context.tokens, context.tokens);
  assert.notEqual(state.heads[0].wk[0], crossHeads[0].wk[0]);
  assert.notEqual(state.x[0], input.x[0]);
  assert.deepEqual(validateState({ ...base(), view: {} }).state.view, { step: 'input', head: 0, lang: 'zh', decimals: 4 });
});

test('what editors show of the attributes (custom-elements.json, the VS Code data, the types) is what the option registry says', () => {
  for (const [file, text] of Object.entries(elementData())) {
    assert.equal(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'), text, `${file}: run node scripts/make-element-data.mjs`);
  }
});

test('each option\'s words on screen: its control, its line in the before/after comparison (in pipeline order) and its problem', () => {
  const words = Object.fromEntries(OPTIONS.map((o) => [o.key, Object.fromEntries(Object.entries(o.labels).map(([k, v]) => [k, translate('en', v)]))]));
  assert.deepEqual(words, {
    scaleBySqrtDk: { control: 'Divide by √d_k', change: 'divide by √d_k: {from} → {to}' },
    causal: { control: 'Causal mask (look only at itself and earlier tokens)', change: 'causal mask: {from} → {to}' },
    keyPadding: { change: 'padding: {from} → {to}', problem: 'must be an array of true/false, one per key ({n}).' },
    temperature: { control: 'Temperature T', change: 'temperature: {from} → {to}', problem: 'must be a finite number above 0.' },
    positionalEncoding: { control: 'Add sinusoidal positional encoding' },
    alibi: { control: 'ALiBi position bias (the farther a key, the lower its score)', change: 'ALiBi bias: {from} → {to}' },
    guess: {}, // (no control: the guided walk's own button)
    exercise: { problem: 'has “{text}”, which is none of: a step’s matrix (weights), a row (weights[1]) or a cell (weights[0][1]), from 0, apart by commas.' },
    model: { control: 'Model', problem: 'must be a model name (lower-case letters, digits and dashes, e.g. learner-words) or the address of a model file ending in .json (e.g. ./my.json)' },
    layer: { control: 'Layer' },
  });
  // the comparison: positional encoding, then the bias, the scaling, the mask (the pipeline's stages)
  assert.deepEqual(COMPARED, ['alibi', 'scaleBySqrtDk', 'temperature', 'causal', 'keyPadding']);
  assert.deepEqual(SWITCHES.map((o) => o.key), ['scaleBySqrtDk', 'causal', 'positionalEncoding', 'alibi'], 'the editor\'s check boxes');
  assert.deepEqual(ENGINE_OPTIONS.map((o) => o.key), ['scaleBySqrtDk', 'causal', 'keyPadding', 'temperature', 'positionalEncoding', 'alibi'], 'what the engine is told');
  // at the engine's defaults whatever the page's own options (exercise, model, layer)
  assert.equal(atDefaults(OPTION_DEFAULTS), true);
  assert.equal(atDefaults({ ...OPTION_DEFAULTS, model: 'induction', layer: 1, exercise: 'weights' }), true);
  assert.equal(atDefaults({ ...OPTION_DEFAULTS, causal: true }), false);
  assert.equal(atDefaults({ ...OPTION_DEFAULTS, keyPadding: [false, true] }), false);
  assert.equal(atDefaults({ ...OPTION_DEFAULTS, keyPadding: [false, false] }), true);
  assert.equal(atDefaults({ ...OPTION_DEFAULTS, causal: true }, ['causal']), true);
});

// The limits as a link or el.state meets them: exactly at each one the state reads, one past it
// the message names the limit; a token is named by its place from the first, a blank one too.
test('a state at the limits of tokens, heads and dimensions reads; one past is refused, and a first token blank or not text is named token 1', () => {
  const withTokens = (tokens) => ({ ...base(), tokens, x: tokens.map(() => [1, 0]) });
  assert.equal(says(withTokens(Array(4096).fill('a'))), null, '4096 tokens read');
  assert.equal(says(withTokens(Array(4097).fill('a'))), '“tokens” has 4097 tokens; at most 4096 are allowed.');
  for (const first of ['', '  ', 5]) assert.equal(says(withTokens([first, 'a', 'b'])), '“tokens” must hold non-empty strings: token 1 is not one.', JSON.stringify(first));
  const head = base().heads[0];
  assert.equal(says({ ...base(), heads: Array(8).fill(head), wo: Array(16).fill([1, 0]) }), null, '8 heads read');
  assert.equal(says({ ...base(), heads: Array(9).fill(head), wo: Array(18).fill([1, 0]) }), '“heads” must be an array of 1 to 8 heads, each with wq, wk, wv.');
  const eye = (n) => Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  const wide = (d) => ({ ...base(), x: base().x.map(() => Array(d).fill(0.1)), heads: [{ wq: eye(d), wk: eye(d), wv: eye(d) }] });
  assert.equal(says(wide(64)), null, 'd_model 64 reads');
  assert.equal(says(wide(65)), '“x” must have dimensions from 1 to 64.');
});

test('a matrix row that is text, a W_O that is not a matrix and a context that is not an object are each named', () => {
  assert.equal(says({ ...base(), x: [[1, 0], 'ab', [0, 1]] }), '“x” must be a matrix: row 2 is not a non-empty array of numbers.');
  assert.equal(says({ ...base(), x: [[1, 0], [], [0, 1]] }), '“x” must be a matrix: row 2 is not a non-empty array of numbers.', 'an empty row is named as one, not as a length');
  assert.equal(says({ ...base(), wo: 'abc' }), '“wo” must be a matrix: rows of finite numbers, all the same length.');
  assert.equal(says({ ...base(), context: 5 }), '“context” must be an object { tokens, x }.');
  assert.equal(says({ ...base(), context: { tokens: [], x: [] } }), '“context.tokens” must be an array of non-empty strings.');
});

// The biases (b_Q, b_K, b_V per head, b_O after W_O): a bias that reads is kept as it was given,
// one that does not is named by its head and field, with what is wrong (its length against
// d_k for b_Q and b_K, d_v for b_V, d_model for b_O; a cell by its position).
test('a state\'s biases: kept when they read, each wrong one named by its head, field, position or length', () => {
  const head = base().heads[0]; // d_model 2, d_k 2
  const wv3 = [[1, 0, 0], [0, 1, 0]]; // d_v 3
  const ok = validateState({ ...base(), heads: [{ ...head, wv: wv3, bq: [0.5, -1], bk: [0, 1], bv: [1, 2, 3] }], wo: [[1, 0], [0, 1], [1, 1]], bo: [0.25, 0.5] });
  assert.equal(ok.ok, true);
  assert.deepEqual([ok.state.heads[0].bq, ok.state.heads[0].bk, ok.state.heads[0].bv, ok.state.bo], [[0.5, -1], [0, 1], [1, 2, 3], [0.25, 0.5]]);
  const none = validateState(base()).state;
  assert.deepEqual([Object.keys(none.heads[0]), 'bo' in none], [['wq', 'wk', 'wv'], false], 'no bias given, none made');
  const two = { ...base(), heads: [head, { ...head, bk: [1, 'a'] }], wo: [[1, 0], [0, 1], [1, 0], [0, 1]] };
  const cases = [
    [{ heads: [{ ...head, bq: [] }] }, '“heads[0].bq” must be an array of 2 finite numbers (a bias).'],
    [{ heads: [{ ...head, bk: [1, Infinity] }] }, '“heads[0].bk” has Infinity at position 2: a finite number is expected.'],
    [{ heads: [{ ...head, wv: wv3, bv: [1, 2] }] }, '“heads[0].bv” has 2 numbers, but must have 3.'],
    [{ heads: [{ ...head, wv: wv3, bq: [1, 2, 3] }] }, '“heads[0].bq” has 3 numbers, but must have 2.'],
    [{ bo: [1, 2] }, '“bo” needs wo (output = concat·W_O + b_O).'],
    [{ wo: [[1, 0], [0, 1]], bo: 'x' }, '“bo” must be an array of 2 finite numbers (a bias).'],
    [{ wo: [[1, 0], [0, 1]], bo: [1, 2, 3] }, '“bo” has 3 numbers, but must have 2.'],
    [{ wo: [[1, 0], [0, 1]], bo: [1] }, '“bo” has 1 number, but must have 2.'], // (it said "1 numbers")
  ];
  for (const [change, message] of cases) assert.equal(says({ ...base(), ...change }), message, JSON.stringify(change));
  assert.equal(says(two), '“heads[1].bk” has "a" at position 2: a finite number is expected.', 'the second head named');
});
