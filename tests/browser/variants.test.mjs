// Browser tests of the variant controls (issue 4): heads and W_O, causal
// mask, padding, temperature, the √d_k switch, positional encoding and
// cross-attention, the heads grid, the comparison and masked cells. Expected
// numbers come from the numpy fixtures (tests/fixtures/variant_cases.txt) or
// from plain JS here, never from the engine. One browser; each test on a fresh
// page, so that any test runs alone.
import { test, before, after, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadBiasCases, loadVariantCases, maxAbs, TUTORIAL, TUTORIAL_EXPECTED } from '../js/fixtures.mjs';
import { launchChromium } from './chromium.mjs';
import { encodeHash } from '../../web/src/state/link.js';
import { waitForSteps, openEditor, openStep } from './ui.mjs';

const FILE_URL = `${pathToFileURL(path.resolve('dist', 'index.html')).href}?example=tutorial`;
const CASES = Object.fromEntries(loadVariantCases().map((c) => [c.name, c]));
// torch's nn.MultiheadAttention(bias=True) (tests/make_bias_fixtures.py)
const BIAS_CASES = Object.fromEntries(loadBiasCases().map((c) => [c.name, c]));

let browser;
let context;
let page;
let problems;

before(async () => {
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
});

beforeEach(async () => {
  context = await browser.newContext({ locale: 'en-US' });
  page = await context.newPage();
  page.setDefaultTimeout(5000);
  problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(FILE_URL);
  await waitForSteps(page);
  await openEditor(page);
});

afterEach(async () => {
  await context.close();
  assert.deepEqual(problems, [], 'no console or page errors');
});

// ---- plain-JS reference (independent of the engine) ----

const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, v, k) => sum + v * b[k][j], 0)));
const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));
const peValue = (pos, c, d) => (c % 2 === 0 ? Math.sin(pos / 10000 ** (c / d)) : Math.cos(pos / 10000 ** ((c - 1) / d)));
const withPe = (m) => m.map((row, pos) => row.map((v, c) => v + peValue(pos, c, row.length)));

function reference({ x, heads, wo, context: ctx, causal = false, keyPadding, scale = true, temperature = 1, pe = false }) {
  const X = pe ? withPe(x) : x;
  const C = ctx ? (pe ? withPe(ctx) : ctx) : X;
  const masked = X.map((_, i) => C.map((_, j) => (causal && j > i) || Boolean(keyPadding && keyPadding[j])));
  const results = heads.map(({ wq, wk, wv }) => {
    const Q = matmul(X, wq);
    const K = matmul(C, wk);
    const V = matmul(C, wv);
    const scores = matmul(Q, transpose(K));
    const divisor = (scale ? Math.sqrt(wq[0].length) : 1) * temperature;
    const scaled = scores.map((row, i) => row.map((s, j) => (masked[i][j] ? -Infinity : s / divisor)));
    const weights = scaled.map((row) => {
      if (row.every((s) => s === -Infinity)) return row.map(() => 0);
      const max = Math.max(...row);
      const e = row.map((s) => Math.exp(s - max));
      const total = e.reduce((a, b) => a + b, 0);
      return e.map((v) => v / total);
    });
    return { Q, K, V, scores, scaled, weights, output: matmul(weights, V) };
  });
  const concat = X.map((_, i) => results.flatMap((r) => r.output[i]));
  return { heads: results, concat, output: wo ? matmul(concat, wo) : concat, masked };
}

// ---- page helpers ----

// The tutorial preset, every step shown.
async function reset() {
  await page.click('[data-preset="tutorial"]');
  if (await page.getAttribute('#overview', 'aria-pressed') !== 'true') await page.click('#overview');
}

// A matrix shown in the steps, from the full values in the cells' data-value
// (a masked score's data-value is "-Infinity").
function readMatrix(name, scope = '#steps') {
  return page.evaluate(([wanted, root]) => {
    const table = document.querySelector(`${root} table[data-matrix="${wanted}"]`);
    if (!table) return null;
    return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value)));
  }, [name, scope]);
}

function cellTexts(name, scope = '#steps') {
  return page.evaluate(([wanted, root]) => {
    const table = document.querySelector(`${root} table[data-matrix="${wanted}"]`);
    return [...table.querySelectorAll('tbody tr')].map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => ({
      text: td.textContent, masked: td.classList.contains('masked'),
    })));
  }, [name, scope]);
}

