// "How it learns" in the built page (dist/, file://) and in the element: a
// goal picked or painted (keyboard too), Train / Pause / Reset, the link of
// a trained model, and a learned preset. Thresholds measured with
// engine.train() under node (tutorial, goal "previous", X trained too, Adam
// at 0.05): the loss goes from 1.1089 to below 0.05 at step 32.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { LEARNED } from '../../web/src/learned-data.js';

const DIST = path.resolve('dist');
const FILE_URL = pathToFileURL(path.join(DIST, 'index.html')).href;
const EXAMPLE_FILE = pathToFileURL(path.join(DIST, 'examples/tutorial.html')).href;
const TUTORIAL = { x: [[1, 0], [0.5, 0.5], [0, 1]], wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]] };
const LOSS_BELOW = 0.05;
const WITHIN_STEPS = 100;

let browser;
before(async () => { browser = await launchChromium(); });
after(async () => { await browser?.close(); });

async function openLearn(url = FILE_URL) {
  const context = await browser.newContext({ locale: 'en-US' });
  const page = await context.newPage();
  page.setDefaultTimeout(10000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.goto(url);
  await page.waitForSelector('#steps .step');
  if (!(await page.$('.learn'))) await page.locator('#pipeline .pipeline-stage[data-step="learn"]').click();
  await page.waitForSelector('.learn-status');
  return { context, page, problems };
}

const status = (page) => page.$eval('.learn-status', (n) => ({ steps: Number(n.dataset.steps), loss: Number(n.dataset.loss), text: n.textContent }));
// A matrix of the learn panel, from the full values in its cells' titles.
const matrix = (page, name) => page.$eval(`.learn table[data-matrix="${name}"]`, (table) => [...table.querySelectorAll('tbody tr')]
  .map((tr) => [...tr.querySelectorAll('td[data-r]')].map((td) => Number(td.title))));
// The state of the link in the address bar.
const linkState = (page) => page.evaluate(() => JSON.parse(new TextDecoder().decode(Uint8Array.from(
  atob(location.hash.slice(5).replace(/-/g, '+').replace(/_/g, '/')), (ch) => ch.charCodeAt(0)))));

test('train toward "previous word": the loss falls below the threshold, Pause stops, the link reopens the trained weights, Reset restores the start', async () => {
  const { context, page, problems } = await openLearn();
  try {
    assert.equal(await page.textContent('#step-position'), 'Step 7 of 7');
    await page.check('.learn-train-x input');
    await page.click('.learn-goal-choice[data-goal="previous"]');
    assert.equal(await page.getAttribute('.learn-goal-choice[data-goal="previous"]', 'aria-checked'), 'true');
    const start = await status(page);
    assert.equal(start.steps, 0);
    assert.ok(Math.abs(start.loss - 1.1088566926463002) < 1e-12, `start loss ${start.loss}`);
    await page.click('.learn-play');
    assert.equal(await page.textContent('.learn-play'), 'Pause');
    await page.waitForFunction((n) => Number(document.querySelector('.learn-status').dataset.steps) >= n, WITHIN_STEPS, { timeout: 30000 });
    await page.click('.learn-play');
    const paused = await status(page);
    assert.ok(paused.steps >= WITHIN_STEPS, `${paused.steps} steps`);
    assert.ok(paused.loss < LOSS_BELOW, `loss ${paused.loss} after ${paused.steps} steps`);
    await page.waitForTimeout(1000);
    assert.deepEqual(await status(page), paused, 'nothing moves after Pause');
    // the trained weights are the inputs now: in the link, which reopens them
    const wq = await matrix(page, 'W_Q');
    assert.notDeepEqual(wq, TUTORIAL.wq);
    await page.waitForFunction(() => location.hash.length > 5);
    const linked = await linkState(page);
    assert.deepEqual(linked.heads[0].wq, wq);
    assert.deepEqual(linked.learn, { goal: 'previous', lr: 0.05, trainX: true });
    const hash = await page.evaluate(() => location.hash);
    const reopened = await openLearn(`${FILE_URL}${hash}`);
    try {
      assert.deepEqual(await matrix(reopened.page, 'W_Q'), wq);
      assert.equal(await reopened.page.isChecked('.learn-train-x input'), true);
      const again = await status(reopened.page);
      assert.ok(Math.abs(again.loss - paused.loss) < 1e-12, `${again.loss} vs ${paused.loss}`);
      assert.deepEqual(reopened.problems, []);
    } finally {
      await reopened.context.close();
    }
    await page.click('.learn-reset');
    await page.waitForFunction(() => document.querySelector('.learn-status').dataset.steps === '0');
    assert.deepEqual(await matrix(page, 'W_Q'), TUTORIAL.wq);
    assert.deepEqual(await matrix(page, 'W_K'), TUTORIAL.wk);
    await page.waitForFunction(() => location.hash.length > 5);
    assert.deepEqual((await linkState(page)).x, TUTORIAL.x);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the goal grid works from the keyboard: arrows move, Enter picks, + adds weight, Delete clears a row', async () => {
  const { context, page, problems } = await openLearn();
  try {
    const cell = (r, c) => `.goal-grid td[data-r="${r}"][data-c="${c}"]`;
    await page.focus(cell(0, 0));
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement.dataset.r + document.activeElement.dataset.c), '11');
    await page.keyboard.press('Enter');
    assert.equal(await page.getAttribute('.learn-goal-choice[data-goal="custom"]', 'aria-checked'), 'true');
    assert.equal(await page.textContent(cell(1, 1)), '1');
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('+');
    assert.deepEqual([await page.textContent(cell(1, 0)), await page.textContent(cell(1, 1))], ['0.5', '0.5']);
    await page.keyboard.press('Delete');
    assert.equal(await page.getAttribute(cell(1, 0), 'aria-label'), '爱 → 我: no goal for this row');
    await page.waitForFunction(() => location.hash.length > 5);
    assert.deepEqual((await linkState(page)).learn.target[1], [0, 0, 0]);
    // the backward pass shows its work for a cell chosen with the keyboard (the pointer
    // out of the way: a cell under it is shown too)
    await page.mouse.move(0, 0);
    await page.focus('.learn table[data-matrix="∂L/∂Scaled"] td[data-r="0"][data-c="0"]');
    assert.match(await page.textContent('.learn-backward .work'), /∂L\/∂Scaled\[1,1\] = w_ij · \(g_ij − Σ_k w_ik g_ik\)/);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a learned preset opens at the step with its note, its goal reached; the element has the step too', async () => {
  const { context, page, problems } = await openLearn();
  try {
    await page.click('[data-learned="animal"]');
    await page.waitForFunction(() => document.querySelector('.learned-note')?.textContent.includes('200 Adam steps'));
    assert.deepEqual(await matrix(page, 'W_Q'), LEARNED.animal.wq);
    assert.equal(await page.getAttribute('.learn-goal-choice[data-goal="animal"]', 'aria-checked'), 'true');
    const weights = await matrix(page, 'Weights');
    assert.ok(weights[7][1] > 0.99, `it → animal ${weights[7][1]}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
  const example = await browser.newPage();
  try {
    await example.goto(EXAMPLE_FILE);
    await example.evaluate(() => {
      const element = document.querySelector('attention-visualizer');
      element.removeAttribute('steps'); // this one shows only step 1
      element.state = { view: { step: 'learn' } };
    });
    await example.waitForFunction(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.learn-play'));
    const text = await example.evaluate(() => document.querySelector('attention-visualizer').shadowRoot.querySelector('.step-title').textContent);
    assert.match(text, /How attention learns|注意力怎样学会/);
  } finally {
    await example.close();
  }
});
