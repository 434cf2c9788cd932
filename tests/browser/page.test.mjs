// Browser tests of the built page (dist/), opened from file:// and over http
// from a localhost server. Expected numbers come from tests/REFERENCE.md or
// from plain JS below, never from the engine. One browser for the file; each
// test on a fresh page, so that any test runs alone.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { startServer } from '../../scripts/serve.mjs';
import { launchChromium } from './chromium.mjs';
import { REFERENCE } from '../js/fixtures.mjs'; // tests/REFERENCE.md's true values
import { PRESETS } from '../../web/src/state/presets.js';
import { tokenVector } from '../../web/src/state/vectors.js';
import { waitForSteps, openEditor, openStep, stageOf } from './ui.mjs';
import { viridis } from './colors.mjs';
import { attention } from './reference.mjs';

const DIST = path.resolve('dist');
const { cases: TOKENIZE_CASES } = JSON.parse(readFileSync(new URL('../fixtures/tokenize_cases.json', import.meta.url), 'utf8'));
const FILE_URL = `${pathToFileURL(path.join(DIST, 'index.html')).href}?example=tutorial`;

const TUTORIAL = {
  x: [[1, 0], [0.5, 0.5], [0, 1]], wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]],
};
const RESULT_NAMES = Object.keys(REFERENCE);

// The page's "show the work" number style: 4 decimals, trailing zeros dropped.
const compact = (v) => v.toFixed(4).replace(/\.?0+$/, '');

// The widely copied one-line mulberry32, to check "fill randomly".
function mulberry32(a) {
  return () => {
    let t = (a += 0x6d2b79f5);
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let browser;
let server;

before(async () => {
  browser = await launchChromium();
  server = await startServer({ root: DIST, port: 0 });
});

after(async () => {
  await browser?.close();
  await server?.close();
});

// Opens the page and records console errors, page errors and every request.
async function openPage(url, { locale = 'en-US', viewport, clock = false, editor = true } = {}) {
  const context = await browser.newContext({ locale, viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const problems = [];
  const requests = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  context.on('request', (request) => requests.push(request.url()));
  if (clock) await page.clock.install();
  await page.goto(url);
  await waitForSteps(page);
  if (editor) await openEditor(page);
  return { context, page, problems, requests };
}

// A test body run on a fresh page (file://, English, the tutorial at step 1), closed after
// it; the page must have logged no error.
function onFreshPage(body) {
  return async () => {
    const { context, page, problems } = await openPage(FILE_URL);
    try {
      await openStep(page, 1);
      await body(page);
      assert.deepEqual(problems, [], 'no console or page errors');
    } finally {
      await context.close();
    }
  };
}

// A matrix shown in the steps, from the full values in the cells' data-value.
function readMatrix(page, name) {
  return page.evaluate((wanted) => {
    const table = document.querySelector(`#steps table[data-matrix="${wanted}"]`);
    if (!table) return null;
    return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value)));
  }, name);
}

function readHeaders(page, name) {
  return page.evaluate((wanted) => {
    const table = document.querySelector(`#steps table[data-matrix="${wanted}"]`);
    return {
      rows: [...table.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...table.querySelectorAll('thead th.col-label:not(.sum)')].map((th) => th.textContent),
    };
  }, name);
}

function assertClose(actual, expected, label, tolerance = 1e-12) {
  assert.ok(actual, `${label} is shown`);
  assert.equal(actual.length, expected.length, `${label} rows`);
  expected.forEach((row, i) => {
    assert.equal(actual[i].length, row.length, `${label} row ${i} length`);
    row.forEach((value, j) => {
      assert.ok(Math.abs(actual[i][j] - value) <= tolerance, `${label}[${i}][${j}] = ${actual[i][j]}, expected ${value}`);
    });
  });
}

async function assertAllResults(page, expected) {
  for (const name of RESULT_NAMES) assertClose(await readMatrix(page, name), expected[name], name);
}

// Types a matrix into its grid, cell by cell.
async function fillGrid(page, field, matrix) {
  for (let r = 0; r < matrix.length; r++) {
    for (let c = 0; c < matrix[r].length; c++) {
      await page.fill(`#editor-${field} input[data-r="${r}"][data-c="${c}"]`, String(matrix[r][c]));
    }
  }
}

function readGrid(page, field) {
  return page.evaluate((f) => {
    const rows = [];
    for (const input of document.querySelectorAll(`#editor-${f} .grid input`)) {
      const r = Number(input.dataset.r);
      (rows[r] ||= []).push(Number(input.value));
    }
    return rows;
  }, field);
}

async function paste(page, selector, text) {
  await page.locator(selector).evaluate((input, data) => {
    const transfer = new DataTransfer();
    transfer.setData('text/plain', data);
    input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: transfer, bubbles: true, cancelable: true }));
  }, text);
}

const workText = (page) => page.locator('#steps .work-main').first().textContent();
const workLines = (page, step) => page.locator(`#step-${step} .work p`).allTextContents();
const stepIds = (page) => page.locator('#steps > li').evaluateAll((lis) => lis.map((li) => li.id));

