// Browser tests of the page with large inputs (issue 7): n = 512 and n = 4096 tokens,
// d = 64. Values are checked against plain JS here, never against the engine; how fast the
// page is belongs to `npm run bench`, not to these tests. One browser; each test on a fresh
// page, so that any test runs alone.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';
import { attention } from './reference.mjs';

const FILE_URL = `${pathToFileURL(path.resolve('dist/index.html')).href}?example=tutorial`;
const D = 64;

let browser;
let page;
let problems;

before(async () => {
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
});

// The page in a new context (prepared by `prepare(context)` if given), recording errors.
async function openPage(prepare) {
  const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  if (prepare) await prepare(context);
  page = await context.newPage();
  page.setDefaultTimeout(30000);
  problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(FILE_URL);
  await waitForSteps(page);
  await openEditor(page);
}

beforeEach(() => openPage());

afterEach(async () => {
  await page.context().close();
});

const renderCount = () => page.evaluate(() => Number(document.documentElement.dataset.renderCount));
const sentenceOf = (n, from = 0) => Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + from + i)).join('');

// n tokens, d = 64, random inputs with a seed; waits for the render.
async function setUp(n, seed) {
  for (const dim of ['dModel', 'dk', 'dv']) await page.fill(`#dim-${dim}`, String(D));
  await page.fill('#sentence', sentenceOf(n));
  await page.fill('#seed', String(seed));
  const before = await renderCount();
  await page.click('#fill-random');
  await page.waitForFunction((count) => document.getElementById('token-count').textContent === `${count} tokens`, n);
  await rendered(before);
}

// Until a full render after `before` with nothing still computing in the background, and every
// heatmap painted (large ones are painted in slices, each canvas data-painting meanwhile).
const rendered = (before) => page.waitForFunction(
  (count) => Number(document.documentElement.dataset.renderCount) > count && !document.documentElement.hasAttribute('data-computing')
    && document.querySelector('canvas[data-painting]') === null,
  before,
);

// A matrix's text box (opened; large ones are filled when opened), read as numbers.
async function readText(id) {
  await page.evaluate((wanted) => {
    const details = document.querySelector(`#editor-${wanted} details`);
    if (!details.open) details.querySelector('summary').click();
  }, id);
  await page.waitForFunction((wanted) => document.getElementById(`${wanted}-text`).value !== '', id);
  return page.evaluate((wanted) => document.getElementById(`${wanted}-text`).value.split('\n').map((line) => line.trim().split(/ +/).map(Number)), id);
}

// Plain-JS attention for a few (query, key) cells and output cells.
function expected(x, { wq, wk, wv }, cells) {
  const project = (row, w) => w[0].map((_, j) => row.reduce((sum, v, k) => sum + v * w[k][j], 0));
  const K = x.map((row) => project(row, wk));
  const V = x.map((row) => project(row, wv));
  const dk = wq[0].length;
  return cells.map(([i, j, c]) => {
    const q = project(x[i], wq);
    const scaled = K.map((k) => q.reduce((sum, v, t) => sum + v * k[t], 0) / Math.sqrt(dk));
    const max = Math.max(...scaled);
    const e = scaled.map((s) => Math.exp(s - max));
    const total = e.reduce((a, b) => a + b, 0);
    const weights = e.map((v) => v / total);
    return { weight: weights[j], output: weights.reduce((sum, w, t) => sum + w * V[t][c], 0) };
  });
}

