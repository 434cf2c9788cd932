// "How it learns", from scratch, in the built page (dist/, file://): the induction model trained
// live in the engine's worker reaches a prefix-matching score ≥ 0.4 with its loss curve drawn and
// stops by itself with its verdict; Pause stops the steps (and shows the heads' weights), Resume goes
// on; the scores the page shows equal scores recomputed here, in node, from the model it saves,
// with this file's own loop over the held-out sequences (not the page's inductionScoresOf).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { trackDownloads, downloaded } from './downloads.mjs';
import { inductionHeldOut, inductionScores } from '../../web/src/state/induction.js';
import { recentLoss, bestHead } from '../../web/src/state/learninduction.js';
import { loadEngine, trainInduction } from '../../scripts/train-models.mjs';

const FILE_URL = `${pathToFileURL(path.resolve('dist/index.html')).href}?example=tutorial`;
const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
const GOAL = 0.4;
const LONG = 240000; // ms: a run to the goal takes ~15 s here at a load of 11

let browser;
before(async () => { browser = await launchChromium(); });
after(async () => { await browser?.close(); });

async function openTrainer(locale = 'en-US') {
  const context = await browser.newContext({ locale, acceptDownloads: true });
  await trackDownloads(context);
  const page = await context.newPage();
  page.setDefaultTimeout(20000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.goto(FILE_URL);
  await page.waitForSelector('#steps .step');
  if (!(await page.$('.learn'))) await page.locator('#pipeline .pipeline-stage[data-step="learn"]').click();
  await page.waitForSelector('.induction-play');
  await page.locator('.induction-play').scrollIntoViewIfNeeded();
  return { context, page, problems };
}

const status = (page) => page.$eval('.induction-status', (n) => ({ ...n.dataset, steps: Number(n.dataset.steps), best: Number(n.dataset.best), text: n.textContent }));
const shownScores = (page) => page.$$eval('.induction-scores tbody tr', (rows) => rows.map((tr) => ({
  layer: Number(tr.dataset.layer),
  head: Number(tr.dataset.head),
  induction: Number(tr.querySelector('[data-score="induction"]').dataset.value),
  previous: Number(tr.querySelector('[data-score="previous"]').dataset.value),
})));

// Prefix matching and previous token, per head, written out again: for each held-out sequence
// and query i ≥ 1, the weight on i − 1, and where the query's token has its one earlier copy at c
// (the copied stretch), the weight on c + 1.
function recomputed(engine, model, sequences) {
  const out = [];
  for (let l = 0; l < model.layers.length; l++) {
    for (let h = 0; h < model.layers[l].heads.length; h++) {
      let induction = 0;
      let previous = 0;
      let copied = 0;
      let queries = 0;
      for (const { ids, copies } of sequences) {
        const w = engine.runModel(model, ids).layers[l].attention.heads[h].weights;
        for (let i = 1; i < ids.length; i++) {
          previous += w[i][i - 1];
          queries++;
          if (copies[i] >= 0) {
            induction += w[i][copies[i] + 1];
            copied++;
          }
        }
      }
      out.push({ layer: l, head: h, induction: induction / copied, previous: previous / queries });
    }
  }
  return out;
}

test('training from scratch reaches a prefix-matching score ≥ 0.4 with the loss curve drawn, stops by itself with its verdict, and the scores shown are the saved model\'s, recomputed', { timeout: 2 * LONG }, async () => {
  const { context, page, problems } = await openTrainer();
  try {
    assert.equal((await status(page)).steps, 0);
    assert.equal(await page.textContent('.induction-play'), 'Train from scratch');
    await page.click('.induction-play');
    await page.waitForFunction((goal) => Number(document.querySelector('.induction-status').dataset.best) >= goal, GOAL, { timeout: LONG, polling: 200 });
    const reached = await status(page);
    // the step a head first reached it, said at once
    const goalAt = Number(await page.getAttribute('.induction-verdict', 'data-goal-at'));
    assert.ok(goalAt > 0 && goalAt <= reached.steps && goalAt % 200 === 0, `goal at ${goalAt}`);
    assert.equal(await page.textContent('.induction-verdict'), `A head first reached the goal at step ${goalAt}, as the loss dropped.`);
    assert.ok(reached.steps >= 1000 && reached.steps % 200 === 0, `${reached.steps} steps, in chunks of 200`);
    // the loss curve: a point every 50 steps, falling from near ln 24 = 3.18 (read in one task with the
    // steps shown: training goes on past the goal, and a chunk may land between two reads)
    const [curve, drawnAt] = await page.evaluate(() => [
      document.querySelector('.induction-curve polyline').getAttribute('points').trim().split(/\s+/).map((p) => p.split(',').map(Number)),
      Number(document.querySelector('.induction-status').dataset.steps),
    ]);
    assert.equal(curve.length, drawnAt / 50);
    assert.ok(curve[curve.length - 1][1] > curve[0][1], 'the loss drawn lower at the end than at the start (y grows downwards)');
    // the prefix-matching chart: the best head's line ends above the goal's dashed line
    const [lineEnd, goalY] = await page.$eval('.induction-prefix', (chart) => {
      const lines = [...chart.querySelectorAll('polyline')].map((l) => l.getAttribute('points').trim().split(/\s+/).pop().split(',').map(Number)[1]);
      return [Math.min(...lines), Number(chart.querySelector('.induction-goal').getAttribute('d').split(' ')[1].split('H')[0])];
    });
    assert.ok(lineEnd < goalY, `a head's line (${lineEnd}) above the goal (${goalY})`);
    // it goes on by itself until it stops, and says why, with the verdict on the goal
    await page.waitForFunction(() => document.querySelector('.induction-status').dataset.stop !== '', null, { timeout: LONG, polling: 500 });
    const stopped = await status(page);
    assert.ok(['converged', 'plateau', 'cap'].includes(stopped.stop), stopped.stop);
    const verdict = await page.textContent('.induction-verdict');
    assert.match(verdict, new RegExp(`^Stopped after ${stopped.steps} steps: converged`));
    assert.match(verdict, /Goal reached: layer \d head \d is an induction head/);
    assert.match(verdict, new RegExp(`A head first reached the goal at step ${goalAt}, as the loss dropped\\.$`));
    assert.equal(await page.isDisabled('.induction-play'), true, 'a stopped run is over (Reset starts again)');
    // the scores shown, recomputed in node from the model the page saves
    const { name, bytes } = await downloaded(page, () => page.click('.induction-save'));
    assert.equal(name, `induction-step-${stopped.steps}.json`);
    const model = JSON.parse(bytes.toString());
    assert.equal(model.training.steps, stopped.steps);
    const engine = await loadEngine();
    const expected = recomputed(engine, model, inductionHeldOut());
    const shown = await shownScores(page);
    assert.equal(shown.length, 4);
    for (const s of shown) {
      const e = expected.find((x) => x.layer === s.layer && x.head === s.head);
      assert.ok(Math.abs(s.induction - e.induction) < 1e-12 && Math.abs(s.previous - e.previous) < 1e-12, `layer ${s.layer} head ${s.head}: shown ${JSON.stringify(s)}, recomputed ${JSON.stringify(e)}`);
    }
    const best = expected.reduce((a, b) => (b.induction > a.induction ? b : a));
    assert.ok(best.induction >= GOAL, `recomputed best ${best.induction}`);
    assert.equal(stopped.best, best.induction);
    assert.match(verdict, new RegExp(`layer ${best.layer + 1} head ${best.head + 1} is an induction head — on sequences never trained on, a copied letter puts ${(100 * best.induction).toFixed(1)}%`));
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('Pause stops the steps and shows each head\'s weights on a held-out sequence; Resume goes on from there; Reset starts again (in Chinese)', { timeout: LONG }, async () => {
  const { context, page, problems } = await openTrainer('zh-CN');
  try {
    assert.equal(await page.textContent('.induction-play'), '从零开始训练');
    await page.click('.induction-play');
    await page.waitForFunction(() => Number(document.querySelector('.induction-status').dataset.steps) >= 400, null, { timeout: LONG, polling: 100 });
    await page.click('.induction-play'); // Pause
    await page.waitForFunction(() => document.querySelector('.induction-status').dataset.state === 'paused', null, { timeout: LONG });
    const paused = await status(page);
    assert.equal(await page.textContent('.induction-play'), '继续');
    await page.waitForTimeout(1500);
    assert.deepEqual(await status(page), paused, 'nothing moves after Pause');
    // the heads' weights at the pause: four heatmaps of 24 × 24, titled with the step
    assert.equal(await page.locator('.induction-heads .head-tile canvas').count(), 4);
    assert.match(await page.textContent('.induction-heads'), new RegExp(`第 ${paused.steps} 步时`));
    // axe: nothing critical or serious in the section, light and dark, 1280 and 375 px
    const axeFrom = problems.length; // axe's own fetch of style.css, refused from file://, is not the page's
    await page.evaluate(AXE_SOURCE); // evaluated by the test: the page's CSP allows no inline script
    for (const [scheme, width] of [['light', 1280], ['dark', 375]]) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.setViewportSize({ width, height: 900 });
      const found = await page.evaluate(async () => (await globalThis.axe.run({ include: ['.learn-induction'] }, { resultTypes: ['violations'] })).violations
        .filter((v) => v.impact === 'critical' || v.impact === 'serious').map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`));
      assert.deepEqual(found, [], `${scheme} ${width}`);
    }
    problems.splice(axeFrom);
    const tile = page.locator('.induction-heads .head-tile').nth(2);
    await tile.locator('.head-box').focus();
    await page.keyboard.press('ArrowDown');
    assert.match(await tile.locator('.head-readout').textContent(), /（第 2 个）→ .（第 1 个）：0\.\d{3}/);
    // Resume: on from the paused step, the heatmaps gone while it runs
    await page.click('.induction-play');
    await page.waitForFunction((n) => Number(document.querySelector('.induction-status').dataset.steps) > n, paused.steps, { timeout: LONG });
    assert.equal(await page.locator('.induction-heads .head-tile').count(), 0);
    await page.click('.induction-play');
    await page.waitForFunction(() => document.querySelector('.induction-status').dataset.state === 'paused', null, { timeout: LONG });
    // paused twice, the run is the one never paused, and it is the script's: one trainModel call
    // of as many steps (scripts/train-models.mjs, in node), Adam's state carried over the page's
    // chunks, gives the loss and the best score shown, bit for bit
    const again = await status(page);
    const engine = await loadEngine();
    const { model, losses } = trainInduction(engine, { steps: again.steps });
    assert.equal(Number(again.loss), recentLoss(losses), `step ${again.steps}`);
    assert.equal(again.best, bestHead(inductionScores(engine, model, inductionHeldOut())).induction);
    await page.click('.induction-reset');
    const reset = await status(page);
    assert.equal(reset.steps, 0);
    assert.equal(reset.state, 'idle');
    assert.equal(await page.locator('.induction-scores tbody tr').count(), 0);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('where no worker can start, the same training runs on the page\'s thread, and says so', { timeout: LONG }, async () => {
  const context = await browser.newContext({ locale: 'en-US' });
  await context.addInitScript(() => { delete globalThis.Worker; });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  try {
    await page.goto(FILE_URL);
    await page.waitForSelector('#steps .step');
    await page.locator('#pipeline .pipeline-stage[data-step="learn"]').click();
    await page.waitForSelector('.induction-play');
    await page.click('.induction-play');
    await page.waitForFunction(() => Number(document.querySelector('.induction-status').dataset.steps) >= 400, null, { timeout: LONG, polling: 100 });
    assert.match(await page.textContent('.induction-note'), /allows no background thread/);
    await page.click('.induction-play');
    await page.waitForFunction(() => document.querySelector('.induction-status').dataset.state === 'paused', null, { timeout: LONG });
    assert.equal(await page.locator('.induction-scores tbody tr').count(), 4);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