for (const origin of ['file', 'http']) {
  test(`worked example, edits and no outside requests (${origin})`, async () => {
    const { context, page, problems, requests } = await openPage(origin === 'file' ? FILE_URL : `${server.url}?example=tutorial`);
    try {
      await page.click('#overview');
      await assertAllResults(page, REFERENCE);
      assert.equal(await page.locator('#step-6 table[data-matrix="Output"] td[data-r]').first().textContent(), '0.5512');
      assert.deepEqual(await page.locator('#step-5 td.sum').allTextContents(), ['1.0000', '1.0000', '1.0000']);
      assert.deepEqual(await readHeaders(page, 'Scores'), { rows: ['我', '爱', '你'], cols: ['我', '爱', '你'] });
      assert.match(await page.textContent('#step-4 .step-note'), /d_k = 2.*1\.4142/);

      const inputs = {
        x: [[1, -0.5, 2], [0.25, 0, 1], [-1, 1.5, 0.5], [0.3, 0.3, -0.7]],
        wq: [[0.9, -0.2], [0.4, 1.1], [-0.3, 0.6]],
        wk: [[0.2, 0.8], [-0.7, 0.1], [0.5, 0.5]],
        wv: [[1, 0, 0.5], [0, 2, -1], [0.3, 0.3, 0.3]],
      };
      await page.fill('#sentence', 'the cat sat down');
      await page.selectOption('#token-mode', 'space');
      await page.fill('#dim-dModel', '3');
      await page.fill('#dim-dv', '3');
      for (const field of ['x', 'wq', 'wk', 'wv']) await fillGrid(page, field, inputs[field]);
      await assertAllResults(page, attention(inputs));
      assert.deepEqual(await readHeaders(page, 'V'), { rows: ['the', 'cat', 'sat', 'down'], cols: ['d1', 'd2', 'd3'] });

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

test('step navigation: buttons, step list, arrow keys, overview', onFreshPage(async (page) => {
  assert.deepEqual(await stepIds(page), ['step-1']);
  assert.equal(await page.textContent('#step-position'), 'Step 1 of 7');
  assert.equal(await page.isDisabled('#prev'), true);
  await page.click('#next');
  assert.deepEqual(await stepIds(page), ['step-2']);
  assert.equal(await stageOf(page, 2).getAttribute('aria-current'), 'step');
  await openStep(page, 7);
  assert.deepEqual(await stepIds(page), ['step-7']);
  assert.equal(await page.isDisabled('#next'), true);
  await page.click('#prev');
  assert.deepEqual(await stepIds(page), ['step-6']);

  // arrow keys walk the steps from the page, but not from a field
  await page.locator('#step-position').click();
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await stepIds(page), ['step-5']);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.deepEqual(await stepIds(page), ['step-7']);
  await page.focus('#sentence');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual(await stepIds(page), ['step-7']);

  await page.click('#overview');
  assert.deepEqual(await stepIds(page), ['step-1', 'step-2', 'step-3', 'step-4', 'step-5', 'step-6', 'step-7']);
  assert.equal(await page.getAttribute('#overview', 'aria-pressed'), 'true');
  assert.equal(await page.isDisabled('#next'), true);
  await page.click('#overview');
  assert.deepEqual(await stepIds(page), ['step-7']);
}));

// Skippable boxes (content-visibility: auto once laid out): after `n` frames.
const frames = (page, n) => page.evaluate((count) => new Promise((resolve) => {
  const next = (left) => (left === 0 ? resolve() : requestAnimationFrame(() => next(left - 1)));
  next(count);
}), n);
// each box of `selector`: its id, its height as it is (a skipped box: the size kept for it) and whether it is skippable
const skippables = (page, selector) => page.evaluate((s) => [...document.querySelectorAll(s)].map((node) => ({
  id: node.id,
  height: node.getBoundingClientRect().height,
  skippable: getComputedStyle(node).contentVisibility === 'auto',
})), selector);
// the heights of the boxes of `selector` laid out (no longer skippable)
const laidOutHeights = (page, selector) => page.evaluate((s) => [...document.querySelectorAll(s)].map((node) => {
  node.classList.remove('skippable');
  return node.getBoundingClientRect().height;
}), selector);
// the top of #id now, then after a few frames (a box that moves once in view differs)
async function topsAfterArriving(page, id) {
  const top = () => page.evaluate((i) => document.getElementById(i).getBoundingClientRect().top, id);
  const arrived = await top();
  await frames(page, 3);
  return [arrived, await top()];
}

test('all steps: a step far from view is skipped once laid out, keeping its size, so nothing moves when it is scrolled to', onFreshPage(async (page) => {
  await page.click('#overview');
  await frames(page, 3);
  const skipped = await skippables(page, '#steps > li');
  assert.deepEqual(skipped.map((step) => step.skippable), Array(7).fill(true));
  // a stage clicked: its step comes into view and stays where it came
  await stageOf(page, 6).click();
  const [arrived, later] = await topsAfterArriving(page, 'step-6');
  assert.equal(later, arrived);
  // the steps out of view kept their sizes (none is the 600 px stand-in): the same laid out
  assert.deepEqual(skipped.map((step) => step.height), await laidOutHeights(page, '#steps > li'));
  // one step shown: always laid out
  await page.click('#overview');
  assert.deepEqual((await skippables(page, '#steps > li')).map((step) => step.skippable), [false]);
}));

test('edit panel: a matrix section is skipped far off screen once laid out, keeping its size, so nothing moves when it is scrolled to', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { editor: false });
  try {
    // the panel closed: nothing laid out, nothing skippable
    await frames(page, 3);
    assert.deepEqual((await skippables(page, '.matrix-editor')).filter((section) => section.skippable), []);
    await openEditor(page);
    await frames(page, 3);
    // the grids grow (2 × 2 to 16 × 16, taller than the 600 px stand-in) while the sections off screen are skipped
    for (const dim of ['dModel', 'dk', 'dv']) await page.fill(`#dim-${dim}`, '16');
    await frames(page, 3);
    const skipped = await skippables(page, '.matrix-editor');
    // the sections shown (not the hidden C and W_O) are skippable
    assert.deepEqual(skipped.filter((section) => section.skippable).map((section) => section.id), ['editor-x', 'editor-wq', 'editor-wk', 'editor-wv']);
    // scrolled to W_V (off screen until then): it stays where it came
    await page.evaluate(() => document.querySelector('#editor-wv h4').scrollIntoView({ block: 'start' }));
    const [arrived, later] = await topsAfterArriving(page, 'editor-wv');
    assert.equal(later, arrived);
    // every section skipped had the size it is laid out at (neither the stand-in nor the 2 × 2 grid's)
    const laidOut = await laidOutHeights(page, '.matrix-editor');
    assert.deepEqual(skipped.map((section) => section.height), laidOut);
    assert.ok(laidOut[2] > 600, `W_Q's grid is ${laidOut[2]} px high`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('play mode advances one step at a time and stops at the end', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { clock: true });
  try {
    await openStep(page, 1);
    await page.click('#play');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
    assert.match(await page.textContent('#play'), /Pause/);
    await page.clock.runFor(3000);
    assert.deepEqual(await stepIds(page), ['step-2']);
    await page.clock.runFor(12000);
    assert.deepEqual(await stepIds(page), ['step-6']);
    await page.clock.runFor(3000); // on to How it learns, the last step
    assert.deepEqual(await stepIds(page), ['step-7']);
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
    await page.click('#play'); // from the last step it starts over
    assert.deepEqual(await stepIds(page), ['step-1']);
    await page.clock.runFor(3000);
    await page.click('#play'); // pause
    await page.clock.runFor(9000);
    assert.deepEqual(await stepIds(page), ['step-2']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('show the work: a Q cell, a weight and an output cell, with their operands highlighted', onFreshPage(async (page) => {
  await openStep(page, 2);
  assert.match(await page.textContent('#step-2 .work-hint'), /Point at, tap or focus/);
  await page.hover('#step-2 table[data-matrix="Q"] td[data-r="1"][data-c="1"]');
  assert.equal(await workText(page), 'Q[爱, d2] = 0.5×0.2 + 0.5×0.6 = 0.4');
  const marked = (cls) => page.locator(`#steps td.${cls}`).evaluateAll((tds) => tds.map((td) => `${td.closest('table').dataset.matrix}${td.dataset.r}${td.dataset.c}`));
  assert.deepEqual(await marked('mark-feed'), ['X10', 'X11', 'W_Q01', 'W_Q11']);
  assert.deepEqual(await marked('mark-selected'), ['Q11']);
  // the cell pointed at (or focused) shows its full number as a tooltip (its
  // title), and only it of its matrix: the title follows an edit made meanwhile
  const titles = () => page.locator('#step-2 table[data-matrix="Q"] td[title]').evaluateAll((tds) => tds.map((td) => [`${td.closest('table').dataset.matrix}${td.dataset.r}${td.dataset.c}`, td.title, td.dataset.value]));
  const [[cell, title, value], ...othersBefore] = await titles();
  assert.deepEqual([cell, title, othersBefore], ['Q11', value, []]);
  assert.ok(Math.abs(Number(title) - REFERENCE.Q[1][1]) <= 1e-12, title);
  // (the first edit leaves the tutorial's example: the steps are made anew)
  const x = Number(await page.inputValue('#editor-x input[data-r="0"][data-c="0"]'));
  const x01 = await page.inputValue('#editor-x input[data-r="0"][data-c="1"]');
  const q01 = () => page.evaluate(() => document.querySelector('#step-2 table[data-matrix="Q"] td[data-r="0"][data-c="1"]').dataset.value);
  await page.fill('#editor-x input[data-r="0"][data-c="1"]', '1.5');
  await page.waitForFunction((was) => document.querySelector('#step-2 table[data-matrix="Q"] td[data-r="0"][data-c="1"]').dataset.value !== was, String(REFERENCE.Q[0][1]));
  await page.mouse.move(0, 0);
  await page.focus('#step-2 table[data-matrix="Q"] td[data-r="0"][data-c="1"]');
  const was = await q01();
  await page.fill('#editor-x input[data-r="0"][data-c="1"]', '2.5');
  await page.waitForFunction((before) => document.querySelector('#step-2 table[data-matrix="Q"] td[data-r="0"][data-c="1"]').dataset.value !== before, was);
  const [[cellAfter, titleAfter, valueAfter], ...others] = await titles();
  assert.deepEqual([cellAfter, titleAfter, others], ['Q01', valueAfter, []]);
  assert.ok(Math.abs(Number(titleAfter) - (x * 0.2 + 2.5 * 0.6)) <= 1e-12, titleAfter); // W_Q's column 2 is (0.2, 0.6)
  await page.fill('#editor-x input[data-r="0"][data-c="1"]', x01);

  // a weight: exp(s − max) / Σ exp(s − max), computed here from the reference
  await openStep(page, 5);
  await page.click('#step-5 table[data-matrix="Weights"] td[data-r="2"][data-c="1"]');
  const row = REFERENCE.Scaled[2];
  const max = Math.max(...row);
  const exps = row.map((s) => Math.exp(s - max));
  const lines = await workLines(page, 5);
  assert.equal(lines[0], 'Weights[你, 爱] = exp(s − max) / Σ exp(s − max)');
  assert.match(lines[1], new RegExp(`max = ${compact(max)}`));
  assert.equal(lines[2], `= exp(${compact(row[1])} − ${compact(max)}) / (${row.map((s) => `exp(${compact(s)} − ${compact(max)})`).join(' + ')})`);
  assert.equal(lines[3], `= ${compact(exps[1])} / (${exps.map(compact).join(' + ')})`);
  assert.equal(lines[4], `= ${compact(exps[1])} / ${compact(exps.reduce((a, b) => a + b))} = ${compact(REFERENCE.Weights[2][1])}`);
  assert.deepEqual(await marked('mark-feed'), ['Scaled20', 'Scaled21', 'Scaled22']);
  assert.deepEqual(await marked('mark-max'), ['Scaled22']);

  // an output cell: the weighted sum of V's column
  await openStep(page, 6);
  await page.mouse.move(0, 0); // the pointer left where step 5 was would point at a cell of step 6
  await page.focus('#step-6 table[data-matrix="Output"] td[data-r="0"][data-c="0"]');
  const terms = REFERENCE.Weights[0].map((w, j) => `${compact(w)}×${compact(REFERENCE.V[j][0])}`).join(' + ');
  assert.equal(await workText(page), `Output[我, d1] = ${terms} = ${compact(REFERENCE.Output[0][0])}`);
  assert.equal(await workText(page), 'Output[我, d1] = 0.3357×0.8 + 0.3333×0.55 + 0.331×0.3 = 0.5512');
  assert.deepEqual(await marked('mark-feed'), ['Weights00', 'Weights01', 'Weights02', 'V00', 'V10', 'V20']);
}));

test('each colour legend sits right under the matrices it describes and names them (no diverging key above the steps), also on the phone', onFreshPage(async (page) => {
  const keys = (n) => page.locator(`#step-${n} .step-legends .legend-text`).allTextContents();
  // under the step's matrices, before anything else of the step
  const placed = (n) => page.evaluate((i) => {
    const li = document.getElementById(`step-${i}`);
    const box = (node) => node.getBoundingClientRect();
    const body = box(li.querySelector('.step-body'));
    const legends = box(li.querySelector('.step-legends'));
    return { gap: legends.top - body.bottom, beforePlain: legends.bottom <= box(li.querySelector('.plain')).top || legends.top >= body.bottom };
  }, n);
  assert.equal(await page.locator('#signed-legend').count(), 0);
  await openStep(page, 5);
  assert.deepEqual(await keys(5), [
    'Colours of Scaled: blue negative, white 0, red positive; each matrix is scaled to its own largest magnitude.',
    'The colour of Weights is the weight itself, from 0 to 1, on one scale for every row (not relative to each row’s largest)',
  ]);
  let at = await placed(5);
  assert.ok(at.gap >= 0 && at.gap < 40, `the keys ${at.gap} px under the matrices`);
  await openStep(page, 6);
  assert.deepEqual((await keys(6)).map((text) => text.split(':')[0].split(' is ')[0]), ['Colours of V, Output', 'The colour of Weights']);
  await openStep(page, 2);
  assert.match((await keys(2))[0], /^Colours of X, W_Q, Q, W_K, K, W_V, V:/);
  // on the phone: under the matrices, before the step's explanation, not below every step
  await page.setViewportSize({ width: 375, height: 812 });
  await openStep(page, 5);
  at = await placed(5);
  const order = await page.evaluate(() => {
    const li = document.getElementById('step-5');
    const top = (s) => li.querySelector(s).getBoundingClientRect().top;
    return { body: top('.step-body'), legends: top('.step-legends'), plain: top('.plain') };
  });
  assert.ok(order.body < order.legends && order.legends < order.plain, JSON.stringify(order));
  assert.ok(at.gap >= 0 && at.gap < 40, `phone: the keys ${at.gap} px under the matrices`);
}));

test('the diagram says what its dashed stages are: a key naming the stages an option adds', onFreshPage(async (page) => {
  const key = page.locator('#pipeline .pipeline-key');
  assert.equal(await key.count(), 0, 'no dashed stage, no key');
  await openEditor(page);
  await page.fill('#temperature', '2');
  await key.waitFor();
  assert.equal(await key.textContent(), 'Dashed: a stage an option adds, not in plain attention (÷√d_k ÷T).');
  assert.equal(await page.locator('#pipeline .pipeline-stage.variant').count(), 1);
  await page.check('#causal');
  await page.waitForFunction(() => /\(÷√d_k ÷T, mask\)/.test(document.querySelector('#pipeline .pipeline-key')?.textContent));
  await page.fill('#temperature', '1');
  await page.uncheck('#causal');
  await key.waitFor({ state: 'detached' });
}));

test('weights: legend, row sums and the lines view focusing a row', onFreshPage(async (page) => {
  await openStep(page, 5);
  assert.equal(await page.locator('#step-5 .legend').count(), 2, 'Scaled\'s and the weights\'');
  assert.deepEqual(await page.locator('#step-5 td.sum').allTextContents(), ['1.0000', '1.0000', '1.0000']);
  const opacities = await page.locator('#step-5 .weight-line').evaluateAll((lines) => lines.map((l) => Number(l.getAttribute('stroke-opacity'))));
  assertClose([opacities], [REFERENCE.Weights.flat()], 'line strengths', 1e-4);
  await page.hover('#step-5 .lines-token[data-q="2"]');
  const active = await page.locator('#step-5 .weight-line.active').evaluateAll((lines) => lines.map((l) => `${l.dataset.q}${l.dataset.k}`));
  assert.deepEqual(active, ['20', '21', '22']);
  assert.equal(await page.locator('#step-5 .lines-view.has-focus').count(), 1);
  assert.deepEqual(await page.locator('#step-5 .lines-weight').allTextContents(), REFERENCE.Weights[2].map((w) => w.toFixed(4)));
  // a row focused or let go fades; new weights are drawn at once (no transition, as during a drag)
  const fade = () => page.locator('#step-5 .weight-line').first().evaluate((line) => getComputedStyle(line).transitionDuration);
  assert.equal(await fade(), '0.15s', 'focused: the lines fade');
  // (read as the focus goes, in the same task: a loaded machine may take longer than the fade
  // between two of the test's calls, and the fade is over by then)
  await page.locator('#step-5 .lines-view').evaluate((view) => {
    const line = view.querySelector('.weight-line');
    window.letGo = new Promise((resolve) => {
      const seen = new MutationObserver(() => {
        if (view.classList.contains('has-focus')) return;
        seen.disconnect();
        resolve(getComputedStyle(line).transitionDuration);
      });
      seen.observe(view, { attributes: true, attributeFilter: ['class'] });
    });
  });
  await page.mouse.move(0, 0);
  assert.equal(await page.evaluate(() => window.letGo), '0.15s', 'let go: the lines fade back');
  assert.equal(await page.locator('#step-5 .lines-view.has-focus').count(), 0);
  await page.waitForFunction(() => document.querySelector('#step-5 .lines-view.unfocusing') === null);
  assert.equal(await fade(), '0s', 'then new weights are drawn at once');
}));

test('tokenisation modes, and tokens edited, added and removed', onFreshPage(async (page) => {
  const tokens = () => page.locator('#token-list input').evaluateAll((inputs) => inputs.map((i) => i.value));
  await page.fill('#sentence', 'Hello, world');
  await page.selectOption('#token-mode', 'char');
  assert.deepEqual(await tokens(), ['H', 'e', 'l', 'l', 'o', ',', 'w', 'o', 'r', 'l', 'd']);
  await page.selectOption('#token-mode', 'space');
  assert.deepEqual(await tokens(), ['Hello,', 'world']);
  await page.selectOption('#token-mode', 'word');
  assert.deepEqual(await tokens(), ['Hello', ',', 'world']);
  assert.equal(await page.textContent('#token-count'), '3 tokens');
  assert.equal(await page.locator('#editor-x .grid tbody tr').count(), 3);
  // Japanese typed into the page: split as ICU's word segmentation splits it (python3-icu,
  // tests/fixtures/tokenize_cases.json), by words and by characters, and its tokens shown on
  // screen in that order (the token list, X's rows, the weights' rows and columns)
  await page.click('#overview');
  const japanese = TOKENIZE_CASES.filter((c) => /[\u3040-\u30ff]/u.test(c.text));
  assert.ok(japanese.length >= 2);
  for (const mode of ['word', 'char']) {
    await page.selectOption('#token-mode', mode);
    for (const { text, [mode]: expected } of japanese) {
      await page.fill('#sentence', text);
      // drawn once X's rows spell this sentence (consecutive sentences differ), however split
      await page.waitForFunction((t) => [...(document.querySelector('#steps table[data-matrix="X"]')?.querySelectorAll('tbody th') || [])].map((th) => th.textContent).join('') === t, text);
      assert.deepEqual(await tokens(), expected, `${text} by ${mode}: the token list`);
      assert.deepEqual((await readHeaders(page, 'X')).rows, expected, `${text} by ${mode}: X's rows`);
      assert.deepEqual(await readHeaders(page, 'Weights'), { rows: expected, cols: expected }, `${text} by ${mode}: the weights' queries and keys`);
    }
  }

  await page.click('[data-preset="tutorial"]');
  assert.equal(await page.inputValue('#token-mode'), 'char');
  await page.fill('#token-list li:nth-child(2) input', '喜欢');
  assert.equal(await page.inputValue('#sentence'), '我喜欢你');
  assert.deepEqual((await readHeaders(page, 'X')).rows, ['我', '喜欢', '你']);
  await page.click('#add-token');
  assert.deepEqual(await tokens(), ['我', '喜欢', '你', 'w4']);
  assert.deepEqual(await readGrid(page, 'x'), [[1, 0], [0.5, 0.5], [0, 1], tokenVector('w4', 2)]);
  await page.keyboard.type('们'); // the new token's text is selected, ready to be replaced
  await page.click('#token-list li:nth-child(1) .token-remove');
  assert.deepEqual(await tokens(), ['喜欢', '你', '们']);
  // a renamed row keeps what was typed in it (喜欢); a made-up one follows its new text (们)
  assert.deepEqual(await readGrid(page, 'x'), [[0.5, 0.5], [0, 1], tokenVector('们', 2)]);
  assert.deepEqual((await readHeaders(page, 'X')).rows, ['喜欢', '你', '们']);
  await page.fill('#token-list li:nth-child(3) input', '');
  assert.match(await page.textContent('#tokens-error'), /Token 3 is empty/);
  assert.equal(await page.locator('.status-stale').count(), 1);
}));

// issue 32.1 / 31.2: new tokens had rows of zeros (exactly even weights) and the page advised a lower temperature
test('a typed sentence: each new token gets a made-up vector of its own, kept tokens keep theirs, and the page says the vectors are made up', onFreshPage(async (page) => {
  await page.fill('#editor-x .grid input[data-r="2"][data-c="0"]', '0.25'); // 你, typed by the user
  await page.fill('#sentence', '你爱我们我');
  await page.waitForFunction(() => document.querySelectorAll('#editor-x .grid tbody tr').length === 5);
  const x = await readGrid(page, 'x');
  assert.deepEqual(x.slice(0, 3), [[0.25, 1], [0.5, 0.5], [1, 0]], 'kept tokens keep their vectors wherever they move');
  assert.deepEqual(x[3], tokenVector('们', 2));
  assert.deepEqual(x[4], [1, 0], 'the same token, the same vector');
  const note = page.locator('#status .status-note');
  await note.waitFor();
  assert.match(await note.textContent(), /Made-up vectors: “们” had no vectors of their own/);
  // no row of the weights is exactly even (a lower temperature does spread these)
  await openStep(page, 5);
  const weights = await readMatrix(page, 'Weights');
  assert.ok(weights.every((row) => Math.max(...row) > Math.min(...row)), JSON.stringify(weights));
  assert.doesNotMatch(await page.textContent('#steps .near-uniform'), /exactly even/);
  // a row of zeros typed on purpose: the hint says what is wrong, not "lower the temperature"
  for (let c = 0; c < 2; c++) await page.fill(`#editor-x .grid input[data-r="3"][data-c="${c}"]`, '0');
  await page.waitForFunction(() => /exactly even/.test(document.querySelector('#steps .near-uniform')?.textContent || ''));
  assert.match(await page.textContent('#steps .near-uniform'), /The weights of “们” are exactly even.*No temperature can change that/);
  // its own vectors typed, the note goes
  await page.fill('#editor-x .grid input[data-r="3"][data-c="0"]', '1');
  await page.waitForFunction(() => !document.querySelector('#status .status-note'));
}));

test('English typed while splitting by character (left over from 我爱你) proposes splitting by spaces; the reader decides', onFreshPage(async (page) => {
  const tokens = () => page.locator('#token-list input').evaluateAll((inputs) => inputs.map((i) => i.value));
  const prompt = page.locator('#split-prompt');
  assert.equal(await page.inputValue('#token-mode'), 'char');
  assert.equal(await prompt.isVisible(), false, 'no prompt on 我爱你');
  await page.fill('#sentence', 'I love you');
  await prompt.waitFor();
  assert.equal(await prompt.textContent(), 'This text has spaces and Latin letters, and it is split by character: 8 tokens, one per letter. Split it by spaces instead (3 tokens)? Split by spaces Keep by character');
  assert.equal((await tokens()).length, 8, 'nothing changes before the reader decides');
  await prompt.getByRole('button', { name: 'Split by spaces' }).click();
  assert.deepEqual(await tokens(), ['I', 'love', 'you']);
  assert.equal(await page.inputValue('#token-mode'), 'space');
  assert.equal(await prompt.isVisible(), false);
  assert.equal(await page.evaluate(() => document.activeElement.id), 'sentence', 'the focus goes back to the sentence');

  // kept by character: the prompt goes and stays gone while typing on
  await page.selectOption('#token-mode', 'char');
  await prompt.waitFor();
  await prompt.getByRole('button', { name: 'Keep by character' }).click();
  assert.equal(await prompt.isVisible(), false);
  await page.fill('#sentence', 'I love you too');
  assert.equal(await prompt.isVisible(), false);
  assert.equal((await tokens()).length, 11);
  // Chinese with spaces asks nothing; in Chinese the prompt speaks Chinese
  await page.selectOption('#token-mode', 'space');
  await page.selectOption('#token-mode', 'char');
  await page.fill('#sentence', '我 爱 你');
  assert.equal(await prompt.isVisible(), false);
  await page.click('#lang-toggle');
  await page.fill('#sentence', 'the cat');
  await prompt.waitFor();
  assert.match(await prompt.textContent(), /^这段文字有空格和拉丁字母，现在按字切分，得到 6 个词元（每个字母一个）。要改成按空格切分（2 个词元）吗？ 按空格切分 保持按字切分$/);
}));

test('the sentence box: a line break is whitespace, a long sentence wraps and the box grows to six lines', onFreshPage(async (page) => {
  const tokens = () => page.locator('#token-list input').evaluateAll((inputs) => inputs.map((i) => i.value));
  const box = () => page.locator('#sentence').evaluate((node) => {
    const style = getComputedStyle(node);
    return { lines: Math.round((node.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom)) / parseFloat(style.lineHeight)), wide: node.scrollWidth > node.clientWidth, scrolls: node.scrollHeight > node.clientHeight };
  });
  await page.click('[data-preset="english"]');
  assert.deepEqual(await box(), { lines: 1, wide: false, scrolls: false });
  // typed as a person types: Enter in the middle of the sentence
  await page.focus('#sentence');
  await page.keyboard.press('End');
  for (let i = 0; i < 'you'.length; i++) await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('Backspace');
  await page.keyboard.press('Enter');
  assert.equal(await page.inputValue('#sentence'), 'I love\nyou');
  assert.deepEqual(await tokens(), ['I', 'love', 'you']);
  // 300 characters: wrapped, never wider than the box; six lines high, then it scrolls
  await page.selectOption('#token-mode', 'char');
  await page.fill('#sentence', '我爱你'.repeat(100));
  assert.equal((await tokens()).length, 300);
  assert.deepEqual(await box(), { lines: 6, wide: false, scrolls: true });
}));

test('dimensions: d_model, d_k and d_v from 1 to 64', onFreshPage(async (page) => {
  await page.fill('#dim-dk', '3');
  assert.deepEqual(await readGrid(page, 'wq'), [[0.5, 0.2, 0], [0.1, 0.6, 0]]);
  await page.fill('#dim-dv', '1');
  await page.fill('#dim-dModel', '1');
  const inputs = { x: [[1], [0.5], [0]], wq: [[0.5, 0.2, 0]], wk: [[0.4, 0.3, 0]], wv: [[0.8]] };
  await page.click('#overview');
  await assertAllResults(page, attention(inputs));
  assert.match(await page.textContent('#step-4 .step-note'), /d_k = 3.*1\.7321/);
  await page.fill('#dim-dModel', '2');
  assert.deepEqual(await readGrid(page, 'x'), TUTORIAL.x, 'numbers come back when a dimension grows again');
  for (const bad of ['0', '65', '2.5']) {
    await page.fill('#dim-dk', bad);
    assert.match(await page.textContent('#dim-dk-error'), /whole number from 1 to 64/);
    assert.equal(await page.getAttribute('#dim-dk', 'aria-invalid'), 'true');
    assert.equal(await page.locator('.status-stale').count(), 1);
  }
  await page.fill('#dim-dk', '64');
  assert.equal(await page.locator('#editor-wq .grid').count(), 0, 'a 2 × 64 matrix is edited as text');
  assert.equal(await page.locator('#step-2 canvas[data-matrix="W_Q"]').count(), 1);
}));

// A head's W_Q, W_K and W_V too wide for a grid are text boxes, built anew on a head
// switch and written one a frame: each shows its own head's matrix, and what the
// user writes into a box before its turn stays.
test('text boxes of another head: filled with that head\'s matrix, typing before then kept', onFreshPage(async (page) => {
  await page.fill('#dim-dk', '30');
  await page.fill('#dim-dv', '30');
  await page.fill('#heads', '2');
  const tab = (i) => page.click(`#edit-heads .head-tab >> nth=${i}`);
  const readArea = async (id) => {
    await page.waitForFunction((wanted) => document.getElementById(wanted).value !== '', id);
    return page.evaluate((wanted) => document.getElementById(wanted).value.split('\n').map((line) => line.trim().split(/ +/).map(Number)), id);
  };
  const pad = (row) => [...row, ...Array(28).fill(0)];
  await tab(1);
  assert.notDeepEqual(await readArea('wq-text'), TUTORIAL.wq.map(pad), 'head 2 has numbers of its own');
  await tab(0);
  assert.deepEqual(await readArea('wq-text'), TUTORIAL.wq.map(pad));
  assert.deepEqual(await readArea('wk-text'), TUTORIAL.wk.map(pad));
  // typed into head 2's new W_V box at once (before its turn): kept after the boxes are written
  await page.evaluate(() => {
    document.querySelectorAll('#edit-heads .head-tab')[1].click();
    document.getElementById('wv-text').value = '1 2';
  });
  await readArea('wq-text');
  await readArea('wk-text');
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => setTimeout(resolve, 0)))));
  assert.equal(await page.inputValue('#wv-text'), '1 2');
}));

test('grids: typing, and pasting TSV, CSV or JSON', onFreshPage(async (page) => {
  await page.click('#overview');
  // a spreadsheet block pasted into the first cell replaces the matrix, width included
  await paste(page, '#editor-x input[data-r="0"][data-c="0"]', '1\t2\t3\n4\t5\t6\n7\t8\t9\n');
  assert.deepEqual(await readGrid(page, 'x'), [[1, 2, 3], [4, 5, 6], [7, 8, 9]]);
  assert.equal(await page.inputValue('#dim-dModel'), '3');
  assert.deepEqual(await readGrid(page, 'wq'), [[0.5, 0.2], [0.1, 0.6], [0, 0]], 'W_Q grows a row of zeros');
  await paste(page, '#editor-wq input[data-r="0"][data-c="0"]', '[[1, 2]]');
  assert.match(await page.textContent('#wq-error'), /W_Q has 1 row; it needs 3/);
  await paste(page, '#editor-wq input[data-r="0"][data-c="0"]', '[[0.5, 0.2], [0.1, 0.6], [1, -1]]');
  await paste(page, '#editor-wk input[data-r="0"][data-c="0"]', '0.4,0.3\n0.2,0.7\n-1,1');
  await page.fill('#editor-wv input[data-r="2"][data-c="0"]', '0.5');
  const inputs = {
    x: [[1, 2, 3], [4, 5, 6], [7, 8, 9]], wq: [[0.5, 0.2], [0.1, 0.6], [1, -1]], wk: [[0.4, 0.3], [0.2, 0.7], [-1, 1]], wv: [[0.8, 0.1], [0.3, 0.9], [0.5, 0]],
  };
  await assertAllResults(page, attention(inputs));
  // elsewhere a block fills from its cell and is clipped
  await paste(page, '#editor-x input[data-r="1"][data-c="1"]', '0\t0\t0\n0\t0\t0\n0\t0\t0');
  assert.deepEqual(await readGrid(page, 'x'), [[1, 2, 3], [4, 0, 0], [7, 0, 0]]);
  // the text box: apply, and its errors
  await page.click('#editor-wv summary');
  await page.fill('#wv-text', '[[1, 0], [0, 1]');
  await page.click('#editor-wv .apply');
  assert.match(await page.textContent('#wv-error'), /JSON cannot be read/);
  await page.fill('#wv-text', '1 2 3 4\n5 6 7 8\n0 0 0 1');
  await page.click('#editor-wv .apply');
  assert.equal(await page.textContent('#wv-error'), '');
  assert.equal(await page.inputValue('#dim-dv'), '4');
  assert.deepEqual((await readHeaders(page, 'Output')).cols, ['d1', 'd2', 'd3', 'd4']);
}));

test('text box: columns right-aligned with spaces; copied with Ctrl+C, it pastes as a spreadsheet block (tabs)', onFreshPage(async (page) => {
  await page.fill('#editor-wq input[data-r="0"][data-c="0"]', '-1.25');
  await page.click('#editor-wq summary');
  await page.waitForFunction(() => document.getElementById('wq-text').value.startsWith('-1.25'));
  assert.equal(await page.inputValue('#wq-text'), '-1.25  0.2\n  0.1  0.6');
  // what a paste receives, read where it arrives (the system clipboard, as a user's keys use it)
  await page.evaluate(() => {
    document.addEventListener('paste', (event) => { window.pasted = event.clipboardData.getData('text/plain'); }, { capture: true });
  });
  const copyPaste = async (from, to) => {
    await page.focus(from);
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Control+C');
    await page.focus(to);
    await page.keyboard.press('Control+V');
    return page.evaluate(() => window.pasted);
  };
  assert.equal(await copyPaste('#wq-text', '#editor-wk input[data-r="0"][data-c="0"]'), '-1.25\t0.2\n0.1\t0.6');
  assert.deepEqual(await readGrid(page, 'wk'), [[-1.25, 0.2], [0.1, 0.6]], 'W_K took the block');
  // the user's own text (commas, unapplied) is copied as it is
  await page.fill('#wq-text', '1, 2\n3, 4');
  assert.equal(await copyPaste('#wq-text', '#editor-wv input[data-r="0"][data-c="0"]'), '1, 2\n3, 4');
  assert.deepEqual(await readGrid(page, 'wv'), [[1, 2], [3, 4]]);
}));

test('bad input: a message at the field, the last good result kept and marked', onFreshPage(async (page) => {
  await page.click('#overview');
  const cases = [
    ['#editor-x input[data-r="1"][data-c="1"]', 'abc', '#x-error', /Row 2 \(爱\), column 2: “abc” is not a number/],
    ['#editor-x input[data-r="2"][data-c="0"]', 'NaN', '#x-error', /Row 3 \(你\), column 1: “NaN” is not a finite number/],
    ['#editor-wq input[data-r="0"][data-c="1"]', '', '#wq-error', /Row 1, column 2 is empty/],
    ['#editor-wv input[data-r="0"][data-c="0"]', '1..2', '#wv-error', /Row 1, column 1: “1\.\.2” is not a number/],
    ['#sentence', '   ', '#tokens-error', /no tokens/],
  ];
  for (const [selector, text, errorId, message] of cases) {
    await page.fill(selector, text);
    assert.match(await page.textContent(errorId), message, `${selector}: ${JSON.stringify(text)}`);
    if (selector !== '#sentence') assert.equal(await page.getAttribute(selector, 'aria-invalid'), 'true');
    assert.equal(await page.locator('.status-stale').count(), 1);
    assert.equal(await page.locator('#steps.stale').count(), 1);
    assertClose(await readMatrix(page, 'Output'), REFERENCE.Output, 'Output (stale)');
    await page.click('[data-preset="tutorial"]');
    assert.equal(await page.textContent(errorId), '');
    assert.equal(await page.locator('.status-stale').count(), 0);
    assert.equal(await page.locator('[aria-invalid]').count(), 0, 'no field is marked any more');
  }
}));

test('fill randomly is reproducible from its seed', onFreshPage(async (page) => {
  await page.fill('#seed', '42');
  await page.click('#fill-random');
  const next = mulberry32(42);
  const draw = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((next() * 2 - 1) * 100) / 100));
  const expected = { x: draw(3, 2), wq: draw(2, 2), wk: draw(2, 2), wv: draw(2, 2) };
  for (const field of ['x', 'wq', 'wk', 'wv']) assert.deepEqual(await readGrid(page, field), expected[field], field);
  await page.click('#overview');
  await assertAllResults(page, attention(expected));
  await page.fill('#seed', '7');
  await page.click('#fill-random');
  assert.notDeepEqual(await readGrid(page, 'x'), expected.x);
  await page.fill('#seed', '42');
  await page.click('#fill-random');
  assert.deepEqual(await readGrid(page, 'x'), expected.x);
  await page.fill('#seed', '-1');
  await page.click('#fill-random');
  assert.match(await page.textContent('#seed-error'), /whole number/);
}));

