// Browser tests of numbers that move (issue 14, item 4): a step reached with
// Next shows one cell of its result being made, copies of its source numbers
// flying into it (Web Animations), then stops; with prefers-reduced-motion
// nothing moves and the same cells are marked; a cell explained in one step
// marks its sources where the other steps shown display them; the element
// does the same; at n = 100 (heatmaps) no number flies. Which cells are
// marked is worked out here from the shapes, never read back from the marks.
// Screenshots go to /tmp/motion-*.png.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';
import { REFERENCE } from '../js/fixtures.mjs'; // REFERENCE.md's true values

const DIST = path.resolve('dist');
const FILE_URL = `${pathToFileURL(path.join(DIST, 'index.html')).href}?example=tutorial`;
const TOKENS = ['我', '爱', '你'];
const DK = REFERENCE.Q[0].length;
const DV = REFERENCE.V[0].length;

const local = browserAndServer(DIST);

// Every running animation, the elements' shadow roots' too (document.getAnimations() leaves them
// out); an element in full mode (index.html) has none: its animations are the document's.
const countAnimations = () => {
  window.allAnimations = () => [document, ...[...document.querySelectorAll('attention-visualizer')].map((v) => v.shadowRoot)]
    .filter(Boolean).flatMap((root) => root.getAnimations());
};

async function newContext(options) {
  const context = await local.browser.newContext(options);
  await context.addInitScript(countAnimations);
  return context;
}

async function openPage(url, { viewport = { width: 1280, height: 900 }, colorScheme = 'light', reducedMotion = 'no-preference', locale = 'en-US' } = {}) {
  const context = await newContext({ viewport, colorScheme, reducedMotion, locale });
  const page = await context.newPage();
  page.setDefaultTimeout(8000);
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(url);
  return { context, page, problems };
}

async function openTutorial(options) {
  const opened = await openPage(FILE_URL, options);
  const { page } = opened;
  await waitForSteps(page);
  await openEditor(page);
  await page.click('[data-preset="tutorial"]');
  await openStep(page, 1);
  if (await page.getAttribute('html', 'lang') !== (options?.lang || 'en')) await page.click('#lang-toggle');
  return opened;
}

// Cells as "<matrix><r><c>": a whole row r of a (rows × cols) matrix, a whole column c, one cell.
const row = (m, r, cols) => Array.from({ length: cols }, (_, c) => `${m}${r}${c}`);
const column = (m, c, rows) => Array.from({ length: rows }, (_, r) => `${m}${r}${c}`);

// The cells of `scope` (a step, in a page or a shadow root) with class `cls`.
function marked(page, scope, cls, host = null) {
  return page.evaluate(([selector, name, hostSelector]) => {
    const root = hostSelector ? document.querySelector(hostSelector).shadowRoot : document;
    return [...root.querySelectorAll(`${selector} td.${name}`)].map((td) => `${td.closest('table').dataset.matrix}${td.dataset.r}${td.dataset.c}`).sort();
  }, [scope, cls, host]);
}

const animationCount = (page) => page.evaluate(() => window.allAnimations().length);

// Resolves once the flight started by the last step change has ended: how long that took, in ms.
async function flightEnds(page) {
  const start = Date.now();
  await page.waitForFunction(() => window.allAnimations().length === 0, null, { timeout: 4000 });
  return Date.now() - start;
}

// Holds every animation at `ms` (for a screenshot mid-flight), then lets them run on.
const holdAt = (page, ms) => page.evaluate((t) => window.allAnimations().forEach((a) => { a.pause(); a.currentTime = t; }), ms);
const release = (page) => page.evaluate(() => window.allAnimations().forEach((a) => a.play()));

