// The page on a phone (375 × 812, touch) and a desktop (1280 × 800), in built dist/ from
// file://: a tapped cell's explanation in view with the cell (issue 31 item 9).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { waitForSteps, openStep } from './ui.mjs';

const FILE_URL = pathToFileURL(path.resolve('dist', 'index.html')).href;
const PHONE = { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1280, height: 800 } };

let browser;
before(async () => { browser = await launchChromium(); });
after(async () => { await browser?.close(); });

async function open(device, lang = 'en') {
  const context = await browser.newContext({ ...device, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(FILE_URL);
  await waitForSteps(page);
  return { context, page, problems };
}

// The part of the viewport not under the sticky toolbar: [top, bottom] in CSS px.
const band = (page) => page.evaluate(() => [document.querySelector('#steps-toolbar').getBoundingClientRect().bottom, innerHeight]);
const boxOf = (locator) => locator.evaluate((node) => {
  const r = node.getBoundingClientRect();
  return { top: r.top, bottom: r.bottom };
});

// issue 31 item 9: after a tap on Weights[爱,爱] the explanation began ~265 px below a phone's
// screen (and at y = 797 of 800 on a desktop after a click): nothing seemed to happen.
for (const [name, device] of [['a phone (375 px, a tap)', PHONE], ['a desktop (1280 × 800, a click)', DESKTOP]]) {
  test(`a tapped cell's explanation comes into view with the cell on ${name}`, async () => {
    const { context, page, problems } = await open(device);
    try {
      await openStep(page, 5);
      const cell = page.locator('#steps table[data-matrix="Weights"] td[data-r="1"][data-c="1"]');
      await cell.scrollIntoViewIfNeeded();
      if (device.hasTouch) await cell.tap();
      else await cell.click();
      const work = page.locator('#steps .step .work').first();
      await page.waitForFunction(() => /Weights\[爱, 爱\]/.test(document.querySelector('#steps .work').textContent));
      await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
      const [top, bottom] = await band(page);
      const c = await boxOf(cell);
      const w = await boxOf(work);
      assert.ok(c.top >= top - 0.5 && c.bottom <= bottom + 0.5, `cell ${c.top}–${c.bottom} outside ${top}–${bottom}`);
      assert.ok(w.top >= top - 0.5 && w.bottom <= bottom + 0.5, `explanation ${w.top}–${w.bottom} outside ${top}–${bottom}`);
      // not on top of the cell
      assert.ok(w.top >= c.bottom, `explanation at ${w.top} covers the cell (bottom ${c.bottom})`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}
