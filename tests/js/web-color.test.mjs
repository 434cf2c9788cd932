import { test } from 'node:test';
import assert from 'node:assert/strict';
import { viridis, diverging, cellColor, textColorFor, rgbCss } from '../../web/src/ui/color.js';

test('viridis ends and clamping', () => {
  assert.deepEqual(viridis(0), [0x44, 0x01, 0x54]);
  assert.deepEqual(viridis(1), [0xfd, 0xe7, 0x25]);
  assert.deepEqual(viridis(-1), viridis(0));
  assert.deepEqual(viridis(2), viridis(1));
  assert.deepEqual(viridis(NaN), viridis(0));
});

test('text colour contrasts with the cell', () => {
  assert.equal(textColorFor(viridis(0)), '#ffffff');
  assert.equal(textColorFor(viridis(1)), '#000000');
  assert.equal(textColorFor([255, 255, 255]), '#000000');
});

test('every cell colour keeps a contrast ratio of at least 4.5 with its text', () => {
  const luminance = (rgb) => {
    const [r, g, b] = rgb.map((c) => { const s = c / 255; return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * r + 0.7152 * g + 0.0722 * b;
  };
  for (let i = 0; i <= 200; i++) {
    const background = i <= 100 ? viridis(i / 100) : diverging((i - 150) / 50);
    const text = textColorFor(background) === '#000000' ? 0 : 1;
    const [hi, lo] = [luminance(background), text].sort((a, b) => b - a);
    assert.ok((hi + 0.05) / (lo + 0.05) >= 4.5, `t=${i / 100}`);
  }
});

test('css colour text', () => {
  assert.equal(rgbCss([1, 2, 3]), 'rgb(1, 2, 3)');
});

test('diverging: blue below 0, near-white at 0, red above, scaled to the matrix', () => {
  assert.deepEqual(diverging(-1), [0x21, 0x66, 0xac]);
  assert.deepEqual(diverging(0), [0xf7, 0xf7, 0xf7]);
  assert.deepEqual(diverging(1), [0xb2, 0x18, 0x2b]);
  assert.deepEqual(cellColor('signed', -3, 3), diverging(-1));
  assert.deepEqual(cellColor('signed', 0, 0), diverging(0));
  assert.deepEqual(cellColor('weights', 1, 1), viridis(1));
});
