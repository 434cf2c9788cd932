// The page's live training from scratch (bench.mjs --training-only).
import { launchChromium, fmt, openPage, longestTask } from './common.mjs';

/* global document -- the callbacks of page.evaluate run in the page */

// "How it learns", from scratch (issue 36): the page's live training of the induction model, in
// the engine's worker, from its click on "Train from scratch" to the first measurement of a head
// with a prefix-matching score ≥ 0.4 on the held-out sequences (goal ≤ 30 s), with the step it
// came at and the page's longest task meanwhile (longestTask). A fresh page a round.
const TRAINING_ROUNDS = 2;
const TRAINING_GOAL_S = 30;

export async function trainingSection() {
  const browser = await launchChromium();
  const rounds = [];
  try {
    for (let r = 0; r < TRAINING_ROUNDS; r++) {
      const { page, errors } = await openPage(browser);
      await page.locator('#pipeline .pipeline-stage[data-step="learn"]').click();
      await page.locator('.induction-play').scrollIntoViewIfNeeded();
      const { value, cpu, wall } = await longestTask(browser, page, async () => {
        const started = Date.now();
        await page.click('.induction-play');
        await page.waitForFunction(() => Number(document.querySelector('.induction-status').dataset.best) >= 0.4, null, { timeout: 300000, polling: 100 });
        const seconds = (Date.now() - started) / 1000;
        const steps = Number(await page.$eval('.induction-status', (n) => n.dataset.steps));
        return { seconds, steps };
      });
      if (errors.length) throw new Error(`the page failed: ${errors.join('; ')}`);
      rounds.push({ ...value, cpu, wall });
      await page.close();
    }
  } finally {
    await browser.close();
  }
  const best = rounds.reduce((a, b) => (b.seconds < a.seconds ? b : a));
  const lines = [`Training live (issue 36): "How it learns" trains the induction model (2 layers × 2 heads, the shipped model's seed, data and initial weights) from scratch in the engine's worker, chunks of 200 steps, every head's scores measured after each on the 48 held-out sequences; time from the click to the first measurement with a prefix-matching score ≥ 0.4, in s (goal ≤ ${TRAINING_GOAL_S} s), the least of ${TRAINING_ROUNDS} rounds (each: ${rounds.map((x) => x.seconds.toFixed(1)).join(', ')}); the page's longest task meanwhile, CPU (trace) and wall (longtask, 0: none over 50 ms)`, ''];
  const header = ['run', 'seconds to score ≥ 0.4', 'at step', 'ms a step (all in)', 'longest task CPU ms', 'longest task wall ms'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  lines.push(`| induction, from scratch | ${best.seconds.toFixed(1)} | ${best.steps} | ${((1000 * best.seconds) / best.steps).toFixed(2)} | ${fmt(Math.max(...rounds.map((x) => x.cpu)))} | ${fmt(Math.max(...rounds.map((x) => x.wall)))} |`);
  return lines;
}
