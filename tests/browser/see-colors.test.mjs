// The colours the element paints, read back from the page (a table cell's
// background, a canvas heatmap's pixels) in light and dark, and placed along
// the colour map they belong to (tests/js/see-colors.mjs): a larger weight is
// further along viridis, in proportion (0 → 1); a signed value is on the blue
// side below 0 and the red side above, as deep as its share of the matrix's
// largest magnitude; a masked cell is grey. Small n (tables) and large n
// (canvas heatmaps, beyond 24 tokens). The values are computed here in plain
// JS from the inputs, never read from the engine. A table cell's number is
// readable on its colour (WCAG contrast at least 4.5).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { VIRIDIS_STOPS, DIVERGING_STOPS } from '../../web/src/ui/color.js';
import { alongMap } from '../js/see-colors.mjs';
import { browserAndServer } from './local.mjs';

const local = browserAndServer(path.resolve('dist'));

// A state of n tokens, d = 2, causal, with a seeded pseudo-random X and one head.
function stateOf(n) {
  let seed = 12345;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * 2 - 1;
  const round = (v) => Math.round(v * 100) / 100;
  const x = Array.from({ length: n }, () => [round(random() * 2), round(random() * 2)]);
  const w = () => [[round(random()), round(random())], [round(random()), round(random())]];
  return { tokens: x.map((_, i) => `t${i}`), x, heads: [{ wq: w(), wk: w(), wv: w() }], causal: true, keyPadding: x.map(() => false) };
}

// Scores, Scaled (−∞ where masked) and Weights of a causal state, in plain JS.
function expected(state) {
  const mul = (a, b) => a.map((row) => b[0].map((_, c) => row.reduce((s, v, k) => s + v * b[k][c], 0)));
  const { wq, wk } = state.heads[0];
  const q = mul(state.x, wq);
  const k = mul(state.x, wk);
  const scores = q.map((qr) => k.map((kr) => qr.reduce((s, v, i) => s + v * kr[i], 0)));
  const masked = scores.map((row, i) => row.map((_, j) => j > i));
  const scaled = scores.map((row, i) => row.map((v, j) => (masked[i][j] ? -Infinity : v / Math.sqrt(2))));
  const weights = scaled.map((row) => {
    const max = Math.max(...row);
    const e = row.map((v) => Math.exp(v - max));
    const sum = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / sum);
  });
  return { Scores: scores, Scaled: scaled, Weights: weights, masked };
}

async function show(page, state, step) {
  await page.evaluate(([s, st]) => {
    const v = document.querySelector('attention-visualizer');
    v.state = { ...s, view: { step: st } };
  }, [state, step]);
  await page.waitForFunction((st) => {
    const v = document.querySelector('attention-visualizer');
    const root = v.shadowRoot;
    return !v.computing && root.querySelector(`.step[data-step="${st}"]`) && !root.querySelector('[data-painting]');
  }, step);
}

// Each cell's colour as the page shows it: [[rgb or 'masked'-with-rgbs]] of the matrix `name`.
function readColors(page, name) {
  return page.evaluate((m) => {
    const root = document.querySelector('attention-visualizer').shadowRoot;
    const table = root.querySelector(`table[data-matrix="${m}"]`);
    const rgbs = (text) => [...text.matchAll(/rgba?\((\d+), (\d+), (\d+)/g)].map((x) => [Number(x[1]), Number(x[2]), Number(x[3])]);
    if (table) {
      return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-c]')].map((td) => {
        const style = getComputedStyle(td);
        return td.classList.contains('masked') ? { masked: true, rgbs: rgbs(style.backgroundImage) } : { rgb: rgbs(style.backgroundColor)[0], text: rgbs(style.color)[0] };
      }));
    }
    const canvas = root.querySelector(`canvas[data-matrix="${m}"]`);
    const rows = Number(/(\d+) × (\d+)/.exec(canvas.getAttribute('aria-label'))[1]);
    const cols = Number(/(\d+) × (\d+)/.exec(canvas.getAttribute('aria-label'))[2]);
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const at = (px, py) => {
      const i = (py * canvas.width + px) * 4;
      return [pixels[i], pixels[i + 1], pixels[i + 2]];
    };
    const cw = canvas.width / cols;
    const ch = canvas.height / rows;
    return Array.from({ length: rows }, (_, r) => Array.from({ length: cols }, (__, c) => {
      // the cell's middle and four points around it: one colour unless hatched (masked)
      const points = [[0.5, 0.5], [0.2, 0.2], [0.8, 0.2], [0.2, 0.8], [0.8, 0.8]].map(([fx, fy]) => at(Math.floor((c + fx) * cw), Math.floor((r + fy) * ch)));
      const same = points.every((p) => p.every((v, k) => v === points[0][k]));
      return { rgb: points[0], rgbs: points, uniform: same, canvas: true };
    }));
  }, name);
}

