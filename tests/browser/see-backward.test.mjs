// The backward pass of "How it learns" as the page shows it, with masks, cross-attention and
// positional encoding: every gradient heatmap's values and, for every cell of every gradient,
// show-the-work's formula (the cells named as the forward pass names them, the sources X+PE,
// C, C+PE_C) and each number of its arithmetic, term by term, against numpy's chain rule
// (tests/make_see_backward_fixtures.py → tests/fixtures/see_backward_cases.json), never against
// the engine. Built page (dist/), file://, English, 8 decimals.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';

const FILE_URL = `${pathToFileURL(path.resolve('dist/index.html')).href}?example=tutorial`;
const CASES = JSON.parse(readFileSync(new URL('../fixtures/see_backward_cases.json', import.meta.url), 'utf8'));
const DECIMALS = 8;

let browser;
before(async () => { browser = await launchChromium(); });
after(async () => { await browser?.close(); });

// The page's state of a fixture case: its one head, its options, its goal as a custom target.
function stateOf(c) {
  const o = c.options;
  return {
    ...tutorialState('en'),
    tokens: c.tokens,
    x: c.x,
    heads: [c.head],
    ...(o.cross ? { context: { tokens: c.keyTokens, x: c.c } } : {}),
    scaleBySqrtDk: o.scaleBySqrtDk,
    causal: o.causal,
    keyPadding: o.keyPadding,
    temperature: o.temperature,
    positionalEncoding: o.positionalEncoding,
    view: { step: 'learn', head: 0, lang: 'en', decimals: DECIMALS },
    learn: { goal: 'custom', target: c.target },
  };
}

const GRADIENTS = { dWeights: '∂L/∂Weights', dScaled: '∂L/∂Scaled', dScores: '∂L/∂Scores', dQ: '∂L/∂Q', dK: '∂L/∂K', dWq: '∂L/∂W_Q', dWk: '∂L/∂W_K' };
const numbers = (line) => (line.match(/-?\d+(?:\.\d+)?(?:e[+-]?\d+)?/g) || []).map(Number);
const col = (m, k) => m.map((row) => row[k]);
const pairs = (a, b) => a.flatMap((v, k) => [v, b[k]]);
const dim = (k) => `d${k + 1}`;
const within = (got, want, tol, what) => assert.ok(Math.abs(got - want) <= tol * Math.max(1, Math.abs(want)), `${what}: page ${got}, numpy ${want}`);
// a number shown with 8 decimals is within half a unit of its last place
const SHOWN = 0.5e-8 + 1e-12;
const expectNumbers = (line, want, what) => {
  const got = numbers(line);
  assert.equal(got.length, want.length, `${what}: ${line}`);
  want.forEach((v, k) => within(got[k], v, SHOWN, `${what}, number ${k + 1} of "${line}"`));
};

// Every line show-the-work must print for cell (r, k) of gradient `key`, as [text or null, numbers].
function expectedWork(c, key, r, k) {
  const { tokens, keyTokens, weights: W, dWeights: dW, target } = c;
  const pair = `[${tokens[r]}, ${keyTokens[k]}]`;
  const qName = c.options.positionalEncoding ? 'X+PE' : 'X';
  const kName = c.options.cross ? (c.options.positionalEncoding ? 'C+PE_C' : 'C') : qName;
  if (key === 'dWeights') {
    if (target[r][k] === 0 || c.masked[r][k]) return [[`∂L/∂Weights${pair} = 0`], ['This cell has no target (or is masked): the loss does not depend on its weight directly.']];
    return [[`∂L/∂Weights${pair} = −target / (Weights${pair} · n_q)`], [null, [target[r][k], W[r][k], tokens.length, dW[r][k]]]];
  }
  if (key === 'dScaled') {
    const dot = W[r].reduce((sum, w, m) => sum + w * dW[r][m], 0);
    return [[`∂L/∂Scaled${pair} = Weights${pair} · (∂L/∂Weights${pair} − Σ_k Weights[${tokens[r]}, k] · ∂L/∂Weights[${tokens[r]}, k])`],
      [null, [...pairs(W[r], dW[r]), dot]], [null, [W[r][k], dW[r][k], dot, c.dScaled[r][k]]]];
  }
  if (key === 'dScores') return [[`∂L/∂Scores${pair} = ∂L/∂Scaled${pair} ÷ the scale`], [null, [c.dScaled[r][k], c.divisor, c.dScores[r][k]]]];
  if (key === 'dQ') {
    return [[`∂L/∂Q[${tokens[r]}, ${dim(k)}] = Σ_j ∂L/∂Scores[${tokens[r]}, j] · K[j, ${dim(k)}]`], [null, [...pairs(c.dScores[r], col(c.k, k)), c.dQ[r][k]]]];
  }
  if (key === 'dK') {
    return [[`∂L/∂K[${keyTokens[r]}, ${dim(k)}] = Σ_i ∂L/∂Scores[i, ${keyTokens[r]}] · Q[i, ${dim(k)}]`], [null, [...pairs(col(c.dScores, r), col(c.q, k)), c.dK[r][k]]]];
  }
  const [name, source, x, d] = key === 'dWq' ? ['W_Q', qName, c.xq, c.dQ] : ['W_K', kName, c.xk, c.dK];
  return [[`∂L/∂${name}[${dim(r)}, ${dim(k)}] = Σ_t ${source}[t, ${dim(r)}] · ∂L/∂${name.slice(2)}[t, ${dim(k)}]`],
    [null, [...pairs(col(x, r), col(d, k)), c[key][r][k]]]];
}

