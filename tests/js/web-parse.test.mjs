import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMatrix, parseMatrixText, parseNumber, isBlock, MAX_CELL_CHARS } from '../../web/src/io/parse.js';
import { createModel, readModel, parseTemperature } from '../../web/src/state/model.js';
import { PRESETS } from '../../web/src/state/presets.js';
import { describe } from '../../web/src/ui/i18n.js';

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

test('a text read again after an edit reads as a first read would: lines met before are copies, never shared', () => {
  const first = parseMatrix('1 2\n3 4\n5 6');
  first.rows[0][0] = 99;
  first.texts[1][1] = 'x';
  // the same lines, one changed, one moved, one new: errors count rows in this text
  assert.deepEqual(parseMatrix('3 4\n1 2\n7 8'), { ok: true, rows: [[3, 4], [1, 2], [7, 8]], texts: [['3', '4'], ['1', '2'], ['7', '8']] });
  assert.deepEqual(parseMatrix('1 2\n1 2 3'), { ok: false, error: { code: 'ragged', row: 1, count: 3, expected: 2 } });
  assert.deepEqual(parseMatrix('9 9\n3 4\n1 q'), { ok: false, error: { code: 'not_number', row: 2, column: 1, text: 'q' } });
  const again = parseMatrix('1 2\n1 2');
  assert.notEqual(again.rows[0], again.rows[1]);
  assert.deepEqual(again, { ok: true, rows: [[1, 2], [1, 2]], texts: [['1', '2'], ['1', '2']] });
  // −0 read fresh, then again from the kept line
  assert.ok(Object.is(parseMatrix('-0 1').rows[0][0], -0));
  assert.ok(Object.is(parseMatrix('-0 1').rows[0][0], -0));
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

// ---- issue 13: hostile text; issue 18: decimal commas ----

test('regex backtracking: a 100 KB cell of digits then a letter is refused at once, by its length', () => {
  // the old pattern (\d+\.?\d*) tried every split of the digits: 28 s for this cell, twice
  const cell = `${'1'.repeat(100_000)}a`;
  const start = performance.now();
  assert.deepEqual(parseNumber(cell), { ok: false, code: 'too_long' });
  assert.deepEqual(parseMatrix(`1 ${cell}`).error, { code: 'too_long', row: 0, column: 1, text: `${'1'.repeat(40)}…`, length: 100_001 });
  assert.equal(parseMatrixText(`[[1, "${cell}"]]`).error.text, `"${'1'.repeat(40)}…"`);
  assert.ok(performance.now() - start < 1000, `${performance.now() - start} ms`);
});

test('a cell of up to 100 characters is read; one more is too long', () => {
  assert.equal(MAX_CELL_CHARS, 100);
  assert.deepEqual(parseNumber(`0.${'0'.repeat(97)}5`), { ok: true, value: 5e-98 });
  assert.deepEqual(parseNumber(`0.${'0'.repeat(98)}5`), { ok: false, code: 'too_long' });
});

test('matrix text is read in time linear in its length: long runs of digits, spaces, commas, tabs', () => {
  const cases = [
    Array(50_000).fill('1').join(' ') + ' a', // 50 000 cells, the last bad
    `1${' '.repeat(100_000)}x`, // a run of spaces without a comma
    `1\t${' '.repeat(100_000)}x`, // the same in a spreadsheet line
    `1${', '.repeat(50_000)}x`,
    `${'9'.repeat(99)}e${'1'.repeat(99)}`,
    [...Array(5_000).fill('1.5 -2 3e-3 \u22120.25'), 'x'].join('\n'), // 100 KB of good rows, then a bad one
  ];
  // each takes milliseconds (a quadratic reading of any of them, seconds); the bound allows for a loaded machine
  for (const text of cases) {
    const start = performance.now();
    assert.equal(parseMatrix(text).ok, false);
    assert.ok(performance.now() - start < 2000, `${text.slice(0, 20)}: ${performance.now() - start} ms`);
  }
});

test('decimal comma: a single number written 0,5 gets "use a point", never 0.5 nor 5', () => {
  for (const text of ['0,5', '-1,25', '1.234,5', '1,234', ',5', '2，5']) {
    assert.deepEqual(parseNumber(text), { ok: false, code: 'decimal_comma' }, text);
  }
  assert.deepEqual(parseNumber('1,a'), { ok: false, code: 'not_number' });
  assert.deepEqual(parseNumber(','), { ok: false, code: 'not_number' });
  // the temperature is a single-number field
  assert.deepEqual(parseTemperature(' 0,5 '), { ok: false, message: { key: 'errTemperatureComma', params: {} } });
  assert.equal(describe('en', parseTemperature('0,5').message), 'Write the temperature with a decimal point: 0.5, not 0,5.');
  assert.equal(describe('zh', parseTemperature('0,5').message), '温度请用小数点书写：写 0.5，不写 0,5。');
  // so is a grid cell
  const model = createModel({ tokens: ['我', '爱', '你'], ...PRESETS.tutorial });
  model.cells.x[1][0] = '0,5';
  assert.equal(describe('en', readModel(model).errors.x.message),
    'Row 2 (爱), column 1: “0,5” has a decimal comma. Write decimals with a point (0.5, not 0,5) and no thousands separators; separate several numbers with spaces or tabs.');
});

test('decimal comma in a block: a matrix line splits at commas, a spreadsheet line (tabs) at tabs only', () => {
  // typed or pasted lines: the comma separates cells, as documented
  assert.deepEqual(parseMatrix('1,2\n3,4').rows, [[1, 2], [3, 4]]);
  // a spreadsheet in a comma locale copies "1,5<tab>2,5": two cells, each refused, not four numbers
  assert.deepEqual(parseMatrix('1,5\t2,5\n3,5\t4,5').error, { code: 'decimal_comma', row: 0, column: 0, text: '1,5' });
  assert.deepEqual(parseMatrixText('0.5\t1\n0.25\t2,5\n').error, { code: 'decimal_comma', row: 1, column: 1, text: '2,5' });
  assert.deepEqual(parseMatrix('0.5\t1\n0.25 \t 2\n').rows, [[0.5, 1], [0.25, 2]]);
  // pasted into one cell: "0,5" is that cell's text (and its message), "1, 2" or "1\t2" a block
  assert.equal(isBlock('0,5'), false);
  assert.equal(isBlock(' 0.5\n'), false);
  for (const text of ['1, 2', '1 2', '1\t2', '1\n2', '[[1]]', '1,5\t2,5']) assert.equal(isBlock(text), true, text);
});
