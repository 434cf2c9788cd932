// What the SVG exports draw, read back from the SVG and compared with numpy's
// weights (tests/make_see_fixtures.py → tests/fixtures/see_cases.json) on the
// masked, multi-head and cross-attention cases: the lines view's every line
// joins query i's label to key j's label, as opaque and as thick as weight
// (i, j); the heatmap's cells are coloured in the order of their values
// (further along viridis for a larger weight; signed: blue below 0, red above,
// deeper for a larger magnitude) and masked cells are grey.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { heatmapSvg, linesSvg, toCsv, toJson, toLatex, toMarkdown } from '../../web/src/io/export.js';
import { VIRIDIS_STOPS, DIVERGING_STOPS } from '../../web/src/ui/color.js';
import { alongMap } from './see-colors.mjs';

const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
const inf = (m) => m.map((row) => row.map((v) => (v === null ? -Infinity : v)));
const attrs = (tag) => Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
const texts = (svg) => [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map((m) => ({ ...attrs(m[1]), text: m[2] }));

test('lines SVG: each line goes from its query to its key, as opaque and as thick as numpy\'s weight', () => {
  for (const [name, head] of [['masked', 0], ['multi', 1], ['cross', 0], ['long', 0]]) {
    const k = CASES[name];
    const weights = k.result.heads[head].weights;
    const svg = linesSvg({ title: 'Lines', tokens: k.tokens, keyTokens: k.keyTokens, weights });
    const labels = texts(svg);
    // query labels end at the left of the lines, key labels start at their right
    const queryLabels = labels.filter((t) => t['text-anchor'] === 'end');
    const keyLabels = labels.filter((t) => t['text-anchor'] === undefined && t.text !== 'Lines');
    assert.deepEqual(queryLabels.map((t) => t.text), k.tokens, `${name}: the query labels`);
    assert.deepEqual(keyLabels.map((t) => t.text), k.keyTokens, `${name}: the key labels`);
    const nearest = (list, y) => list.reduce((best, t, i) => (Math.abs(Number(t.y) - y) < Math.abs(Number(list[best].y) - y) ? i : best), 0);
    const lines = [...svg.matchAll(/<line ([^>]*)\/>/g)].map((m) => attrs(m[1]));
    assert.equal(lines.length, k.tokens.length * k.keyTokens.length, `${name}: one line per weight`);
    const seen = new Set();
    const widthOf = [];
    for (const line of lines) {
      const [x1, y1, x2, y2] = ['x1', 'y1', 'x2', 'y2'].map((a) => Number(line[a]));
      assert.ok(x1 <= Math.min(...keyLabels.map((t) => Number(t.x))) && x1 >= Math.max(...queryLabels.map((t) => Number(t.x))), `${name}: starts right of the queries`);
      assert.ok(x2 > x1 && x2 <= Math.min(...keyLabels.map((t) => Number(t.x))), `${name}: ends left of the keys`);
      const i = nearest(queryLabels, y1);
      const j = nearest(keyLabels, y2);
      // the line's ends are at the labels' heights (a label's baseline sits a little under the middle of its row)
      assert.ok(Math.abs(Number(queryLabels[i].y) - y1) < 8 && Math.abs(Number(keyLabels[j].y) - y2) < 8, `${name}: line (${y1} → ${y2}) at its labels`);
      assert.ok(!seen.has(`${i},${j}`), `${name}: one line for query ${i}, key ${j}`);
      seen.add(`${i},${j}`);
      const w = weights[i][j];
      assert.ok(Math.abs(Number(line['stroke-opacity']) - w) <= 5e-5, `${name}: line ${k.tokens[i]} → ${k.keyTokens[j]} opacity ${line['stroke-opacity']}, weight ${w}`);
      widthOf.push([w, Number(line['stroke-width'])]);
      if (w === 0) assert.equal(Number(line['stroke-opacity']), 0, `${name}: a masked weight's line is not seen`);
    }
    // thicker for a larger weight: the widths are in the weights' order, and differ where the weights differ by more than their rounding
    widthOf.sort((a, b) => a[0] - b[0]);
    for (let n = 1; n < widthOf.length; n++) {
      assert.ok(widthOf[n][1] >= widthOf[n - 1][1], `${name}: a larger weight is not drawn thinner`);
      if (widthOf[n][0] - widthOf[n - 1][0] > 0.01) assert.ok(widthOf[n][1] > widthOf[n - 1][1], `${name}: weights ${widthOf[n - 1][0]} < ${widthOf[n][0]} drawn as thick`);
    }
  }
});

// The heatmap SVG's cells, in document order: [{fill, text}] with their rgb.
function heatmapCells(svg) {
  const cells = [...svg.matchAll(/<rect x="[^"]*" y="[^"]*" width="[^"]*" height="[^"]*" fill="rgb\((\d+), (\d+), (\d+)\)"[^>]*\/>\n<text [^>]*>([^<]*)<\/text>/g)];
  return cells.map((m) => ({ rgb: [Number(m[1]), Number(m[2]), Number(m[3])], text: m[4] }));
}

test('heatmap SVG: weights further along viridis for larger values, signed matrices by sign and magnitude, masked cells grey', () => {
  for (const [name, head] of [['masked', 0], ['multi', 0], ['cross', 0]]) {
    const k = CASES[name];
    const h = k.result.heads[head];
    const masked = k.result.masked;
    for (const [kind, data, stops] of [['weights', h.weights, VIRIDIS_STOPS], ['signed', inf(h.scaled), DIVERGING_STOPS], ['signed', h.output, DIVERGING_STOPS]]) {
      const isMasked = kind === 'weights' || data === h.output ? null : masked;
      const svg = heatmapSvg({ title: 'M', data, rowLabels: k.tokens, colLabels: data[0].map((_, c) => `c${c}`), kind, masked: kind === 'weights' ? masked : isMasked, decimals: 3 });
      const cells = heatmapCells(svg);
      assert.equal(cells.length, data.length * data[0].length, `${name} ${kind}: one cell per value`);
      const flat = data.flat();
      const maskFlat = (kind === 'weights' ? masked : isMasked)?.flat() || flat.map(() => false);
      const largest = Math.max(...flat.filter(Number.isFinite).map(Math.abs));
      const placed = cells.map((cell, i) => ({ v: flat[i], masked: maskFlat[i], ...cell, at: maskFlat[i] ? null : alongMap(cell.rgb, stops) }));
      for (const p of placed) {
        if (p.masked) {
          const [r, g, b] = p.rgb;
          assert.ok(Math.max(r, g, b) - Math.min(r, g, b) <= 12, `${name} ${kind}: a masked cell is grey: ${p.rgb}`);
          continue;
        }
        assert.ok(p.at.distance <= 3, `${name} ${kind}: ${p.rgb} is a colour of the map`);
        // where along the map: weights 0 → 1; signed −largest → +largest
        const expected = kind === 'weights' ? p.v : (p.v / largest + 1) / 2;
        assert.ok(Math.abs(p.at.t - expected) <= 0.02, `${name} ${kind}: value ${p.v} painted at ${p.at.t.toFixed(3)} of the map, expected ${expected.toFixed(3)}`);
      }
    }
  }
});

test('CSV, JSON, LaTeX and Markdown of numpy\'s cross-attention weights and multi-head output read back as the same numbers', () => {
  for (const data of [CASES.cross.result.heads[0].weights, CASES.multi.result.output, inf(CASES.masked.result.heads[0].scaled)]) {
    const csv = toCsv(data).trim().split('\n').map((row) => row.split(',').map((v) => (v === '-inf' ? -Infinity : Number(v))));
    assert.deepEqual(csv, data, 'CSV: every number exactly');
    assert.deepEqual(JSON.parse(toJson(data)), data.map((row) => row.map((v) => (Number.isFinite(v) ? v : null))), 'JSON: every number exactly');
    const tex = toLatex(data, 4).split('\n').slice(1, -2).map((row) => row.replace(/\\\\$/, '').split('&').map((v) => v.trim()));
    assert.deepEqual(tex.map((row) => row.map((v) => (v === '-\\infty' ? -Infinity : Number(v)))),
      data.map((row) => row.map((v) => (Number.isFinite(v) ? Number(v.toFixed(4)) : v))), 'LaTeX: the numbers at 4 decimals');
    const md = toMarkdown(data, { rowLabels: data.map((_, r) => `r${r}`), colLabels: data[0].map((_, c) => `c${c}`) }, 4).trim().split('\n').slice(2);
    assert.deepEqual(md.map((row) => row.split('|').slice(2, -1).map((v) => (v.trim() === '−∞' ? -Infinity : Number(v)))),
      data.map((row) => row.map((v) => (Number.isFinite(v) ? Number(v.toFixed(4)) : v))), 'Markdown: the numbers at 4 decimals');
  }
});
