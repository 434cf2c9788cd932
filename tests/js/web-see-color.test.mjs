// The colours a canvas heatmap paints (its lookup table, as ImageData bytes), the legend's
// gradient, and the text colour at the contrast threshold (issue 33 item 2): what a user sees,
// checked against the colour maps' stops and the WCAG formula worked in Python.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { colorTable, gradientCss, textColorFor, cellColor, diverging, largestMagnitude, VIRIDIS_STOPS, DIVERGING_STOPS } from '../../web/src/ui/color.js';
import { alongMap } from './see-colors.mjs';

// The pixel a canvas gets for value v (the lookup the heatmap makes), as [r, g, b, a] bytes in
// ImageData order.
const pixelFor = (table, v) => {
  const entry = Math.min(table.last, Math.max(0, Math.round((Number.isFinite(v) ? v : 0) * table.scale + table.offset)));
  return [...new Uint8Array(Uint32Array.of(table.pixels[entry]).buffer)];
};

test('the canvas colours of weights: 0 is viridis\' first stop, 1 its last, 0.5 halfway along, each pixel opaque', () => {
  const table = colorTable('weights', 1);
  assert.equal(table.pixels.length, 1024);
  assert.deepEqual(pixelFor(table, 0), [0x44, 0x01, 0x54, 255]);
  assert.deepEqual(pixelFor(table, 1), [0xfd, 0xe7, 0x25, 255]);
  assert.deepEqual(pixelFor(table, 2), [0xfd, 0xe7, 0x25, 255], 'clamped');
  for (const v of [0.1, 0.25, 0.5, 0.9]) {
    const [r, g, b, a] = pixelFor(table, v);
    const { t, distance } = alongMap([r, g, b], VIRIDIS_STOPS);
    assert.ok(Math.abs(t - v) < 0.002 && distance < 1.5 && a === 255, `weight ${v}: at ${t} along viridis, ${distance} off it`);
  }
  // a masked score (−∞) is painted as 0
  assert.deepEqual(pixelFor(table, -Infinity), pixelFor(table, 0));
});

test('the canvas colours of a signed matrix: its largest magnitude is either end of RdBu, 0 the middle, on the matrix\'s own scale', () => {
  for (const magnitude of [0.5, 3, 250]) {
    const table = colorTable('signed', magnitude);
    assert.deepEqual(pixelFor(table, -magnitude), [0x21, 0x66, 0xac, 255], `−${magnitude}: blue`);
    assert.deepEqual(pixelFor(table, magnitude), [0xb2, 0x18, 0x2b, 255], `+${magnitude}: red`);
    const middle = pixelFor(table, 0);
    assert.ok(middle.slice(0, 3).every((c) => Math.abs(c - 0xf7) <= 2), `0: near-white (${middle})`);
    for (const f of [-0.75, -0.2, 0.4, 0.9]) {
      const [r, g, b] = pixelFor(table, f * magnitude);
      const { t, distance } = alongMap([r, g, b], DIVERGING_STOPS);
      assert.ok(Math.abs(t - (f + 1) / 2) < 0.002 && distance < 1.5, `${f} × ${magnitude}: at ${t} along RdBu, ${distance} off it`);
    }
  }
  // an all-zero matrix is all the middle colour; the weights' table is not the signed one
  const zero = colorTable('signed', 0);
  assert.deepEqual(pixelFor(zero, 0), pixelFor(colorTable('signed', 1), 0));
  assert.deepEqual(pixelFor(zero, 5), pixelFor(zero, 0));
  assert.notDeepEqual(pixelFor(colorTable('weights', 1), 0), pixelFor(zero, -1));
});

test('the legend\'s gradient: the colour map\'s stops left to right', () => {
  assert.equal(gradientCss([[1, 2, 3], [250, 251, 252]]), 'linear-gradient(to right, rgb(1, 2, 3), rgb(250, 251, 252))');
  assert.equal(gradientCss(VIRIDIS_STOPS), `linear-gradient(to right, ${'rgb(68, 1, 84), rgb(71, 44, 122), rgb(59, 81, 139), rgb(44, 113, 142), rgb(33, 144, 141), rgb(39, 173, 129), rgb(92, 200, 99), rgb(170, 220, 50), rgb(253, 231, 37)'})`);
});

test('the text colour at the contrast threshold follows WCAG\'s formula, dark channels linear (values from Python)', () => {
  // WCAG contrast with black / with white, worked in Python: (0,137,0) 4.578 / 4.587, white wins;
  // (10,137,0) 4.591 / 4.574, black wins; (0,138,0) 4.635 / 4.530, black. The red and blue
  // channels of 0 and 10 are on the linear part of the sRGB curve (s ≤ 0.04045).
  assert.equal(textColorFor([0, 137, 0]), '#ffffff');
  assert.equal(textColorFor([10, 137, 0]), '#000000');
  assert.equal(textColorFor([0, 138, 0]), '#000000');
  assert.equal(textColorFor([0, 136, 0]), '#ffffff');
});

test('a signed cell\'s colour is its value over the matrix\'s largest magnitude, masked scores left out of that', () => {
  assert.deepEqual(cellColor('signed', 1, 4), diverging(0.25));
  assert.deepEqual(cellColor('signed', -3, 4), diverging(-0.75));
  assert.equal(largestMagnitude([[1, -3], [-Infinity, 2]]), 3, 'a masked −∞ does not count');
  assert.equal(largestMagnitude([[0.5], [-7, 2, 6]]), 7, 'every row, every column');
  assert.equal(largestMagnitude([[-Infinity, -Infinity]]), 0);
  assert.equal(largestMagnitude([]), 0);
  assert.equal(largestMagnitude([Float64Array.of(2, -9)]), 9, 'typed rows');
  assert.equal(largestMagnitude([[1, -9], [4, 2]], new Set([1])), 4, 'the cells skipped (an exercise\'s blanks) do not count');
});
