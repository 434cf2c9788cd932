import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMatrix, parseMatrixText, parseNumber } from '../../web/src/parse.js';

test('rows are lines; spaces, commas, full-width commas and tabs separate numbers', () => {
  assert.deepEqual(parseMatrix('1 0\n0.5,0.5\n0\t1'), {
    ok: true, rows: [[1, 0], [0.5, 0.5], [0, 1]], texts: [['1', '0'], ['0.5', '0.5'], ['0', '1']],
  });
  assert.deepEqual(parseMatrix('1, 2\r\n3 ,4'), { ok: true, rows: [[1, 2], [3, 4]], texts: [['1', '2'], ['3', '4']] });
  assert.deepEqual(parseMatrix('1，2\n3，4'), { ok: true, rows: [[1, 2], [3, 4]], texts: [['1', '2'], ['3', '4']] });
});

test('pasted spreadsheet rows (tabs, trailing newline) parse', () => {
  assert.deepEqual(parseMatrix('0.5\t0.2\n0.1\t0.6\n'), {
    ok: true, rows: [[0.5, 0.2], [0.1, 0.6]], texts: [['0.5', '0.2'], ['0.1', '0.6']],
  });
});

test('a trailing comma on a line is allowed', () => {
  assert.deepEqual(parseMatrix('1, 2,\n3, 4,'), { ok: true, rows: [[1, 2], [3, 4]], texts: [['1', '2'], ['3', '4']] });
});

test('number forms: sign, exponent, leading dot, unicode minus', () => {
  for (const [text, value] of [['-2', -2], ['+3', 3], ['.5', 0.5], ['5.', 5], ['1e-3', 0.001], ['2E2', 200], ['\u22121.5', -1.5]]) {
    assert.deepEqual(parseNumber(text), { ok: true, value }, text);
  }
});

test('each cell keeps its text as typed, beside its number', () => {
  assert.deepEqual(parseMatrix('1.50 \u22120.5\n1e-3 +2'), {
    ok: true, rows: [[1.5, -0.5], [0.001, 2]], texts: [['1.50', '\u22120.5'], ['1e-3', '+2']],
  });
});

test('non-numbers are rejected with their position (0-based) and text', () => {
  assert.deepEqual(parseMatrix('1 0\n0.5 abc'), {
    ok: false, error: { code: 'not_number', row: 1, column: 1, text: 'abc' },
  });
  assert.equal(parseMatrix('1..2 0').error.code, 'not_number');
  assert.equal(parseMatrix('0x10').error.code, 'not_number');
  assert.equal(parseMatrix('1-2').error.code, 'not_number');
});

test('NaN and Infinity text, and overflowing literals, are not finite', () => {
  for (const text of ['NaN', 'Infinity', '-Infinity', 'inf', '1e999']) {
    assert.equal(parseMatrix(`1 ${text}`).error.code, 'not_finite', text);
  }
});

test('an empty cell between two commas is reported', () => {
  assert.deepEqual(parseMatrix('1,,2'), { ok: false, error: { code: 'empty_cell', row: 0, column: 1, text: '' } });
});

test('ragged rows are reported with counts', () => {
  assert.deepEqual(parseMatrix('1 2\n3 4 5'), { ok: false, error: { code: 'ragged', row: 1, count: 3, expected: 2 } });
});

test('empty matrix and blank interior lines', () => {
  assert.deepEqual(parseMatrix(''), { ok: false, error: { code: 'empty' } });
  assert.deepEqual(parseMatrix(' \n\n'), { ok: false, error: { code: 'empty' } });
  assert.deepEqual(parseMatrix('1 2\n\n3 4'), { ok: false, error: { code: 'empty_row', row: 1 } });
});

test('whole-matrix text: JSON, CSV or TSV', () => {
  assert.deepEqual(parseMatrixText('[[1, 0], [0.5, -2]]'), { ok: true, rows: [[1, 0], [0.5, -2]] });
  const texts = [['1', '0'], ['0.5', '-2']];
  assert.deepEqual(parseMatrixText('1,0\n0.5,-2\n'), { ok: true, rows: [[1, 0], [0.5, -2]], texts });
  assert.deepEqual(parseMatrixText('1\t0\n0.5\t-2'), { ok: true, rows: [[1, 0], [0.5, -2]], texts });
  assert.equal(parseMatrixText('[[1, 0], [0.5').error.code, 'json');
  assert.equal(parseMatrixText('[1, 2]').error.code, 'json_shape');
  assert.deepEqual(parseMatrixText('[[1, "a"]]').error, { code: 'not_number', row: 0, column: 1, text: '"a"' });
  assert.equal(parseMatrixText('[[1, 2], [3]]').error.code, 'ragged');
});

test('issue 6: a JSON number too large for float64 (1e400 reads as Infinity) is not finite, at its row and column', () => {
  const parsed = parseMatrixText('[[1, 2], [3, 1e400]]');
  assert.equal(parsed.ok, false);
  assert.deepEqual(parsed.error, { code: 'not_finite', row: 1, column: 1, text: 'Infinity' });
  assert.deepEqual(parseMatrixText('[[1, -1e999]]').error, { code: 'not_finite', row: 0, column: 1, text: '-Infinity' });
});
