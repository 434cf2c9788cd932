// embed.html shows its first result in the reader's language, even when its own script
// (embed.js, which picks the language from the link or the browser) arrives late: a slow
// network, or a loaded machine where the parser yields. The element used to be defined
// before embed.js ran, so it computed and drew the tutorial in Chinese (<html lang="zh-CN">)
// for as long as embed.js took, then switched to English.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { browserAndServer } from './local.mjs';

const local = browserAndServer(path.resolve('dist'));
const { at } = local;

test('embed.html never shows a first result in the wrong language while its script is slow', async () => {
  const context = await local.browser.newContext({ locale: 'en-US' });
  try {
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    // every computed result the element announces, with the language it was drawn in
    await page.addInitScript(() => {
      window.shown = [];
      document.addEventListener('computed', (e) => window.shown.push(e.detail.state.view.lang));
    });
    await page.route(at('embed.js'), async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 1500));
      await route.continue();
    });
    await page.goto(at('embed.html'), { waitUntil: 'commit' });
    await page.waitForFunction(() => window.shown.length > 0, null, { timeout: 30000 });
    await page.waitForFunction(() => document.querySelector('attention-visualizer').ready !== undefined);
    await page.evaluate(() => document.querySelector('attention-visualizer').ready);
    const { shown, lang } = await page.evaluate(() => ({ shown: window.shown, lang: document.documentElement.lang }));
    assert.deepEqual([...new Set(shown)], ['en'], `results drawn in: ${shown.join(', ')}`);
    assert.equal(lang, 'en');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