// The heatmap's readout for cell (r, c) of a canvas matrix, pointed at with the mouse:
// {label: 'Weights[一, 丁]', value}.
async function pointAt(step, name, r, c) {
  const view = page.locator(`#step-${step} .matrix-canvas[data-matrix="${name}"]`);
  const point = await view.evaluate((node, [row, col]) => {
    const [rows, cols] = node.querySelector('.matrix-shape').textContent.split(' × ').map(Number);
    const canvas = node.querySelector('canvas');
    const at = () => {
      const rect = canvas.getBoundingClientRect();
      return { x: rect.left + ((col + 0.5) / cols) * rect.width, y: rect.top + ((row + 0.5) / rows) * rect.height };
    };
    window.scrollBy(0, at().y - window.innerHeight / 2);
    return at();
  }, [r, c]);
  await page.mouse.move(point.x, point.y);
  // a cell is about a pixel: from the cell pointed at, the arrow keys reach the exact one
  const readout = view.locator('.heat-readout');
  const [, rowLabel, colLabel] = /\[(.+), (.+)\]/.exec(await readout.textContent());
  const pointed = [rowLabel.codePointAt(0) - 0x4e00, colLabel.startsWith('d') ? Number(colLabel.slice(1)) - 1 : colLabel.codePointAt(0) - 0x4e00];
  await view.locator('.heat-box').focus();
  for (let i = pointed[0]; i !== r; i += Math.sign(r - i)) await page.keyboard.press(r > i ? 'ArrowDown' : 'ArrowUp');
  for (let j = pointed[1]; j !== c; j += Math.sign(c - j)) await page.keyboard.press(c > j ? 'ArrowRight' : 'ArrowLeft');
  const [label, value] = (await readout.textContent()).split(' = ');
  return { label, value: Number(value) };
}

const token = (i) => String.fromCodePoint(0x4e00 + i);
const close = (actual, wanted) => Math.abs(actual - wanted) <= 1e-12 * Math.max(1, Math.abs(wanted));

test('n = 512: an edit of X updates every step, values as plain JS computes them', async () => {
  await setUp(512, 5);
  await openStep(page, 5);
  const weights = { wq: await readText('wq'), wk: await readText('wk'), wv: await readText('wv') };
  await readText('x');
  for (const value of ['0.75', '-1.5']) {
    const before = await renderCount();
    await page.evaluate((v) => {
      const area = document.getElementById('x-text');
      area.value = area.value.replace(/^ *[^ \n]+/, v);
      area.dispatchEvent(new Event('input'));
      area.closest('details').querySelector('button.apply').click();
    }, value);
    assert.equal(await renderCount(), before + 1, 'one full render');
    const x = await readText('x');
    assert.equal(x.length, 512);
    assert.equal(x[0][0], Number(value));
    const cells = [[0, 0, 0], [0, 3, 5], [7, 0, 63], [511, 510, 1]];
    const want = expected(x, weights, cells);
    for (const [k, [i, j]] of cells.entries()) {
      const { label, value: weight } = await pointAt(5, 'Weights', i, j);
      assert.equal(label, `Weights[${token(i)}, ${token(j)}]`);
      assert.ok(close(weight, want[k].weight), `${label} = ${weight}, expected ${want[k].weight}`);
    }
    await openStep(page, 6);
    for (const [k, [i, , c]] of cells.entries()) {
      const { label, value: output } = await pointAt(6, 'Output', i, c);
      assert.equal(label, `Output[${token(i)}, d${c + 1}]`);
      assert.ok(close(output, want[k].output), `${label} = ${output}, expected ${want[k].output}`);
    }
    await openStep(page, 5);
  }
  assert.deepEqual(problems, []);
});

test('n = 512: a burst of 20 keystrokes is far fewer recomputes, and the last state is shown', async () => {
  await setUp(512, 5);
  await page.click('#overview');
  // 20 input events in one task, as keys queue while a recompute runs: one recompute
  const before = await renderCount();
  await page.evaluate((extra) => {
    const input = document.getElementById('sentence');
    for (const ch of extra) {
      input.value += ch;
      input.dispatchEvent(new Event('input'));
    }
  }, sentenceOf(20, 600));
  await page.waitForFunction(() => document.getElementById('token-count').textContent === '532 tokens');
  assert.equal(await renderCount(), before + 1, 'one recompute for 20 keystrokes');
  // real keystrokes: every one shown in the end, with no more recomputes than keys
  const typed = await renderCount();
  await page.focus('#sentence');
  await page.keyboard.press('End');
  for (let i = 0; i < 20; i++) await page.keyboard.press('Backspace');
  await page.waitForFunction(() => document.getElementById('token-count').textContent === '512 tokens');
  // the recompute comes after the next paint (the element's `computing` until then), and steps
  // out of view are written after it (steps.js settleSteps)
  await page.waitForFunction(() => !document.querySelector('attention-visualizer').computing
    && document.querySelector('#steps [data-pending]') === null);
  assert.ok(await renderCount() - typed <= 20);
  assert.equal(await page.locator('#steps .matrix-canvas[data-matrix="Weights"] .matrix-shape').first().textContent(), '512 × 512');
  assert.equal(await page.locator('#token-list li.token').count(), 512);
  assert.deepEqual(problems, []);
});

