import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatNumber, formatCompact, fullNumber } from '../../web/src/ui/format.js';

test('four decimals by default', () => {
  assert.equal(formatNumber(0.5511785014811564), '0.5512');
  assert.equal(formatNumber(1), '1.0000');
  assert.equal(formatNumber(-0.25), '-0.2500');
});

test('other decimal counts', () => {
  assert.equal(formatNumber(Math.SQRT2, 2), '1.41');
  assert.equal(formatNumber(Math.SQRT2, 6), '1.414214');
});

test('no minus sign on values that round to zero', () => {
  assert.equal(formatNumber(-0), '0.0000');
  assert.equal(formatNumber(-0.00001), '0.0000');
});

test('very large values use exponent notation', () => {
  assert.equal(formatNumber(12345678), '1.235e+7');
});

test('full value is the shortest round-trip text', () => {
  assert.equal(fullNumber(0.30000000000000004), '0.30000000000000004');
  assert.equal(fullNumber(0.5), '0.5');
});

test('compact numbers drop trailing zeros', () => {
  assert.equal(formatCompact(0.30000000000000004), '0.3');
  assert.equal(formatCompact(10), '10');
  assert.equal(formatCompact(-0.5), '-0.5');
  assert.equal(formatCompact(0.98604), '0.986');
  assert.equal(formatCompact(-0.00001), '0');
});