// Within 1e-12 of the expected matrix's magnitude; −∞ only where expected.
function assertClose(actual, expected, label) {
  assert.ok(actual, `${label} is shown`);
  assert.equal(actual.length, expected.length, `${label} rows`);
  const tolerance = 1e-12 * Math.max(1, maxAbs(expected));
  expected.forEach((row, i) => {
    assert.equal(actual[i].length, row.length, `${label} row ${i} length`);
    row.forEach((value, j) => {
      const ok = value === -Infinity ? actual[i][j] === -Infinity : Math.abs(actual[i][j] - value) <= tolerance;
      assert.ok(ok, `${label}[${i}][${j}] = ${actual[i][j]}, expected ${value}`);
    });
  });
}

// Replaces a matrix through its "paste as text" box.
async function applyText(editor, matrix) {
  await page.locator(`#editor-${editor}`).evaluate((container, text) => {
    const area = container.querySelector('textarea');
    area.value = text;
    area.dispatchEvent(new Event('input'));
    container.querySelector('.apply').click();
  }, matrix.map((row) => row.join('\t')).join('\n'));
  assert.equal(await page.textContent(`#${editor}-error`), '', `${editor} applied`);
}

async function setCheck(id, on) {
  if (await page.isChecked(`#${id}`) !== on) await page.click(`#${id}`);
}

async function setPadding(list, pads) {
  for (let j = 0; j < pads.length; j++) {
    const button = page.locator(`#${list} li:nth-child(${j + 1}) .token-pad`);
    if ((await button.getAttribute('aria-pressed') === 'true') !== pads[j]) await button.click();
  }
}

const words = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix}${i + 1}`).join(' ');

// Types a fixture's inputs and options into the page's controls.
async function loadCase(c) {
  const { input } = c;
  await reset();
  await page.selectOption('#token-mode', 'space');
  await page.fill('#sentence', words('q', input.x.length));
  await applyText('x', input.x);
  await setCheck('cross', Boolean(input.context));
  if (input.context) {
    await page.fill('#context-sentence', words('k', input.context.length));
    await applyText('c', input.context);
  }
  await page.fill('#heads', String(input.heads.length));
  const biases = input.heads.some((head) => head.bq) || Boolean(input.bo);
  await setCheck('use-bias', biases);
  for (let h = 0; h < input.heads.length; h++) {
    if (input.heads.length > 1) await page.click(`#edit-heads .head-tab[data-head="${h}"]`);
    for (const w of ['wq', 'wk', 'wv']) await applyText(w, input.heads[h][w]);
    for (const b of ['bq', 'bk', 'bv']) if (input.heads[h][b]) await applyText(b, [input.heads[h][b]]);
  }
  await setCheck('use-wo', Boolean(input.wo));
  if (input.wo) await applyText('wo', input.wo);
  if (input.bo) await applyText('bo', [input.bo]);
  await setCheck('causal', input.causal);
  await setCheck('scale-by-sqrt-dk', input.scaleBySqrtDk);
  await page.fill('#temperature', String(input.temperature));
  await setCheck('positional-encoding', input.positionalEncoding);
  await setPadding(input.context ? 'context-token-list' : 'token-list', input.keyPadding || input.x.map(() => false));
  assert.equal(await page.locator('.status-stale, .status-error').count(), 0, `${c.name}: inputs accepted`);
}

// Every head's scaled scores and weights, concat and output against numpy.
async function assertCase(c) {
  const h = c.input.heads.length;
  for (let i = 0; i < h; i++) {
    if (h > 1) await page.click(`#view-heads .head-tab[data-head="${i}"]`);
    assertClose(await readMatrix('Scaled'), c[`h${i}.scaled`], `${c.name} head ${i} Scaled`);
    assertClose(await readMatrix('Weights'), c[`h${i}.weights`], `${c.name} head ${i} Weights`);
  }
  if (h > 1) assertClose(await readMatrix('Concat'), c.concat, `${c.name} Concat`);
  assertClose(await readMatrix('Output'), c.output, `${c.name} Output`);
  if (c.pe) assertClose(await readMatrix('PE'), c.pe, `${c.name} PE`);
}

// ---- tests ----

