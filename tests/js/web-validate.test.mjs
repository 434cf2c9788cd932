import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateInputs, engineErrorMessage } from '../../web/src/validate.js';
import { EXAMPLE } from '../../web/src/example.js';

const withField = (field, text) => validateInputs({ ...EXAMPLE, [field]: text });

test('the tutorial example is valid', () => {
  const v = validateInputs(EXAMPLE);
  assert.equal(v.ok, true);
  assert.deepEqual(v.tokens, ['我', '爱', '你']);
  assert.deepEqual(v.matrices, {
    x: [[1, 0], [0.5, 0.5], [0, 1]],
    wq: [[0.5, 0.2], [0.1, 0.6]],
    wk: [[0.4, 0.3], [0.2, 0.7]],
    wv: [[0.8, 0.1], [0.3, 0.9]],
  });
});

test('empty sentence', () => {
  const v = withField('sentence', '   ');
  assert.equal(v.ok, false);
  assert.deepEqual(v.errors.sentence, { key: 'errSentenceEmpty', params: {} });
});

test('parse errors in X name the 1-based row, its token and the column', () => {
  const v = withField('x', '1 0\n0.5 abc\n0 1');
  assert.equal(v.errors.x.key, 'errNotNumber');
  assert.deepEqual(v.errors.x.params, { row: 2, token: '爱', col: 2, text: 'abc' });
});

test('X row count must match the token count', () => {
  assert.deepEqual(withField('x', '1 0\n0 1').errors.x, { key: 'errXRows', params: { rows: 2, tokens: 3 } });
});

test('W_Q rows must equal X columns', () => {
  assert.deepEqual(withField('wq', '1 0\n0 1\n1 1').errors.wq, { key: 'errWqRows', params: { rows: 3, expected: 2 } });
});

test('W_K must have the shape of W_Q', () => {
  assert.deepEqual(withField('wk', '1 0 1\n0 1 1').errors.wk, {
    key: 'errWkShape', params: { rows: 2, cols: 3, expRows: 2, expCols: 2 },
  });
});

test('W_V rows must equal X columns; its column count is free', () => {
  assert.deepEqual(withField('wv', '1 0').errors.wv, { key: 'errWvRows', params: { rows: 1, expected: 2 } });
  assert.equal(withField('wv', '1 0 1\n0 1 1').ok, true);
});

test('errors in one field leave the others unflagged', () => {
  const v = withField('wk', 'abc');
  assert.deepEqual(Object.keys(v.errors), ['wk']);
  assert.equal(v.matrices, null);
});

test('engine errors map to their field or to the status line', () => {
  const tokens = ['我', '爱', '你'];
  const error = Object.assign(new Error('x[1][0] is not finite'), { code: 'not_finite', operand: 'x', row: 1, column: 0 });
  assert.deepEqual(engineErrorMessage(error, tokens), {
    field: 'x', message: { key: 'errEngineNotFinite', params: { row: 2, token: '爱', col: 1, name: 'X' } },
  });
  const overflow = Object.assign(new Error('scores overflowed'), { code: 'overflow', operand: 'scores' });
  assert.deepEqual(engineErrorMessage(overflow, tokens), {
    field: null, message: { key: 'errOverflow', params: { name: 'scores' } },
  });
  const unknown = Object.assign(new Error('something new'), { code: 'mystery' });
  assert.deepEqual(engineErrorMessage(unknown, tokens), {
    field: null, message: { key: 'errEngine', params: { message: 'something new' } },
  });
});
