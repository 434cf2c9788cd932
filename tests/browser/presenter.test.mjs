// Presenter mode (issue 38, for the classroom): index.html's "Present" shows the steps alone,
// full screen, in large type, one step at a time, driven by the keys slide clickers send
// (PageDown/PageUp, the arrows, B or . for a blank screen, Esc to leave); the explained cell is
// ringed large; no editor. Keys are pressed; what is shown is read, measured and looked at.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { readFileSync } from 'node:fs';
import { browserAndServer } from './local.mjs';
import { waitForSteps } from './ui.mjs';

const local = browserAndServer(path.resolve('dist'));
const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
const position = (page) => page.locator('#step-position').textContent();
const shown = (page, selector) => page.locator(selector).first().isVisible();

test('presenter mode: the keys of a clicker move one step, B and . blank the screen, Esc leaves; large type, no editor, the pointer ringed', async () => {
  for (const [lang, locale] of [['en', 'en-US'], ['zh', 'zh-CN']]) {
    for (const theme of ['light', 'dark']) {
      for (const width of [1280, 375]) {
        const context = await local.browser.newContext({ locale, colorScheme: theme, viewport: { width, height: 800 } });
        const page = await context.newPage();
        const problems = [];
        page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
        try {
          await page.goto(local.at('index.html?example=tutorial'));
          await waitForSteps(page);
          const n = (text) => Number(/(\d+)/.exec(text)[1]);
          const titleSize = () => page.evaluate(() => parseFloat(getComputedStyle(document.querySelector('#steps .step-title')).fontSize));
          const before = await titleSize();
          const start = n(await position(page));
          assert.equal(await page.textContent('#present'), lang === 'en' ? 'Present' : '演示');
          await page.focus('#present');
          await page.keyboard.press('Enter');
          await page.waitForFunction(() => document.documentElement.classList.contains('presenting'));
          assert.ok((await titleSize()) >= before * (width > 700 ? 1.45 : 1.15), `large type: ${before} → ${await titleSize()} px`);
          for (const hidden of ['body > header', '#edit-toggle', '#edit-panel', '#share-tools', '.step-options']) {
            assert.equal(await shown(page, hidden), false, `${hidden} is hidden`);
          }
          assert.equal(await page.locator('#steps > .step').count(), 1, 'one step at a time');
          await page.keyboard.press('PageDown');
          assert.equal(n(await position(page)), start + 1);
          await page.keyboard.press('PageUp');
          await page.keyboard.press('PageUp');
          assert.equal(n(await position(page)), start - 1);
          await page.keyboard.press('ArrowRight');
          await page.keyboard.press('ArrowDown');
          assert.equal(n(await position(page)), start + 1);
          await page.keyboard.press('ArrowLeft');
          await page.keyboard.press('ArrowUp');
          assert.equal(n(await position(page)), start - 1);
          await page.keyboard.press('PageDown');
          assert.equal(n(await position(page)), start, 'back on the weights');
          // the pointer: a focused cell is ringed large; the arrows move it there, not the step
          const cell = (r, c) => page.locator(`#steps table.matrix[data-matrix="Weights"] td[data-r="${r}"][data-c="${c}"]`);
          await cell(0, 0).focus();
          await page.keyboard.press('ArrowRight');
          assert.equal(n(await position(page)), start, 'an arrow in a matrix moves the pointer');
          assert.equal(await page.evaluate(() => document.activeElement.dataset.c), '1');
          const ring = await cell(0, 1).evaluate((td) => ({ cls: td.className, width: getComputedStyle(td).outlineWidth }));
          assert.match(ring.cls, /mark-selected/);
          assert.equal(ring.width, '5px');
          await page.keyboard.press('PageDown');
          assert.equal(n(await position(page)), start + 1, 'PageDown still moves a step from a cell');
          await page.keyboard.press('PageUp');
          // a blank screen, and back
          await page.keyboard.press('b');
          assert.equal(await shown(page, '#presenter-blank'), true);
          const dark = await page.evaluate(() => getComputedStyle(document.getElementById('presenter-blank')).backgroundColor);
          assert.equal(dark, 'rgb(0, 0, 0)');
          await page.keyboard.press('.');
          assert.equal(await shown(page, '#presenter-blank'), false);
          await page.keyboard.press('.');
          assert.equal(await shown(page, '#presenter-blank'), true);
          await page.keyboard.press('B');
          assert.equal(await shown(page, '#presenter-blank'), false);
          await page.screenshot({ path: `/tmp/shots-exercise/present-${lang}-${theme}-${width}.png` });
          // (the numbers flowing into a step are half-transparent while in flight: axe reads the step once they land)
          await page.waitForFunction(() => !document.querySelector('.flow-ghost, .flow-ring'));
          if (!await page.evaluate(() => 'axe' in globalThis)) await page.evaluate(AXE_SOURCE);
          const serious = await page.evaluate(async () => (await globalThis.axe.run(document, { resultTypes: ['violations'] })).violations
            .filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id}: ${JSON.stringify(v.nodes[0].target)}`));
          assert.deepEqual(serious, [], `${lang} ${theme} ${width}`);
          await page.keyboard.press('Escape');
          await page.waitForFunction(() => !document.documentElement.classList.contains('presenting'));
          assert.equal(await shown(page, 'body > header'), true);
          assert.equal(await shown(page, '#presenter-exit'), false);
          assert.equal(await page.evaluate(() => document.activeElement.id), 'present', 'the focus goes back to Present');
          // out of presenter mode the keys are the page's again: B types nothing, no blank
          await page.keyboard.press('b');
          assert.equal(await shown(page, '#presenter-blank'), false);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      }
    }
  }
});