test('the default is plain single-head attention: six steps and How it learns, no masks, no head tabs', async () => {
  await reset();
  assert.equal(await page.locator('#steps > li').count(), 7);
  assert.equal(await page.isHidden('#view-heads'), true);
  assert.equal(await page.isHidden('#editor-wo'), true);
  assert.equal(await page.isHidden('#context-panel'), true);
  assert.equal(await page.locator('#steps td.masked').count(), 0);
  assert.equal(await page.locator('#steps .compare').count(), 0);
  assert.equal(await page.isChecked('#scale-by-sqrt-dk'), true);
  assert.equal(await page.inputValue('#temperature'), '1');
  assertClose(await readMatrix('Weights'), TUTORIAL_EXPECTED.weights, 'Weights');
});

test('causal mask: −∞ before the softmax, 0 after, hatched; numpy values; before/after comparison', async () => {
  await reset();
  await page.check('#causal');
  const c = CASES.tutorial_causal;
  assertClose(await readMatrix('Scaled'), c['h0.scaled'], 'Scaled');
  assertClose(await readMatrix('Weights'), c['h0.weights'], 'Weights');
  assertClose(await readMatrix('Output'), c.output, 'Output');
  const scaled = await cellTexts('Scaled');
  assert.deepEqual(scaled[0].map((cell) => [cell.text, cell.masked]), [[c['h0.scaled'][0][0].toFixed(4), false], ['−∞', true], ['−∞', true]]);
  const weights = await cellTexts('Weights');
  assert.deepEqual(weights[1][2], { text: '0', masked: true });
  assert.equal(weights[1][1].masked, false);
  assert.match(await page.textContent('#steps [data-step="scale"]'), /Hatched cells are masked.*−∞/);

  // the comparison: before (no mask), after, and after − before
  const compare = '#steps .compare';
  assert.match(await page.textContent(`${compare} .compare-changes`), /causal mask: off → on/);
  assertClose(await readMatrix('Before', compare), TUTORIAL_EXPECTED.weights, 'Before');
  assertClose(await readMatrix('After', compare), c['h0.weights'], 'After');
  const difference = c['h0.weights'].map((row, i) => row.map((v, j) => v - TUTORIAL_EXPECTED.weights[i][j]));
  assertClose(await readMatrix('Difference', compare), difference, 'Difference');
  assert.equal(await page.locator(`${compare} table[data-matrix="Difference"].signed`).count(), 1, 'diverging colours');
  await page.click(`${compare} .compare-close`);
  assert.equal(await page.locator(compare).count(), 0);
});

test('padding: a toggle on each token chip; a fully masked row gets a note and zeros', async () => {
  await reset();
  await page.click('#token-list li:nth-child(3) .token-pad');
  assert.equal(await page.getAttribute('#token-list li:nth-child(3) .token-pad', 'aria-pressed'), 'true');
  const c = CASES.tutorial_padding_last;
  assertClose(await readMatrix('Weights'), c['h0.weights'], 'Weights (padding last)');
  assert.match(await page.textContent('#steps .compare-changes'), /padding: none → 你/);
  await page.click('#token-list li:nth-child(3) .token-pad');
  await page.click('#token-list li:nth-child(1) .token-pad');
  await page.check('#causal');
  const d = CASES.tutorial_causal_padding_first;
  assertClose(await readMatrix('Weights'), d['h0.weights'], 'Weights (causal, first padded)');
  assertClose(await readMatrix('Output'), d.output, 'Output (causal, first padded)');
  assert.deepEqual(d.fullyMasked[0].map(Boolean), [true, false, false]);
  assert.match(await page.textContent('#steps .fully-masked'), /every key is masked for 我.*PyTorch gives NaN/);
  assert.deepEqual((await cellTexts('Weights'))[0].map((cell) => cell.text), ['0', '0', '0']);
  // its arithmetic says why
  await page.click('#overview');
  await openStep(page, 5);
  await page.click('#step-5 table[data-matrix="Weights"] td[data-r="0"][data-c="1"]');
  const lines = await page.locator('#step-5 .work p').allTextContents();
  assert.equal(lines[0], 'Weights[我, 爱] = 0');
  assert.match(lines.join(' '), /Every key of 我 is masked/);
});

