import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainCell } from '../../web/src/views/work.js';
import { TUTORIAL, TUTORIAL_EXPECTED } from './fixtures.mjs';

// tests/REFERENCE.md: the worked example and what it really computes.
const ctx = { lang: 'en', decimals: 4, tokens: ['我', '爱', '你'], inputs: TUTORIAL, result: TUTORIAL_EXPECTED };

test('a Q cell is the dot product of an X row with a W_Q column', () => {
  const { lines, marks } = explainCell('Q', 1, 1, ctx);
  assert.equal(lines[0], 'Q[爱, d2] = 0.5×0.2 + 0.5×0.6 = 0.4');
  assert.deepEqual(marks, [{ m: 'X', r: 1 }, { m: 'W_Q', c: 1 }]);
});

test('a score, a scaled score', () => {
  assert.equal(explainCell('Scores', 0, 1, ctx).lines[0], 'Scores[我, 爱] = 0.5×0.3 + 0.2×0.5 = 0.25');
  assert.equal(explainCell('Scaled', 1, 1, ctx).lines[0], 'Scaled[爱, 爱] = 0.29 / √2 = 0.29 / 1.4142 = 0.2051');
  assert.deepEqual(explainCell('Scaled', 1, 1, ctx).marks, [{ m: 'Scores', r: 1, c: 1 }]);
});

test('a weight shows the row max subtracted inside exp', () => {
  const { lines, marks } = explainCell('Weights', 0, 1, ctx);
  assert.equal(lines[0], 'Weights[我, 爱] = exp(s − max) / Σ exp(s − max)');
  assert.match(lines[1], /max = 0\.1838/);
  assert.equal(lines[2], '= exp(0.1768 − 0.1838) / (exp(0.1838 − 0.1838) + exp(0.1768 − 0.1838) + exp(0.1697 − 0.1838))');
  assert.equal(lines[3], '= 0.993 / (1 + 0.993 + 0.986)');
  assert.equal(lines[4], '= 0.993 / 2.9789 = 0.3333');
  assert.deepEqual(marks, [{ m: 'Scaled', r: 0 }, { m: 'Scaled', r: 0, c: 0, kind: 'max' }]);
});

test('an output cell is the weighted sum of a V column', () => {
  const { lines, marks } = explainCell('Output', 0, 0, ctx);
  assert.equal(lines[0], 'Output[我, d1] = 0.3357×0.8 + 0.3333×0.55 + 0.331×0.3 = 0.5512');
  assert.deepEqual(marks, [{ m: 'Weights', r: 0 }, { m: 'V', c: 0 }]);
});

test('negative operands are bracketed; long sums are shortened', () => {
  const wide = { ...ctx, tokens: ['a'], inputs: { x: [Array(20).fill(-1)], wq: Array.from({ length: 20 }, () => [2]) }, result: { q: [[-40]] } };
  const line = explainCell('Q', 0, 0, wide).lines[0];
  assert.match(line, /^Q\[a, d1\] = \(-1\)×2 \+ (\(-1\)×2 \+ ){4}… \(20\) \+ \(-1\)×2 \+ \(-1\)×2 = -40$/);
});

test('the words are in the page language', () => {
  assert.match(explainCell('Output', 0, 0, { ...ctx, lang: 'zh' }).lines[1], /V 的 d1 列/);
});
