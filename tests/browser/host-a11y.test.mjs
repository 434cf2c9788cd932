// The element on a host page (issue 32, item 12): a tutorial page of its own (a header, a
// <main> with h1 and h2 sections, an aside) holding several elements — read-only, several heads
// with a mask, editable, one in <body> after <main> — audited by axe (injected from the file, no
// request) in en (light, 1280 px) and zh (dark, 375 px): no critical or serious violation,
// and none at all of the rules about landmarks, headings' order and empty table headers, since
// the landmarks are the host's (an element adds none: no banner per step, no nav per element).
// heading-level="N" sets the level of the steps' headings (and of the editor's), a value out of
// 1–6 says so in the element. A read-only element's steps are reached in at most 5 Tab stops
// (Previous, the diagram's one stage in the Tab order, Next, "show all steps", the step), counted
// by pressing Tab; ←/→ on that stage open the next step and keep the focus on its stage, and in
// "all steps" Home, End, ←/→ move the focus between the stages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { pageFolder } from './host-pages.mjs';

const AXE_SOURCE = readFileSync(path.resolve('node_modules/axe-core/axe.min.js'), 'utf8');
const DIR = pageFolder('host-a11y', ['attention-visualizer.js']);
// rules whose every finding is the element's business on a host page, whatever its impact
const HOST_RULES = ['landmark-unique', 'landmark-no-duplicate-banner', 'landmark-banner-is-top-level', 'landmark-complementary-is-top-level',
  'landmark-no-duplicate-contentinfo', 'heading-order', 'empty-table-header', 'empty-heading', 'page-has-heading-one'];
const HEADS = JSON.stringify([
  { wq: [[0.5, 0.2], [0.1, 0.6]], wk: [[0.4, 0.3], [0.2, 0.7]], wv: [[0.8, 0.1], [0.3, 0.9]] },
  { wq: [[1, 0], [0, 1]], wk: [[0.3, 0.3], [-1, 0.7]], wv: [[1, 0], [0, 1]] },
]);

function hostPage(lang) {
  const file = path.join(DIR, `${lang}.html`);
  writeFileSync(file, `<!doctype html><html lang="${lang}"><head><meta charset="utf-8"><title>Attention</title><link rel="icon" href="data:,">
<script src="attention-visualizer.js"></script></head>
<body>
<header><p>A tutorial site</p><nav aria-label="Site"><a href="#weights">Weights</a></nav></header>
<main>
<h1>Attention, step by step</h1>
<p>Read first, then edit.</p>
<section aria-labelledby="weights"><h2 id="weights">The weights</h2>
<attention-visualizer step="softmax" heading-level="3"></attention-visualizer></section>
<section aria-labelledby="heads"><h2 id="heads">Two heads</h2>
<attention-visualizer heads='${HEADS}' wo="1 0; 0 1; 0.5 0.5; 0.25 -1" causal key-padding="0,0,1" step="output" head="2" heading-level="3"></attention-visualizer></section>
<section aria-labelledby="edit"><h2 id="edit">Your own</h2>
<attention-visualizer editable step="scores" heading-level="3"></attention-visualizer></section>
</main>
<h2>Also</h2>
<attention-visualizer step="input" panels="nav,formula,work" heading-level="3"></attention-visualizer>
<footer><p>The end</p></footer>
</body></html>
`);
  return pathToFileURL(file).href;
}

async function withPage(fn, { lang = 'en', theme = 'light', width = 1280, url = hostPage(lang) } = {}) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: theme, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(url);
    await page.waitForFunction(() => [...document.querySelectorAll('attention-visualizer')].every((v) => v.result && v.shadowRoot.querySelector('.step')));
    await fn(page);
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
}