test('presets, the tutorial misprint note and decimal places', onFreshPage(async (page) => {
  await page.click('[data-preset="english"]');
  await page.click('#overview');
  assert.deepEqual((await readHeaders(page, 'Weights')).rows, ['I', 'love', 'you']);
  await assertAllResults(page, REFERENCE);
  // on the tutorial's numbers the tutorial's printed digits are shown struck out beside the true ones
  assert.deepEqual(await page.locator('#step-5 .misprint del').first().textContent(), '0.33614837');
  assert.deepEqual(await page.locator('#step-5 .misprint ins').first().textContent(), REFERENCE.Weights[0][0].toFixed(8));
  assert.deepEqual(await page.locator('#step-6 .misprint ins').first().textContent(), '0.55117850');
  assert.equal(await page.locator('#step-4 .misprint del').count(), 1, 'only Scaled[爱][爱] is misprinted in step 3');

  await page.click('[data-preset="animal"]');
  assert.equal(await page.inputValue('#sentence'), 'The animal didn’t cross the street because it was too tired');
  assert.equal(await page.locator('#token-list input').count(), 11);
  assert.equal(await page.locator('.misprint').count(), 0);
  await assertAllResults(page, attention(PRESETS.animal));

  await page.click('[data-preset="tutorial"]');
  await page.selectOption('#decimals', '2');
  assert.equal(await page.locator('#step-6 table[data-matrix="Output"] td[data-r]').first().textContent(), '0.55');
  await page.selectOption('#decimals', '6');
  assert.equal(await page.locator('#step-6 table[data-matrix="Output"] td[data-r]').first().textContent(), '0.551179');
  await page.hover('#step-2 table[data-matrix="K"] td[data-r="1"][data-c="0"]');
  assert.equal(await page.locator('#step-2 .work-main').textContent(), 'K[爱, d1] = 0.5×0.4 + 0.5×0.2 = 0.3');
}));

