// Learner-first (issue 14, items 2 and 3): the first screen of the page shows
// the sentence, the pipeline diagram and the weights with the example's numbers,
// on a desktop and on a phone; the inputs wait in a closed "Edit the example"
// panel; every stage of the diagram opens its step; a variant's stages come
// and go with its option; the diagram and Previous/Next stay in view while a
// long step scrolls; <attention-visualizer> draws the same diagram.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { REFERENCE } from '../js/fixtures.mjs'; // REFERENCE.md's true values
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor, openStep } from './ui.mjs';

const local = browserAndServer(path.resolve('dist'));
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

// (a fresh visit opens on a trained model: ?example=tutorial opens on the tutorial's example instead)
async function open({ viewport = DESKTOP, locale = 'en-US', hash = '', query = '?example=tutorial' } = {}) {
  const context = await local.browser.newContext({ viewport, locale });
  const page = await context.newPage();
  page.setDefaultTimeout(5000);
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${local.at(`index.html${query}`)}${hash}`);
  await waitForSteps(page);
  return { context, page, problems };
}

// The rectangle of `selector`, and whether it lies inside the viewport.
const rectOf = (page, selector) => page.locator(selector).first().evaluate((node) => {
  const r = node.getBoundingClientRect();
  return {
    top: r.top, bottom: r.bottom, left: r.left, right: r.right, height: r.height,
    inView: r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth,
  };
});

const shownSteps = (page) => page.locator('#steps > li').evaluateAll((lis) => lis.map((li) => li.dataset.step));
const stageIds = (page) => page.locator('#pipeline .pipeline-stage').evaluateAll((nodes) => nodes.map((n) => n.dataset.stage));
const litStages = (page) => page.locator('#pipeline .pipeline-stage[aria-current="step"]').evaluateAll((nodes) => nodes.map((n) => n.dataset.stage));
// A stage's words: its text and its shape (one line each, or two parts of one line).
const stageText = (page, id) => page.locator(`#pipeline [data-stage="${id}"]`).evaluate((n) => [...n.querySelectorAll('text')]
  .flatMap((t) => (t.children.length > 0 ? [...t.children] : [t]).map((part) => part.textContent)).join(' '));
const edges = (page) => page.locator('#pipeline .pipeline-edge').evaluateAll((paths) => paths.map((p) => p.dataset.edge).sort());
const pageScrollWidth = (page) => page.evaluate(() => document.documentElement.scrollWidth);

