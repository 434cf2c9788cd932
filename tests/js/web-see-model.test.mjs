// The editor's model and the matrix parser as a user meets them: the message under a bad cell
// (where, by row, token and column; why), under a matrix pasted whole that does not fit, under a
// dimension or head count that does not read; the shapes the grids take.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createModel, readModel, applyMatrix, parseDim, parseHeads, splitField, shapeOf, DEFAULT_OPTIONS, setTokens, sameNumbers, setCell,
  pasteBlock, modelFromState, readState,
} from '../../web/src/state/model.js';
import { parseMatrix, parseMatrixText, parseNumber } from '../../web/src/io/parse.js';
import { describe } from '../../web/src/ui/i18n.js';
import { TUTORIAL } from '../../web/src/state/presets.js';

const en = (message) => message && describe('en', message);
const tutorial = () => createModel({ tokens: ['我', '爱', '你'], ...TUTORIAL });
// the message under each matrix that does not read
const errors = (model) => Object.fromEntries(Object.entries(readModel(model).errors || {}).map(([field, e]) => [field, en(e.message)]));
// the tutorial with a second sentence of two tokens, C three wide
const crossed = () => {
  const model = tutorial();
  model.options.cross = true;
  setTokens(model, ['猫', '狗'], 'context');
  assert.equal(applyMatrix(model, 'c', [[1, 2, 3], [4, 5, 6]]), null);
  return model;
};

test('a bad cell\'s message names its row (with the token for X and C), its column and what is wrong', () => {
  let model = tutorial();
  model.cells.x[1][1] = 'abc';
  model.cells.wq[0][1] = '1'.repeat(101);
  model.cells.wv[1][0] = '';
  assert.deepEqual(errors(model), {
    x: 'Row 2 (爱), column 2: “abc” is not a number; write it like 0.5 or -2.',
    wq: 'Row 1, column 2 holds 101 characters: too long for a number (at most 100).',
    wv: 'Row 2, column 1 is empty: type a number.',
  });
  model = crossed();
  model.cells.c[1][2] = 'x';
  setCell(model.cells.wk, 2, 0, '0,5');
  assert.deepEqual(Object.keys(errors(model)), ['c', 'wk']);
  assert.equal(errors(model).c, 'Row 2 (狗), column 3: “x” is not a number; write it like 0.5 or -2.');
  assert.match(errors(model).wk, /^Row 3, column 1\b/);
});