test('Next from Q, K, V to Scores: Q row 1 and K row 1 fly into Scores[我, 我], then stop; the row goes on to the next steps', async () => {
  const { context, page, problems } = await openTutorial();
  try {
    await openStep(page, 2);
    await page.click('#next');
    await page.waitForFunction(() => window.allAnimations().length > 0);
    // one copy per number of Q row 1 and K row 1, and the cell's light-up
    assert.equal(await page.locator('#step-3 .flow-ghost').count(), 2 * DK);
    assert.equal(await animationCount(page), 2 * DK + 1);
    assert.deepEqual(await marked(page, '#step-3', 'mark-feed'), [...row('K', 0, DK), ...row('Q', 0, DK)].sort());
    assert.deepEqual(await marked(page, '#step-3', 'mark-selected'), ['Scores00']);
    assert.equal(await page.textContent('#step-3 .flow-note'), 'Q row 1 (我) and K row 1 (我) → Scores[我, 我]');
    // the work area still invites a pick: the arrival explains nothing by itself
    assert.match(await page.textContent('#step-3 .work-hint'), /Point at, tap or focus/);
    const took = await flightEnds(page);
    assert.ok(took < 2000, `the flight ends (${took} ms)`);
    assert.equal(await page.locator('#step-3 .flow-layer').count(), 0, 'the copies are gone');
    assert.deepEqual(await marked(page, '#step-3', 'mark-selected'), ['Scores00'], 'the marks stay');

    // a score picked here: the scale step goes on from it, the score divided by √d_k on its way
    await page.hover('#step-3 table[data-matrix="Scores"] td[data-r="2"][data-c="1"]');
    await page.click('#next');
    await page.waitForFunction(() => window.allAnimations().length > 0);
    await holdAt(page, 200);
    assert.deepEqual(await page.locator('#step-4 .flow-ghost').allTextContents(), [`${REFERENCE.Scores[2][1].toFixed(4)} ÷ √${DK}`]);
    assert.deepEqual(await marked(page, '#step-4', 'mark-feed'), ['Scores21']);
    assert.deepEqual(await marked(page, '#step-4', 'mark-selected'), ['Scaled21']);
    await release(page);
    await flightEnds(page);

    // softmax: the row's scaled scores, exponentiated, into the weight
    await page.click('#next');
    await page.waitForFunction(() => window.allAnimations().length > 0);
    await holdAt(page, 200);
    assert.deepEqual(await page.locator('#step-5 .flow-ghost').allTextContents(), REFERENCE.Scaled[2].map((s) => `exp(${s.toFixed(4)})`));
    assert.deepEqual(await marked(page, '#step-5', 'mark-feed'), row('Scaled', 2, TOKENS.length));
    assert.deepEqual(await marked(page, '#step-5', 'mark-selected'), ['Weights21']);
    await release(page);
    await flightEnds(page);

    // output: weights row 3 and V column 2 into Output[你, d2]
    await page.click('#next');
    await page.waitForFunction(() => window.allAnimations().length > 0);
    assert.equal(await page.locator('#step-6 .flow-ghost').count(), 2 * TOKENS.length);
    assert.deepEqual(await marked(page, '#step-6', 'mark-feed'), [...column('V', 1, TOKENS.length), ...row('Weights', 2, TOKENS.length)].sort());
    assert.deepEqual(await marked(page, '#step-6', 'mark-selected'), [`Output2${Math.min(1, DV - 1)}`]);
    assert.equal(await page.textContent('#step-6 .flow-note'), 'Weights row 3 (你) and V column 2 (d2) → Output[你, d2]');
    await flightEnds(page);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('prefers-reduced-motion: reduce: nothing moves, the same cells are marked', async () => {
  const { context, page, problems } = await openTutorial({ reducedMotion: 'reduce' });
  try {
    await openStep(page, 2);
    await page.click('#next');
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.equal(await animationCount(page), 0);
    assert.equal(await page.locator('.flow-ghost, .flow-ring').count(), 0);
    assert.deepEqual(await marked(page, '#step-3', 'mark-feed'), [...row('K', 0, DK), ...row('Q', 0, DK)].sort());
    assert.deepEqual(await marked(page, '#step-3', 'mark-selected'), ['Scores00']);
    assert.equal(await page.textContent('#step-3 .flow-note'), 'Q row 1 (我) and K row 1 (我) → Scores[我, 我]');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('show the work on an output cell marks its weights row and V column in every step shown', async () => {
  const { context, page, problems } = await openTutorial();
  try {
    await page.click('#overview');
    const [r, c] = [2, 1];
    await page.hover(`#step-6 table[data-matrix="Output"] td[data-r="${r}"][data-c="${c}"]`);
    // in its own step, as before; where Weights (step 5) and V (step 2) are shown too, linked
    assert.deepEqual(await marked(page, '#step-6', 'mark-feed'), [...column('V', c, TOKENS.length), ...row('Weights', r, TOKENS.length)].sort());
    assert.deepEqual(await marked(page, '#step-5', 'mark-linked'), row('Weights', r, TOKENS.length));
    assert.deepEqual(await marked(page, '#step-2', 'mark-linked'), column('V', c, TOKENS.length));
    for (const step of [1, 3, 4]) assert.equal(await page.locator(`#step-${step} td.mark-linked`).count(), 0, `step ${step}`);
    assert.equal(await page.textContent('#step-5 .flow-note'), 'Step 6: Weights row 3 (你) and V column 2 (d2) → Output[你, d2]');
    assert.equal(await animationCount(page), 0, 'pointing moves nothing');

    // a weight next: step 6 marks it (Weights is shown there), step 2 no longer
    await page.hover('#step-5 table[data-matrix="Weights"] td[data-r="0"][data-c="2"]');
    assert.deepEqual(await marked(page, '#step-6', 'mark-linked'), ['Weights02']);
    assert.deepEqual(await marked(page, '#step-4', 'mark-linked'), row('Scaled', 0, TOKENS.length));
    assert.equal(await page.locator('#step-2 td.mark-linked').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

const ELEMENT_PAGE = (attributes) => `<!doctype html><html><head><meta charset="utf-8"><script src="attention-visualizer.js"></script></head>
<body><attention-visualizer sentence="我爱你" x="[[1, 0], [0.5, 0.5], [0, 1]]" wq="[[0.5, 0.2], [0.1, 0.6]]" wk="[[0.4, 0.3], [0.2, 0.7]]"
wv="[[0.8, 0.1], [0.3, 0.9]]" ${attributes}></attention-visualizer></body></html>`;

async function openElement(attributes, options) {
  const url = local.at('motion-host.html');
  const context = await newContext({ viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: ELEMENT_PAGE(attributes) }));
  await page.goto(url);
  await page.waitForFunction(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('table.matrix'));
  return { context, page, problems };
}

const inElement = (selector) => `attention-visualizer >> ${selector}`; // playwright pierces open shadow roots

test('the element: Next flies the numbers in and stops; an output cell marks its sources in the other steps shown', async () => {
  const { context, page, problems } = await openElement('step="project" lang="en"');
  try {
    await page.click(inElement('button[data-focus-id="next"]'));
    await page.waitForFunction(() => window.allAnimations().length > 0);
    assert.equal(await page.locator(inElement('.flow-ghost')).count(), 2 * DK);
    assert.deepEqual(await marked(page, '.step', 'mark-feed', 'attention-visualizer'), [...row('K', 0, DK), ...row('Q', 0, DK)].sort());
    assert.deepEqual(await marked(page, '.step', 'mark-selected', 'attention-visualizer'), ['Scores00']);
    await flightEnds(page);

    await page.click(inElement('button[data-focus-id="all"]'));
    await page.hover(inElement('[data-step="output"] table[data-matrix="Output"] td[data-r="1"][data-c="0"]'));
    assert.deepEqual(await marked(page, '[data-step="softmax"]', 'mark-linked', 'attention-visualizer'), row('Weights', 1, TOKENS.length));
    assert.deepEqual(await marked(page, '[data-step="project"]', 'mark-linked', 'attention-visualizer'), column('V', 0, TOKENS.length));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the element with prefers-reduced-motion: reduce marks the same cells and moves nothing', async () => {
  const { context, page, problems } = await openElement('step="project" lang="en"', { reducedMotion: 'reduce' });
  try {
    await page.click(inElement('button[data-focus-id="next"]'));
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.equal(await animationCount(page), 0);
    assert.deepEqual(await marked(page, '.step', 'mark-feed', 'attention-visualizer'), [...row('K', 0, DK), ...row('Q', 0, DK)].sort());
    assert.deepEqual(await marked(page, '.step', 'mark-selected', 'attention-visualizer'), ['Scores00']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// (how long Next takes is the bench's to report, not a timed test's: under load it flaked)
test('n = 100: heatmaps mark rows and cells without a flight per number', async () => {
  for (const reducedMotion of ['no-preference', 'reduce']) {
    const { context, page, problems } = await openTutorial({ reducedMotion });
    try {
      await page.fill('#sentence', Array.from({ length: 100 }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(''));
      await page.fill('#seed', '5');
      await page.click('#fill-random');
      await openStep(page, 1);
      await page.waitForSelector('#step-1 canvas[data-matrix="X"]');
      await openStep(page, 2);
      await page.click('#next');
      await page.waitForSelector('#step-3 canvas[data-matrix="Scores"]');
      assert.equal(await page.locator('#step-3 canvas[data-matrix="Scores"]').count(), 1);
      assert.equal(await page.locator('.flow-ghost').count(), 0);
      // Q row 1, K row 1 and the score: three boxes, at most one animation each
      assert.equal(await page.locator('#step-3 .heat-mark').count(), 3);
      assert.ok(await animationCount(page) <= (reducedMotion === 'reduce' ? 0 : 3), `${await animationCount(page)} animations`);
      await flightEnds(page);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

// Mid-flight (held at 300 ms) and after, at two widths, in both languages and themes.
test('screenshots mid-flight and with the marks', async () => {
  for (const width of [1280, 375]) {
    for (const lang of ['en', 'zh']) {
      for (const colorScheme of ['light', 'dark']) {
        const { context, page, problems } = await openTutorial({ viewport: { width, height: 900 }, colorScheme, lang });
        try {
          await openStep(page, 5);
          await page.click('#next');
          await page.waitForFunction(() => window.allAnimations().length > 0);
          await holdAt(page, 300);
          const name = `/tmp/motion-${width}-${lang}-${colorScheme}`;
          await page.locator('#step-6').screenshot({ path: `${name}-mid.png` });
          await release(page);
          await flightEnds(page);
          await page.locator('#step-6').screenshot({ path: `${name}-marks.png` });
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      }
    }
  }
  const { context, page } = await openElement('step="softmax" lang="zh" theme="dark"', { viewport: { width: 375, height: 900 } });
  try {
    await page.click(inElement('button[data-focus-id="next"]'));
    await page.waitForFunction(() => window.allAnimations().length > 0);
    await holdAt(page, 300);
    await page.locator('attention-visualizer').screenshot({ path: '/tmp/motion-element-375-zh-dark-mid.png' });
    await release(page);
    await flightEnds(page);
  } finally {
    await context.close();
  }
});