// X's first value set to `value` in its text box, then Apply (a direct update).
const applyFirstX = (value) => page.evaluate((v) => {
  const area = document.getElementById('x-text');
  area.value = area.value.replace(/^ *[^ \n]+/, v);
  area.dispatchEvent(new Event('input'));
  area.closest('details').querySelector('button.apply').click();
  return document.documentElement.hasAttribute('data-computing');
}, value);

// Weights and outputs of a few cells, read off the heatmaps, against plain JS.
async function checkCells(n, x, weights) {
  const cells = [[0, 0, 0], [0, 3, 5], [n - 1, n - 2, 1]];
  const want = expected(x, weights, cells);
  await openStep(page, 5);
  for (const [k, [i, j]] of cells.entries()) {
    const { label, value } = await pointAt(5, 'Weights', i, j);
    assert.ok(close(value, want[k].weight), `${label} = ${value}, expected ${want[k].weight}`);
  }
  await openStep(page, 6);
  const [i, , c] = cells[2];
  const { label, value } = await pointAt(6, 'Output', i, c);
  assert.ok(close(value, want[2].output), `${label} = ${value}, expected ${want[2].output}`);
}

test('startWorker(): the engine in a worker gives bit for bit the page engine\'s result and rejects bad input with the same Error', async () => {
  const out = await page.evaluate(async () => {
    const engine = await globalThis.createAttentionEngine();
    const worker = globalThis.createAttentionEngine.startWorker();
    const input = {
      x: [[1, 0, 2], [0, 1, -1], [1, 1, 0.5], [3, -2, 1]], wq: [[1, 0], [0, 1], [1, 1]], wk: [[0.5, 1], [1, 0], [0, 2]], wv: [[1, 2], [0, 1], [2, 0]],
      causal: true, keyPadding: [false, false, true, false], positionalEncoding: true,
    };
    const inPage = engine.compute(input, { typed: true });
    const inWorker = await worker.compute(input);
    const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const keys = Object.keys(inPage);
    const equal = keys.every((key) => (ArrayBuffer.isView(inPage[key]) ? same(inPage[key], inWorker[key]) : inPage[key].rows === inWorker[key].rows && same(inPage[key].data, inWorker[key].data)));
    const bad = { x: [[1, 2]], wq: [[1]], wk: [[1], [2]], wv: [[1], [2]] };
    const fields = (error) => ({ message: error.message, code: error.code, operand: error.operand, row: error.row, column: error.column, isError: error instanceof Error });
    let syncError;
    try {
      engine.compute(bad);
    } catch (error) {
      syncError = fields(error);
    }
    const workerError = await worker.compute(bad).then(() => null, fields);
    // inputs the worker's caller sends as typed rows, and others it sends as they are: the same Errors
    const heads = (wq) => ({ x: input.x, heads: [{ wq: input.wq, wk: input.wk, wv: input.wv }, { wq, wk: input.wk, wv: input.wv }] });
    const others = [
      { ...input, x: [[1, 0, 2], [0, 1, '2'], [1, 1, 0.5], [3, -2, 1]] },
      { ...input, x: [[1, 0, 2], [0, 1, NaN], [1, 1, 0.5], [3, -2, 1]] },
      { ...input, x: [[1, 0, 2], [0, 1], [1, 1, 0.5], [3, -2, 1]] },
      { ...input, x: [[1, 0, 2], null, [1, 1, 0.5], [3, -2, 1]] },
      { ...input, context: [[1, 2, 3], [4, Infinity, 6]] },
      heads([[1, 0], [0, 1], [1, 1, 7]]),
      heads([[1, 0], [0, 1], [1, undefined]]),
    ];
    const sameErrors = [];
    for (const other of others) {
      let expected = null;
      try {
        engine.compute(other);
      } catch (error) {
        expected = fields(error);
      }
      const got = await worker.compute(other).then(() => null, fields);
      sameErrors.push(expected !== null && JSON.stringify(got) === JSON.stringify(expected) ? true : [expected, got]);
    }
    const twoHeads = heads([[0.5, 1], [2, 0], [1, -1]]);
    const twoHeadsSame = same(engine.compute(twoHeads, { typed: true }).heads[1].weights.data, (await worker.compute(twoHeads)).heads[1].weights.data);
    const afterError = await worker.compute(input);
    worker.terminate();
    const stopped = await worker.compute(input).then(() => null, (error) => error.code);
    return { keys, equal, syncError, workerError, sameErrors, twoHeadsSame, recovered: same(afterError.weights.data, inPage.weights.data), stopped };
  });
  assert.deepEqual(out.sameErrors, out.sameErrors.map(() => true));
  assert.equal(out.twoHeadsSame, true);
  assert.deepEqual(out.keys.sort(), ['fullyMasked', 'k', 'masked', 'output', 'pe', 'q', 'scaled', 'scores', 'v', 'weights', 'xWithPe']);
  assert.equal(out.equal, true);
  assert.equal(out.workerError.code, 'shape');
  assert.deepEqual(out.workerError, out.syncError);
  assert.equal(out.recovered, true);
  assert.equal(out.stopped, 'worker');
});