// grey, or the dark theme's slate grey (#2c333e, #454e5c): no colour of either map comes this close to it
// WCAG contrast ratio of two sRGB colours.
function contrast(a, b) {
  const lum = (rgb) => rgb.map((v) => v / 255).map((s) => (s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4)).reduce((sum, v, k) => sum + [0.2126, 0.7152, 0.0722][k] * v, 0);
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

const isGrey = ([r, g, b]) => Math.max(r, g, b) - Math.min(r, g, b) <= 24;

function checkColors(colors, values, masked, kind, label) {
  const stops = kind === 'weights' ? VIRIDIS_STOPS : DIVERGING_STOPS;
  const largest = Math.max(...values.flat().filter(Number.isFinite).map(Math.abs));
  assert.equal(colors.length, values.length, `${label}: rows`);
  const placed = [];
  colors.forEach((row, r) => row.forEach((cell, c) => {
    const v = values[r][c];
    const where = `${label}[${r}][${c}] = ${v}`;
    if (masked && masked[r][c]) {
      assert.ok(cell.rgbs.length > 0 && cell.rgbs.every(isGrey), `${where}: a masked cell is grey, not ${JSON.stringify(cell.rgbs)}`);
      return;
    }
    assert.ok(!cell.masked, `${where}: not drawn masked`);
    if (cell.canvas) assert.ok(cell.uniform, `${where}: one colour`);
    if (cell.text) assert.ok(contrast(cell.text, cell.rgb) >= 4.5, `${where}: its number (${cell.text}) readable on ${cell.rgb}`);
    const { t, distance } = alongMap(cell.rgb, stops);
    assert.ok(distance <= 4, `${where}: ${cell.rgb} is on the ${kind} colour map`);
    const want = kind === 'weights' ? v : (v / largest + 1) / 2;
    assert.ok(Math.abs(t - want) <= 0.02, `${where}: painted at ${t.toFixed(3)} of the map, expected ${want.toFixed(3)}`);
    if (kind !== 'weights' && Math.abs(v) > 0.02 * largest) assert.equal(t > 0.5, v > 0, `${where}: the side of its sign`);
    placed.push([v, t]);
  }));
  // order: a larger value is never before a smaller one by more than the table's rounding
  placed.sort((a, b) => a[0] - b[0]);
  for (let i = 1; i < placed.length; i++) assert.ok(placed[i][1] >= placed[i - 1][1] - 0.002, `${label}: ${placed[i - 1][0]} < ${placed[i][0]} but painted further along`);
}

for (const scheme of ['light', 'dark']) {
  test(`colours (${scheme}): table cells at n = 6 and canvas heatmaps at n = 30 follow the values, masked cells grey`, async () => {
    const context = await local.browser.newContext({ locale: 'en-US', colorScheme: scheme });
    try {
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(local.at('embed.html'));
      await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
      for (const n of [6, 30]) {
        const state = stateOf(n);
        const want = expected(state);
        await show(page, state, 'scores');
        const scores = await readColors(page, 'Scores');
        assert.equal(Boolean(scores[0][0].canvas), n > 24, `n = ${n}: ${n > 24 ? 'a canvas' : 'a table'}`);
        checkColors(scores, want.Scores, null, 'signed', `n = ${n} Scores`);
        await show(page, state, 'softmax');
        checkColors(await readColors(page, 'Scaled'), want.Scaled, want.masked, 'signed', `n = ${n} Scaled`);
        checkColors(await readColors(page, 'Weights'), want.Weights, want.masked, 'weights', `n = ${n} Weights`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