test('a matrix pasted whole that does not fit says what it needs; one that fits sets the dimension it stands for', () => {
  let model = tutorial();
  assert.equal(en(applyMatrix(model, 'x', [[1, 2]])), 'X has 1 row but the sentence has 3 tokens: X needs exactly one row per token.');
  assert.equal(en(applyMatrix(model, 'wq', [[1, 2, 3]])), 'W_Q has 1 row; it needs 2, one per column of X (d_model = 2).');
  assert.equal(en(applyMatrix(model, 'wv', [[1, 2, 3]])), 'W_V has 1 row; it needs 2, one per column of X (d_model = 2).');
  assert.equal(en(applyMatrix(model, 'wo', [[1, 2]])), 'W_O is 1 × 2; it must be 2 × 2 (h·d_v rows, d_model columns).');
  assert.equal(en(applyMatrix(model, 'wo', [[1], [2]])), 'W_O is 2 × 1; it must be 2 × 2 (h·d_v rows, d_model columns).');
  // W_V's width is d_v, W_K's (and W_Q's) d_k, X's d_model; W_O's sets nothing
  assert.equal(applyMatrix(model, 'wv', [[1, 2, 3], [4, 5, 6]]), null);
  assert.deepEqual(model.dims, { dModel: 2, dk: 2, dv: 3, dCtx: 2 });
  assert.deepEqual([shapeOf('wv', model), shapeOf('wq', model), shapeOf('wk', model)], [[2, 3], [2, 2], [2, 2]]);
  assert.equal(applyMatrix(model, 'wk', [[1], [2]]), null);
  assert.deepEqual(model.dims, { dModel: 2, dk: 1, dv: 3, dCtx: 2 });
  assert.equal(applyMatrix(model, 'wo', [[1, 2], [3, 4], [5, 6]]), null);
  assert.deepEqual(model.dims, { dModel: 2, dk: 1, dv: 3, dCtx: 2 });
  // a second sentence: C's rows are its tokens, W_K's and W_V's rows its width
  model = crossed();
  assert.deepEqual(model.dims, { dModel: 2, dk: 2, dv: 2, dCtx: 3 });
  assert.equal(en(applyMatrix(model, 'c', [[1, 2]])), 'C has 1 row but the second sentence has 2 tokens: C needs exactly one row per token.');
  assert.equal(en(applyMatrix(model, 'wk', [[1, 2], [3, 4]])), 'W_K has 2 rows; it needs 3, one per column of C (d_context = 3).');
  assert.equal(en(applyMatrix(model, 'wq', [[1, 2], [3, 4], [5, 6]])), 'W_Q has 3 rows; it needs 2, one per column of X (d_model = 2).');
  assert.deepEqual([shapeOf('c', model), shapeOf('wk', model), shapeOf('wv', model), shapeOf('wq', model)], [[2, 3], [3, 2], [3, 2], [2, 2]]);
  // a second head's matrices are a head's; W_O is h·d_v × d_model
  model = tutorial();
  model.options.heads = 2;
  assert.deepEqual([splitField('wq.1'), splitField('wv'), shapeOf('wq.1', model), shapeOf('wo', model)], [{ base: 'wq', head: 1 }, { base: 'wv', head: 0 }, [2, 2], [4, 2]]);
});

test('a matrix typed as JSON: the shape it must have', () => {
  for (const text of ['[]', '[5]', '[[1], []]', '[[1], 5]']) assert.deepEqual(parseMatrixText(text), { ok: false, error: { code: 'json_shape' } }, text);
  assert.deepEqual(parseMatrixText('[[1, 2], [3]]'), { ok: false, error: { code: 'ragged', row: 1, count: 1, expected: 2 } });
  assert.deepEqual(parseMatrixText(' [[1], [2]] '), { ok: true, rows: [[1], [2]] });
  assert.deepEqual(parseMatrixText('[[1, 0], [0.5'), { ok: false, error: { code: 'json' } });
  assert.deepEqual(parseMatrixText('[[1, "a"]]'), { ok: false, error: { code: 'not_number', row: 0, column: 1, text: '"a"' } });
});

test('numbers of several digits, a leading point, spaces around a line: read; words that only contain inf or nan are not numbers', () => {
  assert.deepEqual(['12.5', '-10', '.25', '+.5e-1', '100'].map((t) => parseNumber(t).value), [12.5, -10, 0.25, 0.05, 100]);
  assert.deepEqual(['inf', '-Infinity', 'NaN'].map((t) => parseNumber(t).code), ['not_finite', 'not_finite', 'not_finite']);
  assert.deepEqual(['xinf', 'info', 'nano', 'banana'].map((t) => parseNumber(t).code), ['not_number', 'not_number', 'not_number', 'not_number']);
  assert.deepEqual(parseMatrix('  1 2\n 3 4  \n'), { ok: true, rows: [[1, 2], [3, 4]], texts: [['1', '2'], ['3', '4']] });
  assert.deepEqual(parseMatrix('1 2\n   \n3 4'), { ok: false, error: { code: 'empty_row', row: 1 } });
});