test('worker.recycle(): a result given back is emptied, and the results written into its buffers are bit for bit the page engine\'s', async () => {
  const out = await page.evaluate(async () => {
    const engine = await globalThis.createAttentionEngine();
    const worker = globalThis.createAttentionEngine.startWorker();
    let seed = 7;
    const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const matrix = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, next));
    const input = (n) => ({ x: matrix(n, 8), wq: matrix(8, 4), wk: matrix(8, 4), wv: matrix(8, 4), causal: true });
    const heads = (n) => ({ x: matrix(n, 8), heads: [0, 1].map(() => ({ wq: matrix(8, 4), wk: matrix(8, 4), wv: matrix(8, 4) })), wo: matrix(8, 8), positionalEncoding: true });
    const same = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));
    const sameParts = (mine, theirs) => Object.keys(mine).every((key) => {
      if (key === 'heads') return mine.heads.every((head, h) => sameParts(head, theirs.heads[h]));
      if (ArrayBuffer.isView(mine[key])) return same(mine[key], theirs[key]);
      return mine[key].rows === theirs[key].rows && mine[key].cols === theirs[key].cols && same(mine[key].data, theirs[key].data);
    });
    const single = []; // one head's inputs and what the worker gave, for plain JS to check
    const check = async (made) => {
      const theirs = await worker.compute(made);
      if (!made.heads) single.push({ made, weights: Array.from(theirs.weights.data), output: Array.from(theirs.output.data) });
      return { result: theirs, same: sameParts(engine.compute(made, { typed: true }), theirs) };
    };
    const first = await check(input(40));
    const { weights, masked } = first.result;
    worker.recycle(first.result);
    const emptied = weights.data.length === 0 && masked.data.length === 0;
    worker.recycle(first.result); // given back already: nothing happens
    // a sentence one token shorter: its matrices are written at the start of the buffers given back
    const shorter = await check(input(39));
    const { data } = shorter.result.weights;
    const inGiven = data.buffer.byteLength === 40 * 40 * 8 && data.length === 39 * 39;
    // a result of the page's own engine is no buffer of the worker's: left alone
    const own = engine.compute(input(40), { typed: true });
    worker.recycle(own);
    const ownKept = own.weights.data.length === 1600;
    // half the size: nothing given back fits, fresh buffers
    worker.recycle(shorter.result);
    const half = await check(input(20));
    const fresh = half.result.weights.data.buffer.byteLength === 20 * 20 * 8;
    // two heads with W_O and positional encoding, twice: the second in the first's buffers
    const twoHeads = await check(heads(30));
    worker.recycle(twoHeads.result);
    const again = await check(heads(30));
    // buffers given back and not taken for five seconds are let go: the next result, which
    // would fit in them, is in fresh ones
    worker.recycle(again.result);
    const big = await check(input(40));
    worker.recycle(big.result);
    await new Promise((resolve) => { setTimeout(resolve, 5500); });
    const afterIdle = await check(input(39));
    const letGo = afterIdle.result.weights.data.buffer.byteLength === 39 * 39 * 8;
    worker.terminate();
    worker.recycle(afterIdle.result); // a stopped worker: nothing happens
    return {
      same: [first.same, shorter.same, half.same, twoHeads.same, again.same, big.same, afterIdle.same],
      emptied, inGiven, ownKept, fresh, letGo, reused: again.result.heads[1].weights.data.length === 0, single,
    };
  });
  // the one-head results, written into fresh and given-back buffers alike, against plain JS
  assert.equal(out.single.length, 5);
  for (const { made, weights, output } of out.single) {
    const want = attention(made, { causal: true });
    for (const [name, got, matrix] of [['Weights', weights, want.Weights], ['Output', output, want.Output]]) {
      const flat = matrix.flat();
      assert.equal(got.length, flat.length, `${name} of n = ${made.x.length}`);
      got.forEach((v, i) => assert.ok(Math.abs(v - flat[i]) <= 1e-12 * Math.max(1, Math.abs(flat[i])), `${name}[${i}] of n = ${made.x.length}: ${v}, expected ${flat[i]}`));
    }
  }
  assert.deepEqual(out.same, [true, true, true, true, true, true, true]);
  assert.deepEqual(out, { ...out, emptied: true, inGiven: true, ownKept: true, fresh: true, letGo: true, reused: true });
});

