// scrub.js's arithmetic: the temperature slider's log scale and the texts a
// dragged or stepped number gets. Expected values written out by hand.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { temperatureAt, sliderPosition, steppedText } from '../../web/src/edit/scrub.js';

test('the slider spans T = 0.05 … 20 on a log scale, T = 1 in the middle', () => {
  assert.equal(temperatureAt(0), 0.05);
  assert.equal(temperatureAt(120), 1);
  assert.equal(temperatureAt(240), 20);
  assert.equal(temperatureAt(121), 1.03); // 400^(1/240) ≈ 1.0253 a step
  assert.equal(temperatureAt(60), 0.224); // 0.05 · 400^(1/4) = 0.05 · √20 = 0.2236…
  assert.equal(temperatureAt(180), 4.47); // 0.05 · 400^(3/4) = √20 = 4.472…
});

test('every position gives a larger T than the one before, and is found again from it', () => {
  for (let p = 0; p <= 240; p++) {
    if (p > 0) assert.ok(temperatureAt(p) > temperatureAt(p - 1), `position ${p}`);
    assert.equal(sliderPosition(temperatureAt(p)), p, `position ${p}`);
  }
});

test('a typed T sits at its nearest position, or at an end beyond the scale', () => {
  assert.equal(sliderPosition(0.7), 106); // 240 · ln 14 / ln 400 = 105.7…
  assert.equal(sliderPosition(1e-9), 0);
  assert.equal(sliderPosition(100), 240);
  assert.equal(sliderPosition(Number.MAX_VALUE), 240);
});

test('a dragged number: the shortest text at the step\'s decimals, never -0, never infinite', () => {
  assert.equal(steppedText(1 + 30 * 0.01, 0.01), '1.3');
  assert.equal(steppedText(1.3 + 20 * 0.001, 0.001), '1.32');
  assert.equal(steppedText(0.1 + 0.2, 0.1), '0.3');
  assert.equal(steppedText(-0.001, 0.01), '0');
  assert.equal(steppedText(-1.5, 0.01), '-1.5');
  assert.equal(steppedText(2.5, 1), '3');
  assert.equal(steppedText(1e300, 0.01), '1e+300');
  assert.equal(steppedText(Number.MAX_VALUE * 2, 0.01), null);
});