test('language: from the browser, switchable, remembered', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { locale: 'zh-CN' });
  try {
    assert.equal(await page.getAttribute('html', 'lang'), 'zh-CN');
    assert.equal(await page.title(), '自注意力逐步可视化');
    assert.equal(await page.textContent('#steps .step-num'), '第 5 步，共 7 步', 'a first visit opens on the weights');
    await page.fill('#editor-x input[data-r="1"][data-c="1"]', 'abc');
    assert.match(await page.textContent('#x-error'), /第 2 行（爱）第 2 列：“abc”不是数字/);
    await page.click('#lang-toggle');
    assert.equal(await page.getAttribute('html', 'lang'), 'en');
    assert.equal(await page.textContent('#steps .step-num'), 'Step 5 of 7');
    assert.match(await page.textContent('#x-error'), /Row 2 \(爱\), column 2: “abc” is not a number/);
    // named by what it shows (中文, in Chinese), described in the page's language
    assert.equal(await page.getAttribute('#lang-toggle', 'title'), 'Switch the page to Chinese');
    assert.equal(await page.getAttribute('#lang-toggle-name', 'lang'), 'zh-CN');
    await page.reload();
    await waitForSteps(page);
    await openEditor(page);
    assert.equal(await page.getAttribute('html', 'lang'), 'en', 'the choice is remembered');
    await page.click('#lang-toggle');
    await openStep(page, 2);
    await page.hover('#step-2 table[data-matrix="V"] td[data-r="0"][data-c="0"]');
    assert.match((await workLines(page, 2))[1], /X 中 我 这一行/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('keyboard only: steps, cells, lines view and grids', onFreshPage(async (page) => {
  await page.focus('#next');
  await page.keyboard.press('Enter');
  assert.deepEqual(await stepIds(page), ['step-2']);
  // Tab reaches the first cell of Q; arrows walk its cells and show their work
  for (let i = 0; i < 40 && !(await page.evaluate(() => document.activeElement.closest('table[data-matrix="Q"]'))); i++) {
    await page.keyboard.press('Tab');
  }
  assert.equal(await workText(page), 'Q[我, d1] = 1×0.5 + 0×0.1 = 0.5');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  assert.equal(await workText(page), 'Q[爱, d2] = 0.5×0.2 + 0.5×0.6 = 0.4');
  assert.deepEqual(await stepIds(page), ['step-2'], 'arrows in a matrix do not change the step');
  await page.keyboard.press('Tab'); // the rest of Q is skipped: one Tab stop per matrix
  assert.equal(await page.evaluate(() => document.activeElement.querySelector('table').dataset.matrix), 'W_K');

  await page.focus('#next');
  for (let i = 0; i < 3; i++) await page.keyboard.press('Enter');
  assert.deepEqual(await stepIds(page), ['step-5']);
  await page.focus('#step-5 .lines-token[data-q="1"]');
  assert.equal(await page.locator('#step-5 .weight-line.active').count(), 3);
  assert.match(await page.textContent('#step-5 .lines-readout'), /爱 attends: 我 0\.3216, 爱 0\.3332, 你 0\.3452/);

  await page.focus('#editor-x input[data-r="0"][data-c="0"]');
  await page.keyboard.press('Control+A');
  await page.keyboard.type('2');
  await page.keyboard.press('Enter');
  assert.equal(await page.evaluate(() => document.activeElement.dataset.r), '1');
  assertClose([await readGrid(page, 'x')].flat(), [[2, 0], [0.5, 0.5], [0, 1]], 'X');
  await page.focus('#play');
  await page.keyboard.press('Space');
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
  await page.keyboard.press('Space');
  assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
}));

test('a long sentence (n = 512) becomes canvas heatmaps and recomputes on every edit', onFreshPage(async (page) => {
  await page.fill('#dim-dModel', '16');
  await page.fill('#dim-dk', '16');
  await page.fill('#dim-dv', '16');
  const sentence = Array.from({ length: 512 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
  await page.fill('#sentence', sentence);
  await page.fill('#seed', '3');
  await page.click('#fill-random');
  await page.click('#overview');
  assert.equal(await page.locator('#steps canvas[data-matrix="Weights"]').count(), 2);
  assert.equal(await page.locator('#steps table[data-matrix="Weights"]').count(), 0);
  assert.ok(await page.locator('#steps td').count() < 3000, 'no table of a quarter of a million cells');
  assert.equal(await page.locator('#editor-x .grid').count(), 0);
  assert.match(await page.textContent('#step-5 .lines-view'), /too dense/);

  // pointing at a weight on the canvas shows its arithmetic
  const heat = page.locator('#step-5 .matrix-canvas[data-matrix="Weights"] .heat-box');
  await heat.scrollIntoViewIfNeeded();
  const box = await heat.boundingBox();
  // step 5 was skipped off screen (content-visibility): until the frame after the scroll
  // renders it, a point on it hits the step's box, not its heatmap
  await page.waitForFunction(([x, y]) => Boolean(document.elementFromPoint(x, y)?.closest('.heat-box')), [box.x + box.width / 1024, box.y + box.height / 1024]);
  await page.mouse.move(box.x + box.width / 1024, box.y + box.height / 1024); // the middle of cell (0, 0)
  assert.match(await page.locator('#step-5 .work-main').textContent(), /^Weights\[一, 一\] = exp/);
  assert.equal(await page.locator('#step-5 .heat-mark.mark-feed').count(), 1);
  // each pixel is its cell's weight in viridis (the page's table of 1024 colours: within 2 of the stops)
  for (const [r, c] of [[0, 0], [100, 7], [511, 300]]) {
    await page.mouse.move(box.x + ((c + 0.5) * box.width) / 512, box.y + ((r + 0.5) * box.height) / 512);
    const weight = Number((await page.textContent('#step-5 .matrix-canvas[data-matrix="Weights"] .heat-readout')).split(' = ')[1]);
    const pixel = await page.locator('#step-5 canvas[data-matrix="Weights"]').evaluate((canvas, [y, x]) => [...canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3)], [r, c]);
    const want = viridis(weight);
    assert.ok(pixel.every((v, k) => Math.abs(v - want[k]) <= 2), `Weights[${r}, ${c}] = ${weight}: pixel ${pixel}, expected ${want}`);
  }

  // one more token recomputes everything (how fast is `npm run bench`'s job, not a test's)
  await page.click('#overview');
  await openStep(page, 5);
  await page.evaluate(() => {
    const input = document.getElementById('sentence');
    input.value += '好';
    input.dispatchEvent(new Event('input'));
  });
  // above 128 × 128 attention cells typing updates after the next paint (coalesced)
  await page.waitForFunction(() => document.getElementById('token-count').textContent === '513 tokens');
}));

test('phone width: nothing wider than the screen', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { viewport: { width: 375, height: 800 } });
  try {
    await page.click('#overview');
    assert.equal(await page.evaluate(() => document.documentElement.scrollWidth), 375);
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
    await page.goto(`${server.url}?example=tutorial`);
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
    // in Chinese: the language chosen above is remembered
    assert.match(await page.textContent('.status-error'), /引擎加载失败（attention-engine\.js did not load）/);
  } finally {
    await context.close();
  }
});

test('the page is one <attention-visualizer mode="full">: its layout in the document, its state the link\'s, replace before a preset', onFreshPage(async (page) => {
  const shape = await page.evaluate(() => {
    const elements = document.querySelectorAll('attention-visualizer');
    const v = elements[0];
    return {
      count: elements.length, mode: v.getAttribute('mode'), shadow: v.shadowRoot === null,
      inside: ['steps', 'pipeline', 'edit-toggle', 'edit-panel', 'share-tools'].every((id) => v.contains(document.getElementById(id))),
      chrome: ['storage-notice', 'lang-toggle', 'skip-link'].every((id) => !v.contains(document.getElementById(id))),
      step: v.state.view.step, x: v.state.x, hash: location.hash.startsWith('#av1.'),
    };
  });
  assert.deepEqual(shape, { count: 1, mode: 'full', shadow: true, inside: true, chrome: true, step: 'input', x: TUTORIAL.x, hash: true });
  // a preset chosen in the element: `replace` comes first, with the preset's state, while the tutorial is still on screen
  await openEditor(page);
  const seen = await page.evaluate(() => new Promise((resolve) => {
    const v = document.querySelector('attention-visualizer');
    v.addEventListener('replace', (event) => resolve({ shown: v.state.tokens, coming: event.detail.state.tokens }), { once: true });
    document.querySelector('[data-preset="english"]').click();
  }));
  assert.deepEqual(seen, { shown: ['我', '爱', '你'], coming: PRESETS.english.sentence.split(' ') });
  // a message over the steps until the next whole state
  await page.evaluate(() => { document.querySelector('attention-visualizer').statusMessage = { key: 'errStateHash', params: {} }; });
  assert.equal(await page.locator('#status .status-error').count(), 1);
  await page.click('[data-preset="tutorial"]');
  assert.equal(await page.locator('#status .status-error').count(), 0);
}));

// An edit of a large input (over 128² attention cells) with all steps shown writes the steps
// in view at once and each step out of view in a task of its own (steps.js settleSteps): once
// settled, every step shows what the same input shows when the page opens on it anew (its link).
test('page: a large input edited with all steps shown: the steps out of view follow, each as a fresh page shows it', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { viewport: { width: 1280, height: 700 } });
  const sentence = Array.from({ length: 130 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join('');
  await page.fill('#sentence', sentence);
  await page.fill('#seed', '7');
  await page.click('#fill-random');
  await page.click('#overview');
  const pending = () => page.evaluate(() => [...document.querySelectorAll('#steps [data-pending]')].map((li) => li.dataset.step));
  const settled = () => page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  await settled();
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => { document.querySelector('#editor-x details').open = true; });
  await page.waitForFunction(() => document.getElementById('x-text').value !== '');
  // X's first number changed through its text box; right after Apply the output step, far
  // below, still waits
  const waiting = await page.evaluate(() => {
    const area = document.getElementById('x-text');
    area.value = area.value.replace(/^ *[^ \n]+/, '2.5');
    area.closest('details').querySelector('button.apply').click();
    return [...document.querySelectorAll('#steps [data-pending]')].map((li) => li.dataset.step);
  });
  assert.ok(waiting.includes('output'), `the output step waits (pending: ${waiting})`);
  await settled();
  assert.deepEqual(await pending(), []);
  // every heatmap and note of every step, as the page shows them
  const pictures = (p) => p.evaluate(() => [...document.querySelectorAll('#steps > li')].map((li) => ({
    step: li.dataset.step,
    canvases: [...li.querySelectorAll('canvas.heat-canvas')].map((canvas) => `${canvas.dataset.matrix} ${canvas.toDataURL()}`),
    notes: [...li.querySelectorAll('.step-note, .formula')].map((note) => note.textContent),
  })));
  const edited = await pictures(page);
  assert.ok(edited.find((s) => s.step === 'output').canvases.length > 0, 'the output is a heatmap');
  const fresh = await context.newPage();
  await fresh.goto(`${FILE_URL}${await page.evaluate(() => location.hash)}`);
  await waitForSteps(fresh);
  await fresh.waitForFunction(() => document.querySelector('#steps [data-step="output"] canvas') !== null
    && document.querySelector('#steps [data-pending], canvas[data-painting]') === null);
  assert.deepEqual(edited, await pictures(fresh));
  assert.deepEqual(problems, []);
  await context.close();
});