test('n = 1024: the engine runs in a worker; the page answers while it computes, and only the latest edit is shown', async () => {
  await setUp(1024, 3);
  const weights = { wq: await readText('wq'), wk: await readText('wk'), wv: await readText('wv') };
  await readText('x');
  // the messages to the worker: results the page no longer reads go back to it (worker.recycle)
  await page.evaluate(() => {
    window.sent = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function postMessage(message, transfer) {
      window.sent.push(message.method === 'recycle' ? message.args[0].map((buffer) => buffer.byteLength) : message.method);
      return post.call(this, message, transfer);
    };
  });
  const before = await renderCount();
  // two edits in one task: the second comes while the first is surely still computing
  const seen = await page.evaluate(() => {
    const apply = (v) => {
      const area = document.getElementById('x-text');
      area.value = area.value.replace(/^ *[^ \n]+/, v);
      area.dispatchEvent(new Event('input'));
      area.closest('details').querySelector('button.apply').click();
    };
    apply('0.5');
    const first = {
      computing: document.documentElement.hasAttribute('data-computing'),
      status: document.getElementById('status').textContent,
      stale: document.getElementById('steps').classList.contains('stale'),
    };
    apply('-0.25');
    return first;
  });
  assert.deepEqual(seen, { computing: true, status: 'Computing in the background; you can keep editing…', stale: true });
  await rendered(before);
  assert.equal(await renderCount(), before + 1, 'one render: the result of the first edit was dropped unseen');
  assert.equal(await page.textContent('#status'), '');
  const x = await readText('x');
  assert.equal(x[0][0], -0.25);
  await checkCells(1024, x, weights);
  // a third edit: computed into the buffers of setUp's result, which went back to the worker
  // once the edits' result was on screen; that result goes back once the third's is
  const third = await renderCount();
  assert.equal(await applyFirstX('0.75'), true, 'computed in the background');
  await rendered(third);
  const sent = await page.evaluate(() => window.sent);
  const big = (message) => Array.isArray(message) && message.filter((bytes) => bytes === 1024 * 1024 * 8).length === 3;
  assert.deepEqual(sent.map((message) => (big(message) ? 'recycle' : message)), ['compute', 'recycle', 'compute', 'recycle'], JSON.stringify(sent));
  await checkCells(1024, await readText('x'), weights);
  assert.deepEqual(problems, []);
});

test('n = 1024 where no worker can start: the page computes on its own thread, the same numbers', async () => {
  await page.context().close();
  await openPage((context) => context.addInitScript(() => { delete globalThis.Worker; }));
  await setUp(1024, 3);
  const weights = { wq: await readText('wq'), wk: await readText('wk'), wv: await readText('wv') };
  await readText('x');
  const before = await renderCount();
  assert.equal(await applyFirstX('0.5'), false, 'computed at once, not in the background');
  assert.equal(await renderCount(), before + 1);
  await checkCells(1024, await readText('x'), weights);
  assert.deepEqual(problems, []);
});