test('temperature and the √d_k switch: values, arithmetic, errors and the comparison', async () => {
  await reset();
  await page.fill('#temperature', '0.5');
  assertClose(await readMatrix('Weights'), CASES['tutorial_temperature0.5']['h0.weights'], 'T = 0.5');
  assert.match(await page.textContent('#steps .compare-changes'), /temperature: 1 → 0\.5/);
  assert.match(await page.textContent('#steps [data-step="scale"] .formula'), /Scaled = Scores \/ √d_k \/ T/);
  await page.hover('#steps table[data-matrix="Scaled"] td[data-r="1"][data-c="1"]');
  const s = TUTORIAL_EXPECTED.scores[1][1];
  const expected = (s / Math.SQRT2 / 0.5).toFixed(4).replace(/\.?0+$/, '');
  assert.equal(await page.locator('#steps [data-step="scale"] .work-main').textContent(), `Scaled[爱, 爱] = 0.29 / √2 / 0.5 = 0.29 / 1.4142 / 0.5 = ${expected}`);
  for (const bad of ['0', '-1', 'abc', 'Infinity', '']) {
    await page.fill('#temperature', bad);
    assert.match(await page.textContent('#temperature-error'), /finite number above 0/, bad);
    assert.equal(await page.getAttribute('#temperature', 'aria-invalid'), 'true');
    assert.equal(await page.locator('.status-stale').count(), 1);
  }
  await page.fill('#temperature', '2');
  assertClose(await readMatrix('Weights'), CASES.tutorial_temperature2['h0.weights'], 'T = 2');
  assert.match(await page.textContent('#steps .compare-changes'), /temperature: 1 → 2/, 'the "before" stays while typing');
  // the comparison and the lines kept from T = 0.5 (updated in place) show T = 2's numbers
  const after = CASES.tutorial_temperature2['h0.weights'];
  assertClose(await readMatrix('Before', '#steps .compare'), TUTORIAL_EXPECTED.weights, 'Before, T = 2');
  assertClose(await readMatrix('After', '#steps .compare'), after, 'After, T = 2');
  assertClose(await readMatrix('Difference', '#steps .compare'), after.map((row, i) => row.map((v, j) => v - TUTORIAL_EXPECTED.weights[i][j])), 'Difference, T = 2');
  const opacities = await page.locator('#steps [data-step="softmax"] .weight-line').evaluateAll((lines) => lines.map((l) => l.getAttribute('stroke-opacity')));
  assert.deepEqual(opacities, after.flat().map((w) => w.toFixed(4)));

  await page.fill('#temperature', '1');
  await page.uncheck('#scale-by-sqrt-dk');
  assertClose(await readMatrix('Scaled'), CASES.tutorial_no_scaling['h0.scaled'], 'no scaling');
  assertClose(await readMatrix('Weights'), CASES.tutorial_no_scaling['h0.weights'], 'no scaling');
  assert.match(await page.textContent('#steps .compare-changes'), /divide by √d_k: on → off/);
  assert.match(await page.textContent('#steps [data-step="scale"]'), /Not divided by √d_k \(d_k = 2\)/);
  await page.fill('#temperature', '3');
  assertClose(await readMatrix('Weights'), CASES.tutorial_no_scaling_temperature3['h0.weights'], 'no scaling, T = 3');
});

test('positional encoding: its own step with PE and X + PE, and the arithmetic of a PE cell', async () => {
  await reset();
  await page.check('#positional-encoding');
  assert.equal(await page.locator('#steps > li').count(), 8); // with PE's step and How it learns
  assert.equal(await page.getAttribute('#step-2', 'data-step'), 'pe');
  const c = CASES.tutorial_pe;
  assertClose(await readMatrix('PE'), c.pe, 'PE');
  assertClose(await readMatrix('X+PE'), c.xWithPe, 'X+PE');
  assertClose(await readMatrix('Weights'), c['h0.weights'], 'Weights');
  assertClose(await readMatrix('Output'), c.output, 'Output');
  await page.hover('#step-2 table[data-matrix="PE"] td[data-r="2"][data-c="0"]');
  assert.equal(await page.locator('#step-2 .work-main').textContent(), `PE[你, d1] = sin(2 / 10000^(0/2)) = sin(2 / 1) = sin(2) = ${Math.sin(2).toFixed(4)}`);
  await page.hover('#step-2 table[data-matrix="X+PE"] td[data-r="1"][data-c="1"]');
  assert.equal(await page.locator('#step-2 .work-main').textContent(), `X+PE[爱, d2] = 0.5 + ${Math.cos(1).toFixed(4)} = ${(0.5 + Math.cos(1)).toFixed(4)}`);
  // Q is projected from X + PE, and says so
  await page.hover('#step-3 table[data-matrix="Q"] td[data-r="0"][data-c="0"]');
  assert.match(await page.locator('#step-3 .work p').nth(1).textContent(), /Row 我 of X\+PE/);
});

