// What the element's export buttons save, for the multi-head (PE, W_O, the
// second head in view), cross-attention (padding) and masked (causal and
// padding, a query with no key) states of tests/fixtures/see_cases.json,
// compared with numpy's matrices (tests/make_see_fixtures.py): every matrix
// the panel offers as CSV (every number to 1e-12; −∞ where masked), one as
// JSON, LaTeX and Markdown (at the state's decimals), and the lines view's
// SVG: each line from its query's label to its key's, as opaque as numpy's
// weight of the head in view.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { browserAndServer } from './local.mjs';
import { trackDownloads, downloaded } from './downloads.mjs';

const local = browserAndServer(path.resolve('dist'));
const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_cases.json', import.meta.url), 'utf8'));
const inf = (m) => m && m.map((row) => row.map((v) => (v === null ? -Infinity : v)));

function stateOf(k, head) {
  return {
    version: 1, tokens: k.tokens, x: k.x, heads: k.heads, ...(k.wo ? { wo: k.wo } : {}),
    ...(k.c ? { context: { tokens: k.keyTokens, x: k.c } } : {}),
    causal: k.options.causal, keyPadding: k.options.keyPadding, scaleBySqrtDk: k.options.scaleBySqrtDk,
    temperature: k.options.temperature, positionalEncoding: k.options.positionalEncoding,
    view: { step: 'softmax', head, lang: 'en', decimals: 3 },
  };
}

// The panel's matrix names → numpy's matrix, for the head in view: every matrix of its
// steps (views/catalog.js), the positional encoding too.
function numpyMatrices(k, head) {
  const h = k.result.heads[head];
  const many = k.options.heads > 1 || k.options.usesWo;
  return {
    X: k.x, ...(k.c ? { C: k.c } : {}), ...(k.options.positionalEncoding ? { PE: k.result.pe, 'X+PE': k.result.xWithPe } : {}),
    W_Q: k.heads[head].wq, W_K: k.heads[head].wk, W_V: k.heads[head].wv,
    Q: h.q, K: h.k, V: h.v, Scores: h.scores, Scaled: inf(h.scaled), Weights: h.weights,
    [many ? `head_${head + 1}` : 'Output']: h.output,
    ...(k.options.heads > 1 ? { Concat: k.result.concat } : {}),
    ...(k.options.usesWo ? { W_O: k.wo, Output: k.result.output } : {}),
  };
}

function assertClose(actual, expected, label) {
  const scale = Math.max(1, ...expected.flat().filter(Number.isFinite).map(Math.abs));
  assert.equal(actual.length, expected.length, `${label}: rows`);
  actual.forEach((row, r) => {
    assert.equal(row.length, expected[r].length, `${label}: row ${r}`);
    row.forEach((v, c) => {
      const e = expected[r][c];
      if (!Number.isFinite(e)) assert.equal(v, e, `${label}[${r}][${c}]`);
      else assert.ok(Math.abs(v - e) <= 1e-12 * scale, `${label}[${r}][${c}] = ${v}, numpy ${e}`);
    });
  });
}

const csvCells = (text) => text.trimEnd().split('\n').map((line) => line.split(',').map((cell) => (cell === '-inf' ? -Infinity : Number(cell))));
const at3 = (m) => m.map((row) => row.map((v) => (Number.isFinite(v) ? Number(v.toFixed(3)) : v)));

