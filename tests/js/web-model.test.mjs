import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  createModel, readModel, parseDim, applyMatrix, pasteBlock, removeToken, addToken, setTokens, shapeOf, tokenErrors,
} from '../../web/src/state/model.js';
import { tokenVector, isMadeUp, followTokens, madeUpTokens } from '../../web/src/state/vectors.js';
import { PRESETS } from '../../web/src/state/presets.js';
import { parseMatrixText } from '../../web/src/io/parse.js';

const tutorial = () => createModel({ tokens: ['我', '爱', '你'], ...PRESETS.tutorial });

test('the tutorial preset reads back as its numbers', () => {
  const read = readModel(tutorial());
  assert.equal(read.ok, true);
  assert.deepEqual(read.matrices, {
    x: [[1, 0], [0.5, 0.5], [0, 1]],
    wq: [[0.5, 0.2], [0.1, 0.6]],
    wk: [[0.4, 0.3], [0.2, 0.7]],
    wv: [[0.8, 0.1], [0.3, 0.9]],
  });
});

test('a bad cell names its 1-based row, token and column', () => {
  const model = tutorial();
  model.cells.x[1][1] = 'abc';
  const read = readModel(model);
  assert.equal(read.ok, false);
  assert.equal(read.errors.x.row, 1);
  assert.equal(read.errors.x.column, 1);
  assert.deepEqual(read.errors.x.message, { key: 'errNotNumber', params: { row: 2, token: '爱', col: 2, text: 'abc' } });
  model.cells.wq[0][1] = '';
  assert.equal(readModel(model).errors.wq.message.key, 'errCellEmpty');
  model.cells.wk[0][0] = 'NaN';
  assert.equal(readModel(model).errors.wk.message.key, 'errNotFinite');
});

test('shrinking and growing a dimension keeps the numbers; new cells are 0', () => {
  const model = tutorial();
  model.dims.dModel = 1;
  assert.deepEqual(readModel(model).matrices.x, [[1], [0.5], [0]]);
  model.dims.dModel = 3;
  assert.deepEqual(readModel(model).matrices.x, [[1, 0, 0], [0.5, 0.5, 0], [0, 1, 0]]);
  assert.deepEqual(readModel(model).matrices.wq, [[0.5, 0.2], [0.1, 0.6], [0, 0]]);
  assert.deepEqual(shapeOf('wv', model), [3, 2]);
});

test('dimensions are whole numbers from 1 to 64', () => {
  assert.deepEqual(parseDim('64'), { ok: true, value: 64 });
  for (const text of ['0', '65', '2.5', '', 'abc']) assert.equal(parseDim(text).ok, false, text);
});

test('applying a whole matrix sets the dimension it stands for, or explains the mismatch', () => {
  const model = tutorial();
  assert.equal(applyMatrix(model, 'x', [[1, 2, 3], [4, 5, 6], [7, 8, 9]]), null);
  assert.equal(model.dims.dModel, 3);
  assert.deepEqual(applyMatrix(model, 'x', [[1, 2]]), { key: 'errXRows', params: { rows: 1, tokens: 3 } });
  assert.equal(applyMatrix(model, 'wv', [[1], [2], [3]]), null);
  assert.equal(model.dims.dv, 1);
  assert.deepEqual(applyMatrix(model, 'wq', [[1, 2]]).key, 'errWRows');
});

test('an applied matrix keeps its numbers as typed, and reads back as their values', () => {
  const model = tutorial();
  const { rows, texts } = parseMatrixText('1.50 \u22120.5\n1e-3 +2\n-0 0');
  assert.equal(applyMatrix(model, 'x', rows, texts), null);
  assert.deepEqual(model.cells.x, [['1.50', '\u22120.5'], ['1e-3', '+2'], ['-0', '0']]);
  assert.deepEqual(readModel(model).matrices.x, [[1.5, -0.5], [0.001, 2], [0, 0]]);
  // without texts (JSON, files), each number gets its shortest text
  assert.equal(applyMatrix(model, 'x', [[1.5, -0.5], [0.001, 2], [-0, 0]]), null);
  assert.deepEqual(model.cells.x, [['1.5', '-0.5'], ['0.001', '2'], ['0', '0']]);
});