test('ALiBi: its check box adds the Bias step (numpy\'s −m·|i − j|), the diagram\'s +B and Bias to the export list; Scaled and Weights are numpy\'s', async () => {
  await reset();
  await page.check('#alibi');
  const c = CASES.tutorial_alibi;
  assert.equal(await page.getAttribute('#step-4', 'data-step'), 'bias');
  assert.equal(await page.locator('#pipeline [data-stage="bias"]').count(), 1);
  assertClose(await readMatrix('Bias'), c['h0.bias'], 'Bias');
  assertClose(await readMatrix('Scaled'), c['h0.scaled'], 'Scaled');
  assertClose(await readMatrix('Weights'), c['h0.weights'], 'Weights');
  assertClose(await readMatrix('Output'), c.output, 'Output');
  assert.match(await page.textContent('#steps .compare-changes'), /ALiBi bias: off → on/);
  await page.hover('#step-4 table[data-matrix="Bias"] td[data-r="0"][data-c="2"]');
  assert.match(await page.locator('#step-4 .work-main').textContent(), /^Bias\[我, 你\] = −0\.0039 × \|0 − 2\| = [-−]0\.0078$/);
  assert.match(await page.textContent('#step-5 .formula'), /Scaled = Scores \/ √d_k \+ Bias/);
  // the export panel is drawn anew with the bias in its list (it was only when PE, the heads, W_O or C changed)
  const exported = await page.$$eval('#share-tools select[data-focus-id="export-matrix"] option', (options) => options.map((o) => o.value));
  assert.deepEqual(exported, ['X', 'Bias', 'W_Q', 'W_K', 'W_V', 'Q', 'K', 'V', 'Scores', 'Scaled', 'Weights', 'Output']);
});

test("biases: a link with b_Q, b_K, b_V and b_O shows + b_Q with nn.MultiheadAttention(bias=True)'s numbers; a bias cell typed in the editor moves Q; the check box takes them out", async () => {
  const c = BIAS_CASES.cross_nq3_nk5_dctx3_heads2;
  const state = { ...c.state, tokens: c.state.tokens.map((_, i) => `q${i + 1}`), view: { lang: 'en', step: 'all' } };
  await page.goto(`${FILE_URL}#${encodeHash(state)}`);
  await waitForSteps(page);
  for (let h = 0; h < 2; h++) {
    await page.click(`#view-heads .head-tab[data-head="${h}"]`);
    for (const [name, key] of [['Q', 'q'], ['K', 'k'], ['V', 'v'], ['Weights', 'weights']]) assertClose(await readMatrix(name), c[`h${h}.${key}`], `head ${h} ${name}`);
  }
  assertClose(await readMatrix('Output'), c.output, 'Output');
  assertClose(await readMatrix('b_Q'), [c.input.heads[1].bq], 'b_Q shown');
  assert.equal(await page.textContent('#step-2 .formula'), 'Q = X·W_Q + b_Q,  K = C·W_K + b_K,  V = C·W_V + b_V');
  assert.match(await page.textContent('#steps li[data-step="wo"] .formula'), /^Output = Concat·W_O \+ b_O/);
  assert.match(await page.textContent('#pipeline [data-stage="q"]'), /^Q\+b/);
  await page.hover('#step-2 table[data-matrix="Q"] td[data-r="1"][data-c="0"]');
  const bias = c.input.heads[1].bq[0].toFixed(4).replace(/^-(.*)$/, '(-$1)');
  assert.match(await page.locator('#step-2 .work-main').textContent(), new RegExp(`^Q\\[q2, d1\\] = .* \\+ ${bias.replace(/[()]/g, '\\$&')} = `));
  // the editor: b_Q right under W_Q; head 2's b_Q[d1] typed 1 higher moves Q's column d1 by 1
  await openEditor(page);
  assert.equal(await page.isChecked('#use-bias'), true);
  await page.click('#edit-heads .head-tab[data-head="1"]');
  await page.fill('#editor-bq input[data-r="0"][data-c="0"]', String(c.input.heads[1].bq[0] + 1));
  await page.waitForFunction(() => document.querySelector('#steps table[data-matrix="b_Q"] td[data-r="0"][data-c="0"]')?.dataset.value !== undefined);
  await page.waitForFunction((want) => Math.abs(Number(document.querySelector('#steps table[data-matrix="Q"] td[data-r="0"][data-c="0"]').dataset.value) - want) < 1e-9, c['h1.q'][0][0] + 1);
  // turned off, the biases leave the computation
  await setCheck('use-bias', false);
  await page.waitForFunction(() => !document.querySelector('#steps table[data-matrix="b_Q"]'));
  assert.equal(await page.textContent('#step-2 .formula'), 'Q = X·W_Q,  K = C·W_K,  V = C·W_V');
});

