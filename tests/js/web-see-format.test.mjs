// The numbers as the views print them, at their edges (format.js): a masked −∞,
// other non-finite values, the switch to exponent form at exactly 1e6, a sign
// never left on a zero, and compact text of an exponent form ending in 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatNumber, formatCompact } from '../../web/src/ui/format.js';

test('a masked score prints −∞; +∞ and NaN print as such, not as −∞', () => {
  assert.equal(formatNumber(-Infinity), '−∞');
  assert.equal(formatCompact(-Infinity), '−∞');
  assert.equal(formatNumber(Infinity), 'Infinity');
  assert.equal(formatNumber(NaN), 'NaN');
});

test('exponent form from 1e6 on, fixed below it', () => {
  assert.equal(formatNumber(1e6), '1.000e+6');
  assert.equal(formatNumber(-1e6, 2), '-1.0e+6');
  assert.equal(formatNumber(999999.4, 1), '999999.4');
});

test('a value that rounds to zero has no sign, at any decimals (0 too)', () => {
  assert.equal(formatNumber(-0.3, 0), '0');
  assert.equal(formatNumber(-0.04, 1), '0.0');
  assert.equal(formatNumber(-0.4, 0), '0');
  assert.equal(formatNumber(-1.2, 0), '-1');
});

test('compact text keeps an exponent whole (its trailing 0 is a digit of the exponent)', () => {
  assert.equal(formatCompact(1e10), '1.000e+10');
  assert.equal(formatCompact(2e20, 2), '2.0e+20');
  assert.equal(formatCompact(120, 0), '120');
});