// How it learns (its backward pass, worked arithmetic and gradients) waits while out of
// view, at any size (steps.js lazy): once settled it shows what a fresh page of the same link shows.
test('page: How it learns, out of view, follows an edit a frame later, as a fresh page shows it', async () => {
  const { context, page, problems } = await openPage(FILE_URL, { viewport: { width: 1280, height: 700 } });
  await page.click('#overview');
  await page.evaluate(() => window.scrollTo(0, 0));
  const learnText = (p) => p.evaluate(() => document.querySelector('#steps [data-step="learn"]').textContent);
  // types into X[0, 0]; whether the step waits when the page has rendered the edit
  const type = (text) => page.evaluate((value) => new Promise((resolve) => {
    const root = document.documentElement;
    new MutationObserver((_, observer) => {
      observer.disconnect();
      resolve(document.querySelector('#steps [data-step="learn"]').hasAttribute('data-pending'));
    }).observe(root, { attributeFilter: ['data-render-count'] });
    const input = document.querySelector('#editor-x input[data-r="0"][data-c="0"]');
    input.value = value;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  }), text);
  // a first edit leaves the tutorial (the steps are built again, without its misprints)
  await type('0.5');
  await page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  const before = await learnText(page);
  const pendingAfterTyping = await type('0.25');
  assert.equal(pendingAfterTyping, true, 'the step out of view waits');
  await page.waitForFunction(() => document.querySelector('#steps [data-pending]') === null);
  const edited = await learnText(page);
  assert.notEqual(edited, before, 'the edit changed what the step shows');
  const fresh = await context.newPage();
  await fresh.goto(`${FILE_URL}${await page.evaluate(() => location.hash)}`);
  await waitForSteps(fresh);
  assert.equal(edited, await learnText(fresh));
  assert.deepEqual(problems, []);
  await context.close();
});