test('n = 4096 computes and draws its heatmaps, and the page stays responsive', async (t) => {
  await openStep(page, 5);
  await setUp(4096, 7);
  const canvas = page.locator('#step-5 canvas[data-matrix="Weights"]');
  assert.equal(await page.locator('#step-5 .matrix-canvas[data-matrix="Weights"] .matrix-shape').textContent(), '4096 × 4096');
  const drawn = await canvas.evaluate((node) => {
    const { data } = node.getContext('2d').getImageData(0, 0, node.width, node.height);
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    return { width: node.width, height: node.height, opaque };
  });
  assert.deepEqual(drawn, { width: 512, height: 512, opaque: 512 * 512 }, 'every pixel painted (8 × 8 cells each)');
  assert.match(await page.textContent('#step-5 .matrix-canvas[data-matrix="Weights"] .heat-hint'), /mean of 8 × 8 cells/);
  assert.match(await page.textContent('#token-list .token-more'), /3584 more tokens are not listed/);
  // a weight's arithmetic still works, from the keyboard: focus shows (0, 0)
  await page.focus('#step-5 .matrix-canvas[data-matrix="Weights"] .heat-box');
  for (const key of ['ArrowDown', 'ArrowRight', 'ArrowRight']) await page.keyboard.press(key);
  assert.match(await page.textContent('#step-5 .matrix-canvas[data-matrix="Weights"] .heat-readout'), /^Weights\[丁, 丂\] = \d[\d.e-]*$/);
  assert.match(await page.locator('#step-5 .work-main').textContent(), /^Weights\[丁, 丂\] = exp/);
  // responsive: while "fill randomly" draws 262 144 numbers (in slices) and the worker computes
  // a new 4096 × 4096 result, real clicks reach their handler at once. Each click waits for the
  // one before, so a busy main thread shows as one long delay (the click's timestamp to its
  // handler) and few clicks handled until the new result is shown.
  await page.evaluate(() => {
    window.clickDelays = [];
    document.addEventListener('pointerdown', (event) => {
      window.clickDelays.push(performance.now() - event.timeStamp);
    }, true);
    window.scrollTo(0, 0);
  });
  const title = await page.locator('h1[data-i18n="appTitle"]').boundingBox();
  const reseeded = await renderCount();
  await page.fill('#seed', '8');
  await page.click('#fill-random');
  await page.evaluate(() => window.clickDelays.splice(0)); // (the click on the button)
  while ((await renderCount()) === reseeded) {
    await page.mouse.click(title.x + 5, title.y + title.height / 2);
  }
  await rendered(reseeded);
  const delays = (await page.evaluate(() => window.clickDelays)).sort((a, b) => a - b);
  assert.ok(delays.length >= 10, `${delays.length} clicks handled while filling and computing`);
  const [median, longest] = [delays[delays.length >> 1], delays[delays.length - 1]];
  t.diagnostic(`${delays.length} clicks while filling and computing: median ${median.toFixed(1)} ms, longest ${longest.toFixed(1)} ms`);
  assert.ok(median < 50, `median click delay ${median} ms`);
  // the longest: the state's hash and storage write, a timer, took 0.3–0.5 s at 4096 × 64 here
  assert.ok(longest < 1000, `longest click delay ${longest} ms`);
  // one token over the engine's limit: its message under the tokens, and the last heatmap stays painted
  await openStep(page, 5);
  const before = await renderCount();
  await page.focus('#sentence');
  await page.keyboard.press('End');
  await page.keyboard.type('x');
  await rendered(before);
  assert.equal(await page.textContent('#tokens-error'), 'There are 4097 tokens; at most 4096 are allowed.');
  assert.match(await page.textContent('#status'), /showing the last valid result/);
  assert.equal(await canvas.evaluate((node) => {
    const { data } = node.getContext('2d').getImageData(0, 0, node.width, node.height);
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    return opaque;
  }), 512 * 512, 'the last good heatmap still shows');
  assert.deepEqual(problems, []);
});
