import { test } from 'node:test';
import assert from 'node:assert/strict';
import { engineInput, normalizeResult, optionChanges, difference, peTerms, maskReason } from '../../web/src/engine/variant.js';
import {
  createModel, readModel, activeFields, shapeOf, applyMatrix, togglePadding, setTokens, removeToken, addToken, parseHeads, parseTemperature,
} from '../../web/src/state/model.js';
import { randomInputs, randomHead, mulberry32, streamSeed } from '../../web/src/io/random.js';
import { explainCell } from '../../web/src/views/work.js';
import { PRESETS } from '../../web/src/state/presets.js';

const tutorial = () => createModel({ tokens: ['我', '爱', '你'], ...PRESETS.tutorial });
const plainOptions = { heads: 1, usesWo: false, biases: false, causal: false, scaleBySqrtDk: true, temperature: 1, positionalEncoding: false, alibi: false, exercise: '', guess: false, model: '', layer: 0, cross: false, keyPadding: [false, false, false] };

test('without options the engine gets exactly the single-head call', () => {
  const read = readModel(tutorial());
  assert.deepEqual(read.options, plainOptions);
  assert.deepEqual(engineInput(read.matrices, read.options), { x: PRESETS.tutorial.x, wq: PRESETS.tutorial.wq, wk: PRESETS.tutorial.wk, wv: PRESETS.tutorial.wv });
});

test('options become engine fields; several heads or W_O use the heads form', () => {
  const model = tutorial();
  Object.assign(model.options, { heads: 2, causal: true, scaleBySqrtDk: false, temperature: '0.5', positionalEncoding: true });
  togglePadding(model, 2);
  assert.deepEqual(activeFields(model), ['x', 'wq', 'wk', 'wv', 'wq.1', 'wk.1', 'wv.1', 'wo']);
  assert.deepEqual(shapeOf('wo', model), [4, 2]);
  const read = readModel(model);
  const input = engineInput(read.matrices, read.options);
  assert.deepEqual(Object.keys(input).sort(), ['causal', 'heads', 'keyPadding', 'positionalEncoding', 'scaleBySqrtDk', 'temperature', 'wo', 'x']);
  assert.equal(input.heads.length, 2);
  assert.deepEqual(input.heads[1].wq, [[0, 0], [0, 0]], 'missing cells read as 0');
  assert.deepEqual(input.keyPadding, [false, false, true]);
  assert.equal(input.temperature, 0.5);
});

test('cross-attention: C and the second sentence; W_K and W_V have d_context rows', () => {
  const model = tutorial();
  model.options.cross = true;
  setTokens(model, ['I', 'love', 'you', '.'], 'context');
  assert.equal(applyMatrix(model, 'c', [[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1]]), null);
  assert.equal(model.dims.dCtx, 3);
  assert.deepEqual(shapeOf('wk', model), [3, 2]);
  assert.deepEqual(shapeOf('wq', model), [2, 2]);
  assert.equal(applyMatrix(model, 'wv', [[1], [2]]).key, 'errWRowsContext');
  assert.equal(applyMatrix(model, 'c', [[1, 2]]).key, 'errCRows');
  togglePadding(model, 1, 'context');
  const read = readModel(model);
  assert.deepEqual(read.options.keyPadding, [false, true, false, false], 'padding marks the keys');
  assert.deepEqual(engineInput(read.matrices, read.options).context, [[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 0, 1]]);
  model.contextTokens = [];
  assert.equal(readModel(model).errors.contextTokens.message.key, 'errSentenceEmpty');
});

test('padding marks follow the tokens', () => {
  const model = tutorial();
  togglePadding(model, 1);
  removeToken(model, 0);
  assert.deepEqual(model.padding, [true, false]);
  addToken(model, 'w');
  assert.deepEqual(model.padding, [true, false, false]);
  setTokens(model, ['a']);
  assert.deepEqual(model.padding, [true]);
});

test('W_O must be (h·d_v) × d_model', () => {
  const model = tutorial();
  model.options.useWo = true;
  assert.deepEqual(applyMatrix(model, 'wo', [[1, 0, 0], [0, 1, 0]]), { key: 'errWoShape', params: { rows: 2, cols: 3, expected: 2, dModel: 2 } });
  assert.equal(applyMatrix(model, 'wo', [[1, 0], [0, 1]]), null);
});

test('heads and temperature are checked', () => {
  assert.deepEqual(parseHeads('8'), { ok: true, value: 8 });
  for (const text of ['0', '9', '1.5', '']) assert.equal(parseHeads(text).ok, false, text);
  assert.deepEqual(parseTemperature(' 0.25 '), { ok: true, value: 0.25 });
  for (const text of ['0', '-1', 'inf', 'abc', '']) assert.equal(parseTemperature(text).ok, false, text);
  const model = tutorial();
  model.options.temperature = '0';
  assert.equal(readModel(model).errors.temperature.message.key, 'errTemperature');
});

test('the single-head result takes the multi-head shape', () => {
  const head = { q: [[1]], k: [[1]], v: [[1]], scores: [[1]], scaled: [[1]], weights: [[1]], output: [[2]] };
  const r = normalizeResult({ ...head, masked: [[false]], fullyMasked: [false] });
  assert.deepEqual(r.heads, [head]);
  assert.deepEqual(r.output, [[2]]);
  assert.equal(r.concat, null);
  assert.deepEqual(r.masked, [[false]]);
});