for (const [name, viewport] of [['desktop 1280 × 900', DESKTOP], ['phone 375 × 812', PHONE]]) {
  test(`first screen on a ${name}: the sentence, the diagram and the weights, without scrolling`, async () => {
    const { context, page, problems } = await open({ viewport });
    try {
      assert.equal(await page.evaluate(() => scrollY), 0);
      assert.deepEqual(await page.locator('#example-tokens .example-token').allTextContents(), ['我', '爱', '你']);
      assert.equal((await rectOf(page, '#example-tokens')).inView, true, 'the sentence');
      assert.equal((await rectOf(page, '#pipeline')).inView, true, 'the diagram');
      assert.equal((await rectOf(page, '#prev')).inView && (await rectOf(page, '#next')).inView, true, 'Previous and Next');
      // the first step shown is the weights, its stage lit
      assert.deepEqual(await shownSteps(page), ['softmax']);
      assert.deepEqual(await litStages(page), ['softmax']);
      const weights = await rectOf(page, '#steps table[data-matrix="Weights"]');
      assert.equal(weights.inView, true, `the weights, whole: ${JSON.stringify(weights)}`);
      // the example's numbers, from REFERENCE.md (not from the engine)
      const cells = await page.locator('#steps table[data-matrix="Weights"] td[data-r]').allTextContents();
      assert.deepEqual(cells, REFERENCE.Weights.flat().map((w) => w.toFixed(4)));
      assert.equal(await pageScrollWidth(page), viewport.width, 'nothing wider than the screen');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

// numpy's forward of the shipped model (tests/make_model_page_fixtures.py): the head a fresh visit opens on
const FIRST = JSON.parse(readFileSync('tests/fixtures/model_page_cases.json', 'utf8')).cases
  .find((c) => c.model === 'animal-street' && c.layer === 1 && c.head === 1);

for (const [name, viewport] of [['desktop 1280 × 800', { width: 1280, height: 800 }], ['phone 375 × 667', { width: 375, height: 667 }]]) {
  test(`a fresh visit on a ${name}: a trained head visibly picking (a row maximum ≥ 0.5) in the first viewport, as numpy has it; the tutorial one click away`, async () => {
    const { context, page, problems } = await open({ viewport, query: '' });
    try {
      await page.waitForSelector('.model-picks .picked');
      assert.equal(await page.evaluate(() => scrollY), 0);
      const state = await page.evaluate(() => document.querySelector('attention-visualizer').state);
      assert.deepEqual([state.model, state.layer, state.view.head, state.view.step], ['animal-street', 1, 1, 'softmax']);
      assert.deepEqual(state.tokens, FIRST.tokens);
      const row = await rectOf(page, '.model-picks .picks-row');
      assert.equal(row.inView, true, `the row, whole, in the first viewport: ${JSON.stringify(row)}`);
      // the row read from the screen: "it"'s weights in layer 2 head 2, numpy's to the digits shown
      const it = FIRST.tokens.indexOf('it');
      const cells = await page.locator('.model-picks .pick').evaluateAll((lis) => lis.map((li) => [li.querySelector('.pick-token').textContent, li.querySelector('.pick-weight').textContent]));
      assert.deepEqual(cells, FIRST.tokens.map((t, k) => [t, FIRST.allWeights[1][1][it][k].toFixed(4)]));
      const picked = await page.locator('.model-picks .picked').evaluate((li) => [li.querySelector('.pick-token').textContent, Number(li.querySelector('.pick-weight').textContent)]);
      assert.equal(picked[0], 'animal');
      assert.ok(picked[1] >= 0.5 && Math.abs(picked[1] - Math.max(...FIRST.allWeights[1][1][it])) <= 5e-5, `the row maximum ${picked[1]}`);
      assert.equal(await page.textContent('#footer-example'), 'The example is a sentence read by the model animal-street: “the animal didn\'t cross the street becau…”, 11 tokens.'); // (sentenceOf cuts it)
      assert.match(await page.textContent('.picks-title'), /^Layer 2, head 2 \(coreference\): “it” puts 99\.9% of its attention on “animal”\.$/);
      // the same row in the steps' weights, below
      await page.waitForFunction(() => document.querySelector('#steps table[data-matrix="Weights"]'));
      const shown = await page.locator(`#steps table[data-matrix="Weights"] td[data-r="${it}"]`).allTextContents();
      assert.deepEqual(shown, cells.map(([, w]) => w));
      assert.equal(await pageScrollWidth(page), viewport.width, 'nothing wider than the screen');
      // axe: nothing serious in the row and its button
      await page.evaluate(readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8'));
      const serious = await page.evaluate(async () => (await globalThis.axe.run({ include: ['.model-picks'] }, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id));
      assert.deepEqual(serious, []);
      // one click: the tutorial's example, its hand-set vectors and its misprint note
      await page.click('.picks-tutorial');
      await page.waitForFunction(() => !document.querySelector('attention-visualizer').state.model);
      assert.deepEqual(await page.locator('#example-tokens .example-token').allTextContents(), ['我', '爱', '你']);
      await page.waitForSelector('#steps table[data-matrix="Weights"] td[data-r]');
      assert.deepEqual(await page.locator('#steps table[data-matrix="Weights"] td[data-r]').allTextContents(), REFERENCE.Weights.flat().map((w) => w.toFixed(4)));
      assert.equal(await page.textContent('#steps .misprint-summary'), 'The tutorial misprints this step’s eight-digit values: compare with the true ones');
      assert.equal(await page.locator('.model-picks').count(), 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('the edit panel: closed at first; a click or a key opens it, beside the steps when wide and above them when narrow', async () => {
  for (const viewport of [DESKTOP, PHONE]) {
    const { context, page, problems } = await open({ viewport });
    try {
      const toggle = page.locator('#edit-toggle');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.isVisible('#edit-panel'), false);
      assert.equal(await page.isVisible('#sentence'), false);

      await toggle.click();
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await page.isVisible('#sentence'), true);
      assert.equal(await page.inputValue('#sentence'), '我爱你');
      const panel = await rectOf(page, '#edit-panel');
      const steps = await rectOf(page, '#steps');
      if (viewport === DESKTOP) {
        assert.ok(panel.left >= steps.right, `beside the steps: ${JSON.stringify({ panel, steps })}`);
        assert.equal((await rectOf(page, '#pipeline')).inView, true, 'the diagram stays in the first screen');
        assert.equal((await rectOf(page, '#steps table[data-matrix="Weights"]')).inView, true, 'and the weights');
      } else {
        assert.ok(panel.bottom <= steps.top, 'above the steps');
      }
      assert.equal(await pageScrollWidth(page), viewport.width);
      await toggle.click();
      assert.equal(await page.isVisible('#edit-panel'), false);

      // the keyboard: Tab from the top reaches the button, Enter opens, Space closes
      await page.click('h1');
      let presses = 0;
      while (!(await toggle.evaluate((node) => node === document.activeElement)) && presses < 8) {
        await page.keyboard.press('Tab');
        presses++;
      }
      assert.ok(presses < 8, 'Tab reaches the edit button');
      await page.keyboard.press('Enter');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
      assert.equal(await page.isVisible('#sentence'), true);
      await page.keyboard.press('Space');
      assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
      assert.equal(await page.isVisible('#edit-panel'), false);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('every stage opens its step, by a click, Enter or Space; the current step lights its stages', async () => {
  // every option on: C, X+PE and C+PE, ÷√d_k ÷T, the mask, two heads, concat, W_O
  const state = {
    ...tutorialState('en'),
    heads: [tutorialState().heads[0], { wq: [[1, 0], [0, 1]], wk: [[0, 1], [1, 0]], wv: [[1, 1], [0, 1]] }],
    wo: [[1, 0], [0, 1], [1, 1], [0.5, 0]],
    context: { tokens: ['a', 'b'], x: [[1, 2], [3, 4]] },
    keyPadding: [false, true],
    causal: true,
    temperature: 0.5,
    positionalEncoding: true,
  };
  const { context, page, problems } = await open({ hash: `#${encodeHash(state)}` });
  try {
    const expected = {
      x: 'input', c: 'input', pe: 'pe', peC: 'pe', q: 'project', k: 'project', v: 'project', scores: 'scores',
      scale: 'scale', mask: 'scale', softmax: 'softmax', output: 'output', heads: 'heads', concat: 'concat', wo: 'wo', learn: 'learn',
    };
    assert.deepEqual(await stageIds(page), Object.keys(expected));
    for (const [stage, step] of Object.entries(expected)) {
      await page.click(`#pipeline [data-stage="${stage}"]`);
      assert.deepEqual(await shownSteps(page), [step], `${stage} opens ${step}`);
      const lit = Object.keys(expected).filter((id) => expected[id] === step);
      assert.deepEqual(await litStages(page), lit, `${step} lights ${lit}`);
    }
    // the keyboard: each stage is a focusable button
    for (const [stage, key, step] of [['scores', 'Enter', 'scores'], ['concat', ' ', 'concat'], ['x', 'Enter', 'input']]) {
      const node = page.locator(`#pipeline [data-stage="${stage}"]`);
      assert.equal(await node.getAttribute('role'), 'button');
      await node.focus();
      await page.keyboard.press(key === ' ' ? 'Space' : key);
      assert.deepEqual(await shownSteps(page), [step]);
      assert.equal(await node.evaluate((n) => n === document.activeElement), true, 'the focus stays on the stage');
    }
    // ←/→ from a stage walk the steps, as from anywhere on the page
    await page.keyboard.press('ArrowRight');
    assert.deepEqual(await shownSteps(page), ['pe']);
    // the names read aloud, in both languages
    assert.equal(await page.getAttribute('#pipeline [data-stage="mask"]', 'aria-label'), 'mask 3 × 2: Mask — step 5 of 11');
    await page.click('#lang-toggle');
    assert.equal(await page.getAttribute('#pipeline [data-stage="mask"]', 'aria-label'), '掩码 3 × 2：掩码——第 5 步，共 11 步');
    assert.equal(await stageText(page, 'concat'), '拼接 3 × 4');
    await page.click('#lang-toggle');
    // in the overview a stage scrolls to its step, under the sticky toolbar
    await page.click('#overview');
    await page.click('#pipeline [data-stage="scores"]');
    const scores = await rectOf(page, '#steps [data-step="scores"]');
    const bar = await rectOf(page, '#steps-toolbar');
    assert.ok(scores.top >= bar.bottom && scores.top <= bar.bottom + 24, `the scores' step under the toolbar: ${scores.top}, ${bar.bottom}`);
    assert.deepEqual(await litStages(page), [], 'nothing lit in the overview');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a variant\'s stages come and go with its option; every stage shows its shape in the example\'s sizes', async () => {
  const { context, page, problems } = await open();
  try {
    await openEditor(page);
    const plain = ['x', 'q', 'k', 'v', 'scores', 'scale', 'softmax', 'output', 'learn'];
    assert.deepEqual(await stageIds(page), plain);
    // X feeds Q, K and V; Q and K the scores; V waits for the weights
    assert.deepEqual(await edges(page), ['x-q', 'x-k', 'x-v', 'q-scores', 'k-scores', 'scores-scale', 'scale-softmax', 'softmax-output', 'v-output', 'output-learn'].sort());

    // sizes: 4 tokens, d_model 3, d_k 4, d_v 5
    await page.selectOption('#token-mode', 'space');
    await page.fill('#sentence', 'the cat sat down');
    for (const [dim, value] of [['dModel', '3'], ['dk', '4'], ['dv', '5']]) await page.fill(`#dim-${dim}`, value);
    const shapes = { x: '4 × 3', q: '4 × 4', k: '4 × 4', v: '4 × 5', scores: '4 × 4', scale: '4 × 4', softmax: '4 × 4', output: '4 × 5' };
    for (const [id, shape] of Object.entries(shapes)) assert.match(await stageText(page, id), new RegExp(`${shape}$`), id);
    assert.deepEqual(await page.locator('#example-tokens .example-token').allTextContents(), ['the', 'cat', 'sat', 'down']);

    // the mask: with the causal mask, and with a padding key
    await page.check('#causal');
    assert.deepEqual(await stageIds(page), ['x', 'q', 'k', 'v', 'scores', 'scale', 'mask', 'softmax', 'output', 'learn']);
    await page.uncheck('#causal');
    assert.deepEqual(await stageIds(page), plain);
    await page.click('#token-list li:nth-child(2) .token-pad');
    assert.ok((await stageIds(page)).includes('mask'), 'a padding key masks');
    await page.click('#token-list li:nth-child(2) .token-pad');
    assert.deepEqual(await stageIds(page), plain);

    // ÷T only when T ≠ 1; without √d_k and T the scaling is struck out
    assert.match(await stageText(page, 'scale'), /^÷√d_k 4 × 4$/);
    await page.fill('#temperature', '0.5');
    assert.match(await stageText(page, 'scale'), /^÷√d_k ÷T 4 × 4$/);
    await page.uncheck('#scale-by-sqrt-dk');
    assert.match(await stageText(page, 'scale'), /^÷T 4 × 4$/);
    await page.fill('#temperature', '1');
    assert.equal(await page.locator('#pipeline [data-stage="scale"].off').count(), 1);
    assert.equal(await page.getAttribute('#pipeline [data-stage="scale"]', 'aria-label'), '÷√d_k 4 × 4: No scaling — step 4 of 7');
    await page.check('#scale-by-sqrt-dk');
    assert.equal(await page.locator('#pipeline [data-stage="scale"].off').count(), 0);

    // positional encoding
    await page.check('#positional-encoding');
    assert.deepEqual((await stageIds(page)).slice(0, 2), ['x', 'pe']);
    assert.ok((await edges(page)).includes('pe-q'));
    await page.uncheck('#positional-encoding');

    // W_O alone, then heads (concat and W_O)
    await page.check('#use-wo');
    assert.deepEqual((await stageIds(page)).slice(-3), ['output', 'wo', 'learn']);
    assert.match(await stageText(page, 'wo'), /4 × 3$/);
    await page.fill('#heads', '2');
    assert.deepEqual((await stageIds(page)).slice(-5), ['output', 'heads', 'concat', 'wo', 'learn']);
    assert.match(await stageText(page, 'heads'), /^2 heads 2 × 4 × 4$/);
    assert.match(await stageText(page, 'concat'), /^concat 4 × 10$/);
    await page.fill('#heads', '1');
    await page.uncheck('#use-wo');
    assert.deepEqual(await stageIds(page), plain);

    // cross-attention: the second sentence's C feeds K and V, X feeds Q
    await page.check('#cross');
    await page.fill('#context-sentence', 'a b');
    assert.deepEqual(await stageIds(page), ['x', 'c', 'q', 'k', 'v', 'scores', 'scale', 'softmax', 'output', 'learn']);
    const crossEdges = await edges(page);
    for (const edge of ['x-q', 'c-k', 'c-v']) assert.ok(crossEdges.includes(edge), edge);
    for (const edge of ['x-k', 'x-v']) assert.ok(!crossEdges.includes(edge), edge);
    assert.match(await stageText(page, 'c'), /^C 2 × 3$/);
    assert.match(await stageText(page, 'scores'), /4 × 2$/);
    assert.deepEqual(await page.locator('#example-context .example-token').allTextContents(), ['a', 'b']);
    await page.uncheck('#cross');
    assert.deepEqual(await stageIds(page), plain);
    assert.equal(await page.isVisible('#example-context-line'), false);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('sticky: deep in a long step the diagram and Previous/Next stay in view; Next starts the next step at its top', async () => {
  // 16 tokens of 4 numbers: the projections' step is long
  const grid = (rows, cols, k) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (__, j) => ((i * 7 + j * 3 + k) % 10) / 10 - 0.5));
  const state = {
    ...tutorialState('en'),
    tokens: Array.from({ length: 16 }, (_, i) => `t${i + 1}`),
    x: grid(16, 4, 0),
    heads: [{ wq: grid(4, 4, 1), wk: grid(4, 4, 2), wv: grid(4, 4, 3) }],
    keyPadding: Array(16).fill(false),
  };
  for (const viewport of [DESKTOP, PHONE]) {
    const { context, page, problems } = await open({ viewport, hash: `#${encodeHash(state)}` });
    try {
      await openStep(page, 2);
      const long = await rectOf(page, '#steps');
      assert.ok(long.height > 1.5 * viewport.height, `a long step: ${long.height}`);
      await page.evaluate(() => {
        const steps = document.getElementById('steps').getBoundingClientRect();
        scrollTo(0, scrollY + steps.bottom - innerHeight);
      });
      const scrolled = await rectOf(page, '#steps');
      assert.ok(scrolled.top < -viewport.height / 2 && scrolled.bottom > 0, `deep in the step: ${JSON.stringify(scrolled)}`);
      for (const selector of ['#pipeline', '#prev', '#next']) assert.equal((await rectOf(page, selector)).inView, true, selector);
      await page.click('#next');
      assert.deepEqual(await shownSteps(page), ['scores']);
      const step = await rectOf(page, '#steps > li');
      const bar = await rectOf(page, '#steps-toolbar');
      assert.ok(step.top >= bar.bottom && step.top <= bar.bottom + 24, `the next step starts under the toolbar: ${step.top}, ${bar.bottom}`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('<attention-visualizer> draws the same diagram in its nav panel; its stages open its steps', async () => {
  const hash = `#${encodeHash({ ...tutorialState('en'), causal: true })}`;
  const { context, page } = await open({ hash });
  const element = await context.newPage();
  try {
    const fromPage = await page.locator('#pipeline .pipeline-svg').evaluate((svg) => svg.outerHTML);
    await element.goto(`${local.at('embed.html')}?steps=input,scale,softmax${hash}`);
    await element.waitForFunction(() => document.querySelector('attention-visualizer')?.shadowRoot.querySelector('.step table'));
    const view = element.locator('attention-visualizer');
    const fromElement = await view.locator('.pipeline-svg').evaluate((svg) => svg.outerHTML);
    // the same stages, shapes and arrows; only the steps not shown here are not controls
    const drawing = (html) => html.replace(/ (role|tabindex|aria-label|aria-current|aria-hidden|data-focus-id)="[^"]*"/g, '').replace(/ (inert|lit)\b/g, '');
    assert.equal(drawing(fromElement), drawing(fromPage));
    const buttons = await view.locator('.pipeline-stage[role="button"]').evaluateAll((nodes) => nodes.map((n) => n.dataset.stage));
    assert.deepEqual(buttons, ['x', 'scale', 'mask', 'softmax']);
    await view.locator('[data-stage="mask"]').click();
    assert.equal(await view.locator('.step').getAttribute('data-step'), 'scale');
    assert.equal(await view.locator('[data-stage="mask"]').getAttribute('aria-current'), 'step');
    await view.locator('[data-stage="softmax"]').focus();
    await element.keyboard.press('Enter');
    assert.equal(await view.locator('.step').getAttribute('data-step'), 'softmax');
    assert.equal(await view.locator('[data-stage="softmax"]').getAttribute('aria-current'), 'step');
  } finally {
    await context.close();
  }
});
