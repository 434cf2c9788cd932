// Browser tests of the built page (dist/), opened from file:// and over http
// from a localhost server: worked example, live recomputation, input errors,
// language switch, no console errors, no request leaving the page's origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.mjs';

const DIST = path.resolve('dist');
const FILE_URL = pathToFileURL(path.join(DIST, 'index.html')).href;

// REFERENCE.md: what the tutorial's numpy code really computes.
const REFERENCE = {
  Q: [[0.5, 0.2], [0.3, 0.4], [0.1, 0.6]],
  K: [[0.4, 0.3], [0.30000000000000004, 0.5], [0.2, 0.7]],
  V: [[0.8, 0.1], [0.55, 0.5], [0.3, 0.9]],
  Scores: [[0.26, 0.25, 0.24], [0.24, 0.29000000000000004, 0.33999999999999997], [0.22, 0.33, 0.44]],
  Scaled: [[0.18384776310850234, 0.17677669529663687, 0.1697056274847714],
    [0.1697056274847714, 0.2050609665440988, 0.2404163056034261],
    [0.15556349186104046, 0.2333452377915607, 0.3111269837220809]],
  Weights: [[0.33569311403870217, 0.3333277778472214, 0.3309791081140764],
    [0.3216200976300485, 0.33319448783456673, 0.3451854145353847],
    [0.30776779723570424, 0.3326621264139182, 0.3595700763503775]],
  Output: [[0.5511785014811564, 0.4981143976301497],
    [0.544108670773666, 0.5094261267621345],
    [0.5370494302213317, 0.5207209116458693]],
};
const RESULT_NAMES = Object.keys(REFERENCE);

let browser;
let server;