test('what changed between two settings, and after − before', () => {
  const after = { ...plainOptions, causal: true, temperature: 2, keyPadding: [true, false, false] };
  assert.deepEqual(optionChanges(plainOptions, after), [
    { option: 'temperature', before: 1, after: 2 },
    { option: 'causal', before: false, after: true },
    { option: 'keyPadding', before: [false, false, false], after: [true, false, false] },
  ]);
  assert.deepEqual(optionChanges(plainOptions, { ...plainOptions, positionalEncoding: true }), [], 'PE is not compared');
  const newer = [[1, 0], [0.25, -Infinity]];
  const older = [[0.5, 0.5], [1, -Infinity]];
  const diff = difference(older, newer);
  assert.deepEqual(diff.map((row) => Array.from(row)), [[0.5, -0.5], [-0.75, NaN]]);
  assert.equal(difference(older, newer), diff, 'the same pair gives the same matrix back');
  assert.notEqual(difference([[0, 0], [0, 0]], newer), diff);
});

test('positional encoding terms and mask reasons', () => {
  assert.deepEqual(peTerms(3, 2, 4), { fn: 'sin', twoI: 2, denominator: 100, angle: 0.03, value: Math.sin(0.03) });
  assert.equal(peTerms(3, 3, 4).fn, 'cos');
  assert.equal(peTerms(3, 3, 4).value, Math.cos(0.03));
  const options = { causal: true, keyPadding: [false, true, true] };
  assert.equal(maskReason(0, 0, options), null);
  assert.equal(maskReason(2, 1, options), 'padding');
  assert.equal(maskReason(0, 1, options), 'both');
  assert.equal(maskReason(1, 0, { causal: true, keyPadding: [] }), null);
  assert.equal(maskReason(0, 2, { causal: true, keyPadding: [] }), 'causal');
});

test('a new head draws from its own stream; cross-attention draws W_K, W_V with d_context rows', () => {
  const dims = { dModel: 2, dk: 3, dv: 1 };
  const next = mulberry32(streamSeed(5, 2));
  const first = Math.round((next() * 2 - 1) * 100) / 100;
  const head = randomHead(5, 2, dims, 4);
  assert.equal(head.wq[0][0], first);
  assert.deepEqual([head.wq.length, head.wk.length, head.wv.length, head.wv[0].length], [2, 4, 4, 1]);
  assert.deepEqual(randomInputs(5, 3, dims), randomInputs(5, 3, dims, 2), 'the default is unchanged');
  assert.equal(randomInputs(5, 3, dims, 6).wk.length, 6);
});

// The tutorial with a causal mask (tests/fixtures/variant_cases.txt, tutorial_causal).
const causalCtx = {
  lang: 'en', decimals: 4, tokens: ['我', '爱', '你'],
  inputs: { x: PRESETS.tutorial.x, ...PRESETS.tutorial },
  options: { ...plainOptions, causal: true },
  result: {
    q: [[0.5, 0.2], [0.3, 0.4], [0.1, 0.6]],
    scores: [[0.26, 0.25, 0.24], [0.24, 0.29000000000000004, 0.33999999999999997], [0.22, 0.33, 0.44]],
    scaled: [[0.18384776310850234, -Infinity, -Infinity], [0.1697056274847714, 0.2050609665440988, -Infinity], [0.15556349186104046, 0.2333452377915607, 0.3111269837220809]],
    weights: [[1, 0, 0], [0.49116208583204835, 0.5088379141679515, 0], [0.30776779723570424, 0.3326621264139182, 0.3595700763503775]],
  },
  full: { masked: [[false, true, true], [false, false, true], [false, false, false]], fullyMasked: [false, false, false] },
};

test('show the work: a masked score is −∞ and says why; a masked weight is exp(−∞) = 0', () => {
  const scaled = explainCell('Scaled', 0, 2, causalCtx).lines;
  assert.equal(scaled[0], 'Scaled[我, 你] = −∞');
  assert.match(scaled[1], /你 comes after 我: a causal mask/);
  assert.match(scaled[2], /exp\(−∞\) = 0/);
  const weight = explainCell('Weights', 1, 2, causalCtx).lines;
  assert.equal(weight[2], '= exp(−∞) / (exp(0.1697 − 0.2051) + exp(0.2051 − 0.2051) + exp(−∞))');
  assert.equal(weight[3], '= 0 / (0.9653 + 1 + 0)');
  assert.match(weight.at(-1), /exactly 0 attention/);
});

test('show the work: temperature and no scaling', () => {
  const ctx = { ...causalCtx, options: { ...plainOptions, causal: true, temperature: 2 } };
  assert.equal(explainCell('Scaled', 1, 1, ctx).lines[0], 'Scaled[爱, 爱] = 0.29 / √2 / 2 = 0.29 / 1.4142 / 2 = 0.2051');
  const unscaled = { ...causalCtx, options: { ...plainOptions, causal: true, scaleBySqrtDk: false } };
  assert.match(explainCell('Scaled', 1, 1, unscaled).lines[1], /No scaling/);
});