for (const [name, head] of [['multi', 1], ['cross', 0], ['masked', 0]]) {
  test(`exports of the ${name} state (head ${head + 1} in view): every matrix as CSV, JSON, LaTeX, Markdown and the lines SVG, as numpy computes them`, async () => {
    const context = await local.browser.newContext({ locale: 'en-US', acceptDownloads: true });
    await trackDownloads(context);
    try {
      const page = await context.newPage();
      const problems = [];
      page.on('pageerror', (error) => problems.push(error.message));
      await page.goto(local.at('embed.html?lang=en'));
      await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
      const k = CASES[name];
      await page.evaluate((s) => { document.querySelector('attention-visualizer').state = s; }, stateOf(k, head));
      await page.waitForFunction(() => !document.querySelector('attention-visualizer').computing);
      await page.evaluate(() => { document.querySelector('attention-visualizer').shadowRoot.querySelector('details.av-tools').open = true; });
      const tools = page.locator('attention-visualizer .av-tools');
      const expected = numpyMatrices(k, head);
      const offered = await tools.locator('select[aria-label="Matrix"] option').evaluateAll((options) => options.map((o) => o.value));
      assert.deepEqual([...offered].sort(), Object.keys(expected).sort(), `${name}: the matrices offered`);
      const save = async (matrix, format) => {
        await tools.locator('select[aria-label="Matrix"]').selectOption(matrix);
        await tools.locator('select[aria-label="Format"]').selectOption(format);
        return (await downloaded(page, () => tools.getByRole('button', { name: 'Download', exact: true }).click())).bytes.toString('utf8');
      };
      for (const matrix of offered) assertClose(csvCells(await save(matrix, 'csv')), expected[matrix], `${name} ${matrix}.csv`);
      const weights = expected.Weights;
      assertClose(JSON.parse(await save('Weights', 'json')), weights, `${name} Weights.json`);
      const scaledJson = JSON.parse(await save('Scaled', 'json'));
      assertClose(scaledJson.map((row) => row.map((v) => (v === null ? -Infinity : v))), expected.Scaled, `${name} Scaled.json (null where masked)`);
      const tex = (await save('Scaled', 'latex')).split('\n').slice(1, -2).map((row) => row.replace(/\\\\$/, '').split('&').map((v) => (v.trim() === '-\\infty' ? -Infinity : Number(v))));
      assert.deepEqual(tex, at3(expected.Scaled), `${name} Scaled.tex at 3 decimals`);
      const md = (await save('Weights', 'markdown')).trim().split('\n').slice(2).map((row) => row.split('|').slice(2, -1).map(Number));
      assert.deepEqual(md, at3(weights), `${name} Weights.md at 3 decimals`);

      // the lines SVG: each line's ends at its query's and key's labels, its opacity the weight
      const svg = (await downloaded(page, () => tools.getByRole('button', { name: 'Lines view SVG', exact: true }).click())).bytes.toString('utf8');
      const attrs = (tag) => Object.fromEntries([...tag.matchAll(/([\w-]+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
      const texts = [...svg.matchAll(/<text ([^>]*)>([^<]*)<\/text>/g)].map((m) => ({ ...attrs(m[1]), text: m[2] }));
      const queries = texts.filter((t) => t['text-anchor'] === 'end');
      const keys = texts.filter((t) => !t['text-anchor'] && !t['font-size']);
      assert.deepEqual(queries.map((t) => t.text), k.tokens);
      assert.deepEqual(keys.map((t) => t.text), k.keyTokens);
      const lines = [...svg.matchAll(/<line ([^>]*)\/>/g)].map((m) => attrs(m[1]));
      assert.equal(lines.length, k.tokens.length * k.keyTokens.length);
      const nearest = (list, y) => list.reduce((best, t, i) => (Math.abs(Number(t.y) - y) < Math.abs(Number(list[best].y) - y) ? i : best), 0);
      const seen = new Set();
      for (const line of lines) {
        const i = nearest(queries, Number(line.y1));
        const j = nearest(keys, Number(line.y2));
        assert.ok(Math.abs(Number(queries[i].y) - Number(line.y1)) < 8 && Math.abs(Number(keys[j].y) - Number(line.y2)) < 8, `${name}: a line at its labels`);
        assert.ok(!seen.has(`${i},${j}`));
        seen.add(`${i},${j}`);
        assert.ok(Math.abs(Number(line['stroke-opacity']) - weights[i][j]) <= 5e-5, `${name} lines SVG ${k.tokens[i]} → ${k.keyTokens[j]}: ${line['stroke-opacity']}, numpy ${weights[i][j]}`);
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