before(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--disable-sync', '--no-first-run', '--disable-quic'],
  });
  server = await startServer({ root: DIST, port: 0 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// Opens the page and records console errors, page errors and every request.
async function openPage(url, { locale = 'en-US' } = {}) {
  const context = await browser.newContext({ locale });
  const page = await context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  context.on('request', (request) => requests.push(request.url()));
  await page.goto(url);
  await page.waitForSelector('#step-6 table');
  return { context, page, problems, requests };
}

// A matrix of the steps, by its caption name, read from the full values in
// the cells' title attributes (the row-sum column is left out).
function readMatrix(page, name) {
  return page.evaluate((wanted) => {
    const table = [...document.querySelectorAll('#steps table')]
      .find((t) => t.querySelector('.matrix-name').textContent === wanted);
    if (!table) return null;
    return [...table.querySelectorAll('tbody tr')]
      .map((tr) => [...tr.querySelectorAll('td:not(.sum)')].map((td) => Number(td.title)));
  }, name);
}

function readHeaders(page, name) {
  return page.evaluate((wanted) => {
    const table = [...document.querySelectorAll('#steps table')]
      .find((t) => t.querySelector('.matrix-name').textContent === wanted);
    return {
      rows: [...table.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...table.querySelectorAll('thead th.col-label:not(.sum)')].map((th) => th.textContent),
    };
  }, name);
}

function assertClose(actual, expected, label) {
  assert.ok(actual, `${label} is shown`);
  assert.equal(actual.length, expected.length, `${label} rows`);
  expected.forEach((row, i) => {
    assert.equal(actual[i].length, row.length, `${label} row ${i} length`);
    row.forEach((value, j) => {
      assert.ok(Math.abs(actual[i][j] - value) <= 1e-12, `${label}[${i}][${j}] = ${actual[i][j]}, expected ${value}`);
    });
  });
}

async function assertWorkedExample(page) {
  for (const name of RESULT_NAMES) assertClose(await readMatrix(page, name), REFERENCE[name], name);
  const firstOutput = await page.locator('#step-6 tbody td').first();
  assert.equal(await firstOutput.textContent(), '0.5512');
  // The full value is in the title (the engine may differ from numpy in the last bit).
  assert.ok(Math.abs(Number(await firstOutput.getAttribute('title')) - 0.5511785014811564) <= 1e-15);
  assert.match(await page.locator('#step-4 .step-note').textContent(), /d_k = 2.*1\.4142/);
  assert.deepEqual(await page.locator('#step-5 td.sum').allTextContents(), ['1.0000', '1.0000', '1.0000']);
  assert.deepEqual(await readHeaders(page, 'Scores'), { rows: ['我', '爱', '你'], cols: ['我', '爱', '你'] });
  assert.deepEqual(await readHeaders(page, 'Output'), { rows: ['我', '爱', '你'], cols: ['d1', 'd2'] });
}

// Plain-JS scaled dot-product attention, independent of the engine.
const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, v, k) => sum + v * b[k][j], 0)));
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
function attention({ x, wq, wk, wv }) {
  const Q = matmul(x, wq);
  const K = matmul(x, wk);
  const V = matmul(x, wv);
  const Scores = matmul(Q, transpose(K));
  const Scaled = Scores.map((row) => row.map((s) => s / Math.sqrt(wq[0].length)));
  const Weights = Scaled.map((row) => {
    const max = Math.max(...row);
    const e = row.map((s) => Math.exp(s - max));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
  return { Q, K, V, Scores, Scaled, Weights, Output: matmul(Weights, V) };
}

const toText = (matrix) => matrix.map((row) => row.join(' ')).join('\n');

for (const origin of ['file', 'http']) {
  test(`worked example, live edits and errors (${origin})`, async () => {
    const url = origin === 'file' ? FILE_URL : server.url;
    const { context, page, problems, requests } = await openPage(url);
    try {
      await assertWorkedExample(page);

      // Edit every input: a 4-word sentence, d_model 3, d_k 2, d_v 3.
      const inputs = {
        x: [[1, -0.5, 2], [0.25, 0, 1], [-1, 1.5, 0.5], [0.3, 0.3, -0.7]],
        wq: [[0.9, -0.2], [0.4, 1.1], [-0.3, 0.6]],
        wk: [[0.2, 0.8], [-0.7, 0.1], [0.5, 0.5]],
        wv: [[1, 0, 0.5], [0, 2, -1], [0.3, 0.3, 0.3]],
      };
      await page.fill('#sentence', 'the cat sat down');
      for (const field of ['x', 'wq', 'wk', 'wv']) {
        await page.fill(`#${field}`, field === 'x' ? inputs.x.map((r) => r.join(', ')).join('\n') : toText(inputs[field]));
      }
      const expected = attention(inputs);
      assertClose(await readMatrix(page, 'X'), inputs.x, 'X');
      for (const name of RESULT_NAMES) {
        const shown = await readMatrix(page, name);
        assertClose(shown, expected[name], name);
        assert.notDeepEqual(shown, REFERENCE[name], `${name} changed`);
      }
      assert.deepEqual(await readHeaders(page, 'Weights'), {
        rows: ['the', 'cat', 'sat', 'down'], cols: ['the', 'cat', 'sat', 'down'],
      });
      assert.deepEqual(await readHeaders(page, 'V'), { rows: ['the', 'cat', 'sat', 'down'], cols: ['d1', 'd2', 'd3'] });
      assert.equal(await page.locator('.status-stale').count(), 0);

      // Back to the tutorial, then break one field at a time: the message sits
      // next to that field, the field is aria-invalid, the text stays as typed
      // and the last good result stays, marked as stale.
      await page.click('#restore');
      await assertWorkedExample(page);
      const cases = [
        ['x', '1 0\n0.5 abc\n0 1', /Row 2 \(爱\), column 2: “abc” is not a number/],
        ['x', '1 0\n1..2 0.5\n0 1', /Row 2 \(爱\), column 1: “1\.\.2” is not a number/],
        ['x', '1 0\n0.5 0.5\nNaN 1', /Row 3 \(你\), column 1: “NaN” is not a finite number/],
        ['wq', '0.5 Infinity\n0.1 0.6', /Row 1, column 2: “Infinity” is not a finite number/],
        ['x', '1 0\n0.5 0.5 0.5\n0 1', /Row 2 \(爱\) has 3 numbers, but row 1 has 2/],
        ['x', '1 0\n0.5 0.5', /X has 2 rows but the sentence has 3 tokens/],
        ['wq', '0.5 0.2\n0.1 0.6\n1 1', /W_Q has 3 rows; it needs 2/],
        ['wk', '0.4 0.3 1\n0.2 0.7 1', /W_K is 2 × 3; it must have the same shape as W_Q \(2 × 2\)/],
        ['wv', '0.8 0.1', /W_V has 1 row; it needs 2/],
        ['sentence', '   ', /no tokens/],
      ];
      for (const [field, text, message] of cases) {
        await page.fill(`#${field}`, text);
        assert.match(await page.locator(`#${field}-error`).textContent(), message, `${field}: ${JSON.stringify(text)}`);
        assert.equal(await page.getAttribute(`#${field}`, 'aria-invalid'), 'true');
        assert.equal(await page.inputValue(`#${field}`), text);
        assert.equal(await page.locator('.status-stale').count(), 1);
        assertClose(await readMatrix(page, 'Output'), REFERENCE.Output, 'Output (stale)');
        await page.click('#restore');
        assert.equal(await page.locator(`#${field}-error`).textContent(), '');
        assert.equal(await page.getAttribute(`#${field}`, 'aria-invalid'), null);
        assert.equal(await page.locator('.status-stale').count(), 0);
      }

      assert.deepEqual(problems, [], 'no console errors');
      const allowed = origin === 'file'
        ? (u) => u.startsWith('file:') || u.startsWith('data:')
        : (u) => u.startsWith(server.url) || u.startsWith('data:');
      assert.deepEqual(requests.filter((u) => !allowed(u)), [], 'no request outside the page’s origin');
      assert.ok(requests.some((u) => u.endsWith('attention-engine.js')), 'the engine was loaded');
    } finally {
      await context.close();
    }
  });
}

test('language: detected from the browser and switchable', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { locale: 'zh-CN' });
  try {
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    assert.equal(await page.title(), '自注意力逐步可视化');
    assert.equal(await page.textContent('h1'), '自注意力，一步一步算');
    assert.equal(await page.textContent('#step-5 .step-title'), '注意力权重');

    await page.fill('#x', '1 0\n0.5 abc\n0 1');
    assert.match(await page.textContent('#x-error'), /第 2 行（爱）第 2 列：“abc”不是数字/);
    assert.match(await page.textContent('.status-stale'), /上一次有效的结果/);

    await page.click('#lang-toggle');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.title(), 'Self-attention, step by step');
    assert.equal(await page.textContent('#step-5 .step-title'), 'Attention weights');
    assert.match(await page.textContent('#x-error'), /Row 2 \(爱\), column 2: “abc” is not a number/);
    assert.match(await page.textContent('.status-stale'), /last valid result/);
    assert.equal(await page.getAttribute('#lang-toggle', 'aria-label'), 'Switch the page to Chinese');
    assert.equal(await page.inputValue('#x'), '1 0\n0.5 abc\n0 1');

    await page.click('#lang-toggle');
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    assert.equal(await page.getAttribute('#lang-toggle', 'aria-label'), '切换到英文界面');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('loading state while the engine loads, bilingual error when it fails', async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  try {
    // An engine that stays loading until the test makes it fail.
    await context.route('**/attention-engine.js', (route) => route.fulfill({
      contentType: 'text/javascript',
      body: 'globalThis.createAttentionEngine = () => new Promise((resolve, reject) => {'
        + ' globalThis.failEngine = () => reject(new Error("test failure")); });',
    }));
    const page = await context.newPage();
    await page.goto(server.url);
    assert.match(await page.textContent('.status-loading'), /Loading the attention engine/);
    await page.evaluate(() => globalThis.failEngine());
    await page.waitForSelector('.status-error');
    assert.match(await page.textContent('.status-error'), /could not be loaded \(test failure\)/);
    await page.click('#lang-toggle');
    assert.match(await page.textContent('.status-error'), /引擎加载失败（test failure）/);
    assert.equal(await page.locator('#steps table').count(), 0);

    // No engine script at all.
    await context.unroute('**/attention-engine.js');
    await context.route('**/attention-engine.js', (route) => route.abort());
    await page.reload();
    await page.waitForSelector('.status-error');
    assert.match(await page.textContent('.status-error'), /could not be loaded \(attention-engine\.js did not load\)/);
  } finally {
    await context.close();
  }
});