test('a pasted block fills from its cell and is clipped to the grid', () => {
  const model = tutorial();
  pasteBlock(model, 'x', 1, 1, [[7, 8], [9, 10], [11, 12]]);
  assert.deepEqual(readModel(model).matrices.x, [[1, 0], [0.5, 7], [0, 9]]);
});

test('removing a token removes its row of X; adding one adds its made-up vector, not a row of zeros', () => {
  const model = tutorial();
  removeToken(model, 0);
  assert.deepEqual(model.tokens, ['爱', '你']);
  assert.deepEqual(readModel(model).matrices.x, [[0.5, 0.5], [0, 1]]);
  addToken(model, 'w3');
  assert.deepEqual(readModel(model).matrices.x, [[0.5, 0.5], [0, 1], tokenVector('w3', 2)]);
  model.tokens[2] = ' ';
  assert.deepEqual(readModel(model).errors.tokens.message, { key: 'errTokenEmpty', params: { n: 3 } });
});

test('more tokens than the engine takes (4096) is an error of the tokens, as an empty or overlong token is', () => {
  assert.deepEqual(tokenErrors(Array.from({ length: 4096 }, (_, i) => `t${i}`)), null);
  assert.deepEqual(tokenErrors(Array.from({ length: 4097 }, (_, i) => `t${i}`)), { key: 'errTooManyTokens', params: { n: 4097, max: 4096 } });
  assert.deepEqual(tokenErrors([]), { key: 'errSentenceEmpty', params: {} });
  assert.deepEqual(tokenErrors(['a', ' ']), { key: 'errTokenEmpty', params: { n: 2 } });
});

// issue 32.1 / 31.2: a typed token had the row of zeros (or the row of whatever token sat there)
test('a typed sentence: each new token gets a made-up vector of its own, kept tokens keep theirs wherever they move, retyped ones get theirs back', () => {
  const model = tutorial();
  model.cells.x[2] = ['0.25', '-2']; // 你, typed by the user
  setTokens(model, ['你', '爱', '我', '们', '我']);
  const { x } = readModel(model).matrices;
  assert.deepEqual(x.slice(0, 3), [[0.25, -2], [0.5, 0.5], [1, 0]], 'the tokens kept their own rows, not those of their places');
  assert.deepEqual(x[3], tokenVector('们', 2));
  assert.deepEqual(x[4], [1, 0], 'the same token, the same vector');
  model.cells.x[4][0] = '9'; // the second 我's row is its own copy
  assert.deepEqual(readModel(model).matrices.x[2], [1, 0]);
  setTokens(model, ['爱']);
  setTokens(model, ['爱', '你']);
  assert.deepEqual(readModel(model).matrices.x[1], [0.25, -2], 'typed away and back: its vector again');
});

test('made-up vectors: from the text alone, never zero, distinct for distinct tokens, and recognised as made up', () => {
  assert.deepEqual(tokenVector('cat', 3), tokenVector('cat', 3));
  const tokens = Array.from({ length: 300 }, (_, i) => `t${i}`);
  const rows = followTokens(tokens, [], [], { width: 2 });
  assert.equal(new Set(rows.map(String)).size, 300, 'distinct tokens, distinct vectors, even at d_model = 2');
  for (const row of rows) {
    assert.ok(row.every((v) => Math.abs(v) >= 0.1 && Math.abs(v) <= 1 && Math.abs(v * 100 - Math.round(v * 100)) < 1e-9), String(row));
  }
  assert.ok(tokens.every((token, i) => isMadeUp(token, rows[i])));
  assert.equal(isMadeUp('cat', [1, 0]), false);
  assert.deepEqual(madeUpTokens({ tokens: ['a', 'b', 'a'], x: [tokenVector('a', 2), [1, 0], tokenVector('a', 2)] }), ['a']);
});