test('heads: each with its own grids (new ones filled from the seed), W_O, the heads grid, concat and W_O steps', async () => {
  await reset();
  await page.fill('#heads', '2');
  assert.equal(await page.isVisible('#edit-heads'), true);
  assert.equal(await page.isChecked('#use-wo'), true);
  assert.equal(await page.isDisabled('#use-wo'), true);
  assert.equal(await page.textContent('#editor-wo .grid-shape'), '4 × 2');
  // head 2's W_Q, W_K, W_V and W_O come from the seed (1): mulberry32 streams seed + s·0x9E3779B9
  const stream = (s) => {
    let a = (1 + Math.imul(s, 0x9e3779b9)) >>> 0;
    return () => {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  };
  const draw = (next, rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((next() * 2 - 1) * 100) / 100 + 0));
  const next = stream(1);
  const head2 = { wq: draw(next, 2, 2), wk: draw(next, 2, 2), wv: draw(next, 2, 2) };
  const wo = draw(stream(9), 4, 2);
  await page.click('#edit-heads .head-tab[data-head="1"]');
  const grid = (field) => page.evaluate((f) => {
    const rows = [];
    for (const input of document.querySelectorAll(`#editor-${f} .grid input`)) (rows[Number(input.dataset.r)] ||= []).push(Number(input.value));
    return rows;
  }, field);
  for (const w of ['wq', 'wk', 'wv']) assert.deepEqual(await grid(w), head2[w], `head 2 ${w}`);
  assert.deepEqual(await grid('wo'), wo);
  assert.match(await page.textContent('#wq-title'), /head 2/);

  const expected = reference({ x: TUTORIAL.x, heads: [TUTORIAL, head2], wo });
  assert.deepEqual(await page.locator('#steps > li').evaluateAll((lis) => lis.map((li) => li.dataset.step)),
    ['input', 'project', 'scores', 'scale', 'softmax', 'output', 'heads', 'concat', 'wo', 'learn']);
  assertClose(await readMatrix('Weights'), expected.heads[1].weights, 'head 2 weights (the edited head is shown)');
  assertClose(await readMatrix('Concat'), expected.concat, 'Concat');
  assertClose(await readMatrix('Output'), expected.output, 'Output');
  assertClose(await readMatrix('head_1'), expected.heads[0].output, 'head_1');

  // show the work of W_O and of concat
  await page.hover('#steps [data-step="wo"] table[data-matrix="Output"] td[data-r="0"][data-c="1"]');
  const row = expected.concat[0];
  const f = (v) => { const t = v.toFixed(4).replace(/\.?0+$/, ''); return t.startsWith('-') ? `(${t})` : t; };
  assert.equal(await page.locator('#steps [data-step="wo"] .work-main').textContent(),
    `Output[我, d2] = ${row.map((v, k) => `${f(v)}×${f(wo[k][1])}`).join(' + ')} = ${expected.output[0][1].toFixed(4).replace(/\.?0+$/, '')}`);
  await page.hover('#steps [data-step="concat"] table[data-matrix="Concat"] td[data-r="2"][data-c="3"]');
  assert.match(await page.locator('#steps [data-step="concat"] .work-main').textContent(), /^Concat\[你, d4\] = head_2\[你, d2\] = /);

  // the heads grid opens a head (by click and by keyboard)
  assert.equal(await page.locator('#steps .head-tile').count(), 2);
  await page.click('#overview');
  await openStep(page, 7);
  await page.focus('#steps .head-open[data-head="0"]');
  await page.keyboard.press('Enter');
  assert.equal(await page.getAttribute('#steps > li', 'data-step'), 'softmax');
  assert.equal(await page.getAttribute('#view-heads .head-tab[data-head="0"]', 'aria-pressed'), 'true');
  assertClose(await readMatrix('Weights'), expected.heads[0].weights, 'head 1 weights');
  assert.match(await page.textContent('#steps [data-step="softmax"] caption'), /head 1/);
  await page.click('#overview');

  // a bad cell in a head that is not shown is reported with its head
  await page.click('#edit-heads .head-tab[data-head="1"]');
  await page.fill('#editor-wk input[data-r="0"][data-c="0"]', 'x');
  await page.click('#edit-heads .head-tab[data-head="0"]');
  assert.match(await page.textContent('#wk-error'), /^Head 2: Row 1, column 1: “x” is not a number/);
  assert.equal(await page.locator('#edit-heads .head-tab.has-error').count(), 1);
  await page.fill('#heads', '9');
  assert.match(await page.textContent('#heads-error'), /from 1 to 8/);
});

