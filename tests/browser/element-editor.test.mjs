// The editor of an editable <attention-visualizer> (embed.html?editable) is the
// page's (editor.js): heads and the head in view, W_O, key padding, undo and
// redo, cross-attention's second sentence and its vectors, all through its
// fields; the weights and output it computes match numpy's
// (tests/make_editor_fixtures.py → tests/fixtures/editor_cases.json).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { browserAndServer } from './local.mjs';

const DIST = path.resolve('dist');
const local = browserAndServer(DIST);
const FIXTURES = JSON.parse(readFileSync(new URL('../fixtures/editor_cases.json', import.meta.url), 'utf8'));

const element = 'attention-visualizer';
const cell = (page, id, r, c) => page.locator(`${element} #editor-${id} input[data-r="${r}"][data-c="${c}"]`);

async function fillMatrix(page, id, rows) {
  for (const [r, row] of rows.entries()) {
    for (const [c, value] of row.entries()) await cell(page, id, r, c).fill(String(value));
  }
}

// Waits for the element's state to show `expected` in some of its fields (`pick`) and its result to be of that state.
async function settled(page, pick, expected) {
  await page.waitForFunction(([name, json]) => {
    const v = document.querySelector('attention-visualizer');
    const s = v.state;
    const picked = { heads: () => [s.heads.length, Boolean(s.wo)], head2: () => [s.heads[1], s.wo], padding: () => s.keyPadding, context: () => s.context }[name]();
    return v.result && !v.computing && JSON.stringify(picked) === json;
  }, [pick, JSON.stringify(expected)]);
}

function assertClose(actual, expected, label) {
  assert.equal(actual.length, expected.length, label);
  actual.forEach((row, r) => row.forEach((v, c) => {
    assert.ok(Math.abs(v - expected[r][c]) <= 1e-12, `${label}[${r}][${c}]: ${v} vs ${expected[r][c]}`);
  }));
}

async function assertCase(page, name) {
  const result = await page.evaluate(() => document.querySelector('attention-visualizer').result);
  const expected = FIXTURES.cases[name];
  expected.weights.forEach((weights, h) => assertClose(result.heads[h].weights, weights, `${name}: head ${h + 1} weights`));
  assertClose(result.output, expected.output, `${name}: output`);
}

test('editable element: heads, the head in view, W_O, padding, undo/redo and cross-attention, edited and computed as numpy does', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(local.at('embed.html?editable='));
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result);
    await page.evaluate(() => {
      window.changes = 0;
      document.querySelector('attention-visualizer').addEventListener('change', () => { window.changes += 1; });
    });

    // two heads: W_O appears (multi-head attention needs it), so do the head tabs
    await page.locator(`${element} #heads`).fill('2');
    await settled(page, 'heads', [2, true]);
    assert.equal(await page.locator(`${element} #use-wo`).isChecked(), true);
    assert.equal(await page.locator(`${element} #use-wo`).isDisabled(), true);
    // the second head in view: its matrices are the ones edited, its steps the ones shown
    await page.locator(`${element} #edit-heads .head-tab[data-head="1"]`).click();
    assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.view.head), 1);
    assert.match(await page.locator(`${element} #wq-title`).textContent(), /head 2/);
    for (const w of ['wq', 'wk', 'wv']) await fillMatrix(page, w, FIXTURES.head2[w]);
    await fillMatrix(page, 'wo', FIXTURES.wo);
    await settled(page, 'head2', [FIXTURES.head2, FIXTURES.wo]);
    assert.deepEqual(await page.evaluate(() => document.querySelector('attention-visualizer').state.heads[0].wq), [[0.5, 0.2], [0.1, 0.6]], 'head 1 kept');
    await assertCase(page, 'twoHeads');
    assert.ok(await page.evaluate(() => window.changes) > 0, 'each edit is told (event change)');

    // a bad cell of W_O: its message under W_O, the state and the result as they were
    await cell(page, 'wo', 3, 1).fill('2x');
    assert.match(await page.locator(`${element} #wo-error`).textContent(), /Row 4, column 2: “2x” is not a number/);
    assert.equal(await cell(page, 'wo', 3, 1).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.locator(`${element} .status-stale`).count(), 1);
    await settled(page, 'head2', [FIXTURES.head2, FIXTURES.wo]);
    await assertCase(page, 'twoHeads');
    await cell(page, 'wo', 3, 1).fill('2');
    assert.equal(await page.locator(`${element} #wo-error`).textContent(), '');

    // the third token as key padding
    await page.locator(`${element} #token-list .token-pad`).nth(2).click();
    await settled(page, 'padding', [false, false, true]);
    await assertCase(page, 'padded');

    // undo (the button), redo (the keys, the focus on a button): the computed weights follow
    await page.locator(`${element} #undo`).click();
    await settled(page, 'padding', [false, false, false]);
    await assertCase(page, 'twoHeads');
    assert.equal(await page.locator(`${element} #token-list .token-pad`).nth(2).getAttribute('aria-pressed'), 'false');
    await page.locator(`${element} #fill-random`).focus();
    await page.keyboard.press('Control+Shift+Z');
    await settled(page, 'padding', [false, false, true]);
    await assertCase(page, 'padded');
    await page.keyboard.press('Control+z');
    await settled(page, 'padding', [false, false, false]);

    // cross-attention: a second sentence and its vectors give the keys and values
    await page.locator(`${element} #cross`).check();
    await page.locator(`${element} #context-sentence`).fill(FIXTURES.contextTokens.join(' '));
    assert.deepEqual(await page.locator(`${element} #context-token-list input`).evaluateAll((inputs) => inputs.map((i) => i.value)), FIXTURES.contextTokens);
    await fillMatrix(page, 'c', FIXTURES.c);
    await settled(page, 'context', { tokens: FIXTURES.contextTokens, x: FIXTURES.c });
    await assertCase(page, 'cross');
    // the example's keys are the second sentence's
    const result = await page.evaluate(() => document.querySelector('attention-visualizer').result);
    assert.equal(result.heads[1].weights[0].length, 2);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