test('dimensions and heads: the whole numbers in range read, anything else is the message', () => {
  assert.deepEqual(['1', '64', ' 3 '].map((t) => parseDim(t)), [1, 64, 3].map((value) => ({ ok: true, value })));
  for (const text of ['0', '65', ' ', '', '1.5']) assert.equal(en(parseDim(text).message), 'Enter a whole number from 1 to 64.', JSON.stringify(text));
  assert.deepEqual(['1', '8', ' 2 '].map((t) => parseHeads(t)), [1, 8, 2].map((value) => ({ ok: true, value })));
  for (const text of ['0', '9', ' ', '2.5']) assert.equal(en(parseHeads(text).message), 'The number of heads must be a whole number from 1 to 8.', JSON.stringify(text));
  // the editor's options start at the registry's defaults, the key padding apart (the tokens' marks)
  assert.deepEqual(DEFAULT_OPTIONS, {
    heads: 1, useWo: false, cross: false, biases: false, scaleBySqrtDk: true, causal: false, temperature: '1', positionalEncoding: false, alibi: false, exercise: '', guess: false, model: '', layer: 0,
  });
  assert.deepEqual([sameNumbers([[1, 2]], [[1, 2]]), sameNumbers([[1, 2]], [[1, 2], [3, 4]]), sameNumbers([[1, 2]], [[1, 3]])], [true, false, false]);
});

test('a state opened in the editor and read for the engine keeps each head\'s matrices, W_O, the second sentence and its padding where they belong', () => {
  const heads = [{ wq: [[1, 2], [3, 4]], wk: [[5, 6], [7, 8], [9, 10]], wv: [[11], [12], [13]] }, { wq: [[-1, -2], [-3, -4]], wk: [[-5, -6], [-7, -8], [-9, -10]], wv: [[-11], [-12], [-13]] }];
  const state = {
    version: 1, tokens: ['我', '爱', '你'], x: [[1, 0], [0.5, 0.5], [0, 1]], heads, wo: [[0.1, 0.2], [0.3, 0.4]],
    context: { tokens: ['猫', '狗', '鱼'], x: [[1, 2, 3], [4, 5, 6], [7, 8, 9]] }, keyPadding: [false, true, false], causal: false,
    scaleBySqrtDk: true, temperature: 1, positionalEncoding: false, alibi: false, exercise: '', model: '', layer: 0,
  };
  const matrices = { x: state.x, wq: heads[0].wq, wk: heads[0].wk, wv: heads[0].wv, 'wq.1': heads[1].wq, 'wk.1': heads[1].wk, 'wv.1': heads[1].wv, wo: state.wo, c: state.context.x };
  assert.deepEqual(readState(state).matrices, matrices);
  const model = modelFromState(state);
  const read = readModel(model);
  assert.equal(read.ok, true, JSON.stringify(read.errors));
  assert.deepEqual(read.matrices, matrices);
  assert.deepEqual([model.contextTokens, model.contextPadding, model.padding], [['猫', '狗', '鱼'], [false, true, false], [false, false, false]], 'the second sentence\'s keys are the padded ones');
  assert.deepEqual([model.options.heads, model.options.useWo, model.options.cross, model.dims.dCtx], [2, true, true, 3]);
  // without W_O and a second sentence: none read, the padding the sentence's own
  const plain = { ...state, heads: [{ ...heads[0], wk: [[5, 6], [7, 8]], wv: [[11], [12]] }], keyPadding: [true, false, false] };
  delete plain.wo;
  delete plain.context;
  assert.deepEqual(Object.keys(readState(plain).matrices), ['x', 'wq', 'wk', 'wv']);
  const own = modelFromState(plain);
  assert.deepEqual([own.padding, own.options.useWo, own.options.cross], [[true, false, false], false, false]);
  assert.deepEqual(readModel(own).matrices, { x: plain.x, ...plain.heads[0] });
});

test('a block pasted at a cell fills what fits from there; what falls outside is left out, even once the grid grows', () => {
  const model = tutorial();
  pasteBlock(model, 'x', 1, 1, [[7, 8, 9], [10, 11, 12], [13, 14, 15]]);
  assert.deepEqual(readModel(model).matrices.x, [[1, 0], [0.5, 7], [0, 10]]);
  model.dims.dModel = 4;
  assert.deepEqual(readModel(model).matrices.x, [[1, 0, 0, 0], [0.5, 7, 0, 0], [0, 10, 0, 0]]);
});