test('numpy fixtures through the controls: 3 heads with W_O, W_O on one head, temperature with padding', async () => {
  for (const name of ['heads3_n4_dm6_wo', 'heads1_wo', 'temperature0.3_heads2_padding', 'causal_padding_heads3']) {
    await loadCase(CASES[name]);
    await assertCase(CASES[name]);
  }
});

test('cross-attention: a second sentence gives keys and values; rows from one sentence, columns from the other', async () => {
  await reset();
  await page.check('#cross');
  assert.equal(await page.isVisible('#context-panel'), true);
  assert.equal(await page.inputValue('#context-sentence'), 'I love you .');
  assert.equal(await page.locator('#context-token-list input').count(), 4);
  assert.equal(await page.locator('#token-list .token-pad').count(), 0, 'padding marks the keys: the second sentence');
  const weights = await page.evaluate(() => {
    const table = document.querySelector('#steps table[data-matrix="Weights"]');
    return {
      rows: [...table.querySelectorAll('tbody th')].map((th) => th.textContent),
      cols: [...table.querySelectorAll('thead th.col-label:not(.sum)')].map((th) => th.textContent),
    };
  });
  assert.deepEqual(weights, { rows: ['我', '爱', '你'], cols: ['I', 'love', 'you', '.'] });
  assert.equal(await page.textContent('#editor-c .grid-shape'), '4 × 2');
  assert.equal(await page.textContent('#steps [data-step="project"] .formula'), 'Q = X·W_Q,  K = C·W_K,  V = C·W_V');

  for (const name of ['cross_nq3_nk5_dm4_dctx4_heads1_causal', 'everything_cross_heads4']) {
    await loadCase(CASES[name]);
    await assertCase(CASES[name]);
  }
  // n_q = 5, n_k = 9: K has the second sentence's rows
  assert.equal((await readMatrix('K')).length, 9);
  assert.equal(await page.textContent('#steps table[data-matrix="C+PE_C"] .matrix-shape'), '9 × 6');
});

test('Chinese: the variant controls and notes are translated', async () => {
  await reset();
  await page.click('#lang-toggle');
  await page.check('#causal');
  assert.match(await page.textContent('label[for="heads"]'), /头数/);
  assert.match(await page.textContent('#steps .compare-changes'), /因果掩码：关 → 开/);
  assert.match(await page.textContent('#steps [data-step="softmax"]'), /斜线格是被掩码的位置/);
});

test('phone width with every option on: nothing wider than the screen', async () => {
  const phone = await browser.newContext({ locale: 'en-US', viewport: { width: 375, height: 800 } });
  try {
    const p = await phone.newPage();
    await p.goto(FILE_URL);
    await waitForSteps(p);
    await openEditor(p);
    await p.fill('#heads', '3');
    for (const id of ['causal', 'positional-encoding', 'cross']) await p.check(`#${id}`);
    await p.fill('#temperature', '0.7');
    await p.click('#overview');
    assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 375);
  } finally {
    await phone.close();
  }
});