for (const [name, c] of Object.entries(CASES)) {
  test(`the backward pass on screen (${name}: ${[c.options.causal && 'causal', c.options.keyPadding.some(Boolean) && 'key padding', c.options.cross && 'cross-attention',
    c.options.positionalEncoding && 'positional encoding', !c.options.scaleBySqrtDk && 'unscaled', c.options.temperature !== 1 && `T = ${c.options.temperature}`].filter(Boolean).join(', ')}): every gradient and every number of its work are numpy's`, async () => {
    const context = await browser.newContext({ locale: 'en-US' });
    const page = await context.newPage();
    page.setDefaultTimeout(10000);
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
    try {
      await page.goto(`${FILE_URL}#${encodeHash(stateOf(c))}`);
      await page.waitForSelector('.learn-status');
      await page.waitForFunction(() => document.querySelector('.learn-goal-choice[data-goal="custom"]')?.getAttribute('aria-checked') === 'true');
      const loss = await page.$eval('.learn-status', (n) => Number(n.dataset.loss));
      within(loss, c.loss, 1e-12, 'loss');
      const matrix = (title) => page.$eval(`.learn table[data-matrix="${title}"]`, (table) => [...table.querySelectorAll('tbody tr')]
        .map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.dataset.value))));
      // the forward pass the backward pass starts from
      (await matrix('Weights')).forEach((row, i) => row.forEach((v, j) => within(v, c.weights[i][j], 1e-12, `Weights[${i}][${j}]`)));
      for (const [key, title] of Object.entries(GRADIENTS)) {
        const got = await matrix(title);
        assert.equal(got.length, c[key].length, `${title}: rows`);
        c[key].forEach((row, i) => {
          assert.equal(got[i].length, row.length, `${title}[${i}]: columns`);
          row.forEach((v, j) => within(got[i][j], v, 1e-9, `${title}[${i}][${j}]`));
        });
      }
      await page.mouse.move(0, 0); // a cell under the pointer is shown too
      for (const [key, title] of Object.entries(GRADIENTS)) {
        // each cell focused in turn (as the keyboard does), its work read at once: [r][k] → lines
        const works = await page.$$eval(`.learn table[data-matrix="${title}"] td[data-r]`, (tds) => tds.map((td) => {
          td.focus();
          return { r: Number(td.dataset.r), k: Number(td.dataset.c), lines: [...document.querySelectorAll('.learn-backward .work p')].map((p) => p.textContent) };
        }));
        assert.equal(works.length, c[key].length * c[key][0].length, `${title}: cells`);
        for (const { r, k, lines } of works) {
          const what = `${title}[${r}][${k}]`;
          for (const [index, [text, values]] of expectedWork(c, key, r, k).entries()) {
            if (text !== null) assert.equal(lines[index], text, `${what}, line ${index + 1}`);
            else expectNumbers(lines[index], values, `${what}, line ${index + 1}`);
          }
        }
      }
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