test('axe on a host page with several elements, en/light/1280 and zh/dark/375: no serious violation, no landmark, heading or empty-header finding', async () => {
  const found = [];
  for (const [lang, theme, width] of [['en', 'light', 1280], ['zh', 'dark', 375]]) {
    await withPage(async (page) => {
      await page.evaluate(AXE_SOURCE);
      const violations = await page.evaluate(async () => (await globalThis.axe.run(document, { resultTypes: ['violations'] })).violations
        .map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.failureSummary.split('\n')[1]}`) })));
      for (const v of violations) {
        if (v.impact === 'critical' || v.impact === 'serious' || HOST_RULES.includes(v.id)) found.push(`${lang}/${theme}/${width}: ${v.id} (${v.impact}) ${v.nodes.join(' | ')}`);
      }
    }, { lang, theme, width });
  }
  assert.deepEqual(found, []);
});

test('heading-level sets the level of the steps\' headings and of the editor\'s; a value out of 1–6 says so in the element', async () => {
  await withPage(async (page) => {
    const levels = await page.evaluate(() => {
      const [plain, , editable] = document.querySelectorAll('attention-visualizer');
      const level = (v, selector) => v.shadowRoot.querySelector(selector).getAttribute('aria-level');
      return [level(plain, '.step-title'), level(plain, '.lines-title'), level(editable, '#inputs-title'), level(editable, '.subhead'), level(editable, '.step-title')];
    });
    assert.deepEqual(levels, ['3', '4', '3', '4', '3']);
    // changed: read again; removed: the components' own levels
    const changed = await page.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      v.setAttribute('heading-level', '2');
      const two = v.shadowRoot.querySelector('.step-title').getAttribute('aria-level');
      v.removeAttribute('heading-level');
      return [two, v.shadowRoot.querySelector('.step-title').getAttribute('aria-level')];
    });
    assert.deepEqual(changed, ['2', null]);
    for (const [lang, text] of [['en', 'Attribute heading-level is not valid: “heading-level” must be one of 1, 2, 3, 4, 5, 6.'],
      ['zh', '属性 heading-level 无效：“heading-level” 要是 1, 2, 3, 4, 5, 6 之一。']]) {
      const shown = await page.evaluate((l) => {
        const v = document.querySelector('attention-visualizer');
        v.setAttribute('lang', l);
        v.setAttribute('heading-level', '7');
        return [v.shadowRoot.querySelector('.status-error')?.textContent, v.shadowRoot.querySelector('.step-title').getAttribute('aria-level')];
      }, lang);
      assert.deepEqual(shown, [text, null]);
    }
  });
});

// The Tab stops from the page's last link before the element until the focus is inside a step.
async function tabsToSteps(page) {
  await page.focus('nav[aria-label="Site"] a');
  for (let stops = 1; stops <= 30; stops++) {
    await page.keyboard.press('Tab');
    const inStep = await page.evaluate(() => {
      const v = document.querySelector('attention-visualizer');
      const focused = v.shadowRoot.activeElement;
      return Boolean(focused && focused.closest('.step'));
    });
    if (inStep) return stops;
  }
  return Infinity;
}

test('a read-only element\'s steps are at most 5 Tab stops away; ←/→ on its stage open the next step with the focus on its stage', async () => {
  await withPage(async (page) => {
    assert.ok(await tabsToSteps(page) <= 5, `${await tabsToSteps(page)} Tab stops`);
    const stage = page.locator('attention-visualizer .pipeline-stage[tabindex="0"]').first();
    await stage.focus();
    assert.equal(await stage.getAttribute('data-step'), 'softmax');
    await page.keyboard.press('ArrowRight');
    const focused = () => page.evaluate(() => {
      const node = document.querySelector('attention-visualizer').shadowRoot.activeElement;
      return node && [node.dataset.step, node.getAttribute('tabindex'), node.getAttribute('aria-current')];
    });
    assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.view.step), 'output');
    assert.deepEqual(await focused(), ['output', '0', 'step']);
    // all steps at once: no stage is current; Home, End and the arrows move the focus between the stages
    await page.evaluate(() => { document.querySelector('attention-visualizer').state = { view: { step: 'all' } }; });
    await page.locator('attention-visualizer .pipeline-stage[tabindex="0"]').first().focus();
    assert.deepEqual(await focused(), ['input', '0', null]);
    await page.keyboard.press('End');
    assert.deepEqual(await focused(), ['learn', '0', null]);
    await page.keyboard.press('ArrowLeft');
    assert.deepEqual(await focused(), ['output', '0', null]);
    await page.keyboard.press('Enter');
    assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.view.step), 'output');
  });
});
