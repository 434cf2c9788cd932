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
import { encodeHash } from '../../web/src/state/link.js';
import { tutorialState } from '../../web/src/state/presets.js';
import { browserAndServer } from './local.mjs';
import { waitForSteps, openEditor } from './ui.mjs';

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
  // a script evaluated by the test (not the page): the page's CSP allows no inline script
  if (!await page.evaluate(() => 'axe' in globalThis)) await page.evaluate(AXE_SOURCE);
  const results = await page.evaluate(async (scope) => {
    const report = await globalThis.axe.run(scope ? { include: scope } : document, { resultTypes: ['violations'] });
    return report.violations.filter((v) => v.impact === 'critical' || v.impact === 'serious')
      .map((v) => `${v.id} (${v.impact}) ×${v.nodes.length}: ${v.nodes.slice(0, 3).map((n) => `${JSON.stringify(n.target)} ${n.failureSummary.split('\n').slice(1, 2).join('')}`).join(' | ')}`);
  }, include);
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
    // an element in full mode (index.html) has no shadow root: its details are in the document
    for (const host of root.querySelectorAll('attention-visualizer')) if (host.shadowRoot) open(host.shadowRoot);
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
  const { context, page, problems } = await open(`${fileUrl('index.html')}?example=tutorial`);
  const found = [];
  try {
    await waitForSteps(page);
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
      await openEditor(page);
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
        && document.querySelector('attention-visualizer').shadowRoot.querySelectorAll('.step').length === 7);
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

// ---- the keyboard ----

// The focused element, inside shadow roots too, as "tag#id.class[data-focus-id]".
const ACTIVE = `(() => {
  let node = document.activeElement;
  while (node && node.shadowRoot && node.shadowRoot.activeElement) node = node.shadowRoot.activeElement;
  return node;
})()`;
const activeName = (page) => page.evaluate(`(() => {
  const node = ${ACTIVE};
  if (!node || node === document.body) return 'body';
  return node.tagName.toLowerCase() + (node.id ? '#' + node.id : '') + (node.dataset.focusId ? '[' + node.dataset.focusId + ']' : '');
})()`);

// WCAG relative luminance and contrast of two sRGB colours [r, g, b] (0–255).
function luminance(rgb) {
  const [r, g, b] = rgb.map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

// The focus ring of the focused element: its outline, and the colour it is drawn
// on (the element's own background for an outline inside it, else what is behind
// the element), with every translucent background composited down to the canvas.
const RING = `(() => {
  const node = ${ACTIVE};
  if (!node || node === document.body) return null;
  // a file input is transparent over its label, whose box shows the ring
  const shown = node.matches('.av-file input') ? node.parentElement.querySelector('span') : node;
  const style = getComputedStyle(shown);
  const rgba = (text) => {
    const m = /rgba?\\(([\\d.]+),\\s*([\\d.]+),\\s*([\\d.]+)(?:,\\s*([\\d.]+))?\\)/.exec(text);
    return m ? [+m[1], +m[2], +m[3], m[4] === undefined ? 1 : +m[4]] : null;
  };
  const parent = (n) => n.parentElement || (n.getRootNode().host ?? null);
  const canvas = document.createElement('div');
  canvas.style.background = 'Canvas';
  document.body.append(canvas);
  let under = rgba(getComputedStyle(canvas).backgroundColor);
  canvas.remove();
  const layers = [];
  let gradient = null;
  for (let n = parseFloat(style.outlineOffset) < 0 ? shown : parent(shown); n; n = parent(n)) {
    const s = getComputedStyle(n);
    if (s.backgroundImage !== 'none') gradient = n.className;
    layers.push(rgba(s.backgroundColor));
    if (layers.at(-1)[3] === 1) break;
  }
  for (const [r, g, b, a] of layers.reverse()) under = [r * a + under[0] * (1 - a), g * a + under[1] * (1 - a), b * a + under[2] * (1 - a), 1];
  const box = shown.getBoundingClientRect();
  return {
    style: style.outlineStyle, width: parseFloat(style.outlineWidth), color: rgba(style.outlineColor),
    background: under.slice(0, 3), gradient, visible: box.width > 0 && box.height > 0,
  };
})()`;

// Tabs through every stop of the page (up to `limit`) and returns the problems of
// each focus ring: no outline, thinner than 2 px, or below 3:1 against its background.
async function checkRings(page, label, limit = 250) {
  const problems = [];
  const seen = [];
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    const name = await activeName(page);
    if (name === 'body' || name === seen[0]) break;
    seen.push(name);
    const ring = await page.evaluate(RING);
    const ratio = ring.color ? contrast(ring.color, ring.background) : 0;
    if (!ring.visible || ring.style === 'none' || ring.style === 'auto' || ring.width < 2 || ring.gradient || ratio < 3) {
      problems.push(`${label} ${name}: ${ring.style} ${ring.width}px rgb(${ring.color}) on rgb(${ring.background.map(Math.round)})${ring.gradient ? ` over a gradient (${ring.gradient})` : ''} = ${ratio.toFixed(2)}:1`);
    }
  }
  return { problems, stops: seen.length };
}

test('focus: every Tab stop shows a ring of 2 px or more at 3:1 or more, light and dark (page, embed.html, tutorial)', async () => {
  for (const theme of THEMES) {
    for (const [url, ready, least] of [
      // the page with its edit panel open (its inputs' stops too), opened by a click
      // event that moves no focus, so that the Tabs start at the top of the page
      [`${fileUrl('index.html')}?example=tutorial`, async (page) => {
        await waitForSteps(page);
        await page.locator('#edit-toggle').dispatchEvent('click');
        await page.waitForSelector('#sentence');
      }, 60],
      [`${fileUrl('embed.html')}?editable`, (page) => page.waitForSelector('attention-visualizer >> table.matrix'), 20],
      // the playground, far down the tutorial, is drawn before the Tabs reach it (a reader's Tabs
      // scroll the page down to it): it is started here as they would
      [fileUrl('examples/tutorial.html'), (page) => page.evaluate(() => document.getElementById('playground').ready).then(() => page.waitForSelector('#playground >> table.matrix')), 30],
    ]) {
      const file = url.slice(url.lastIndexOf('/') + 1);
      const { context, page, problems } = await open(url, { theme });
      try {
        await ready(page);
        await openAllDetails(page);
        const rings = await checkRings(page, `${theme} ${file}`);
        assert.deepEqual(rings.problems, []);
        assert.ok(rings.stops >= least, `${file}: ${rings.stops} Tab stops`);
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    }
  }
});

test('keyboard: the skip link is the first Tab stop and reaches Previous/Next in at most 5 Tabs; the address stays', async () => {
  for (const width of WIDTHS) {
    const { context, page, problems } = await open(`${fileUrl('index.html')}?example=tutorial`, { width });
    try {
      await waitForSteps(page);
      const address = await page.evaluate(() => location.href);
      await page.keyboard.press('Tab');
      assert.equal(await activeName(page), 'a#skip-link');
      const box = await page.locator('#skip-link').boundingBox();
      assert.ok(box.y >= 0 && box.height > 0, 'the focused skip link is in sight');
      assert.equal(await page.textContent('#skip-link'), 'Skip to the steps');
      await page.keyboard.press('Enter');
      assert.equal(await activeName(page), 'div#step-controls');
      let tabs = 1;
      while (!['button#prev', 'button#next'].includes(await activeName(page)) && tabs < 20) {
        await page.keyboard.press('Tab');
        tabs++;
      }
      assert.ok(tabs <= 5, `${tabs} Tabs to the step controls`);
      assert.equal(await activeName(page), 'button#prev', 'the page opens on the weights, Previous enabled');
      // the steps' heading is in sight, and the link did not touch the state in the address
      const heading = await page.locator('#steps-title').boundingBox();
      assert.ok(heading.y >= 0 && heading.y < 900, `the steps' heading at ${heading.y}`);
      assert.equal(await page.evaluate(() => location.href), address);
      assert.equal(await page.locator('#status .status-error').count(), 0);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});

test('keyboard: a button that disables itself hands its focus on (Next, Previous, Undo, Redo; Play keeps it), never to the body', async () => {
  const { context, page, problems } = await open(`${fileUrl('index.html')}?example=tutorial`, { clock: true });
  try {
    await waitForSteps(page);
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    assert.equal(await activeName(page), 'button#prev');
    await page.keyboard.press('Tab');
    assert.equal(await activeName(page), 'button#next');
    assert.equal(await page.textContent('#step-position'), 'Step 5 of 7', 'the page opens on the weights');
    await page.keyboard.press('Enter');
    assert.equal(await page.textContent('#step-position'), 'Step 6 of 7');
    await page.keyboard.press('Enter');
    assert.equal(await page.textContent('#step-position'), 'Step 7 of 7');
    assert.equal(await page.isDisabled('#next'), true);
    assert.equal(await activeName(page), 'button#prev', 'Next at the last step');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Enter');
    assert.equal(await page.textContent('#step-position'), 'Step 1 of 7');
    assert.equal(await activeName(page), 'button#next', 'Previous at the first step');
    // → walks the steps from Next too
    for (let i = 0; i < 6; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await page.textContent('#step-position'), 'Step 7 of 7');
    assert.equal(await activeName(page), 'button#prev', '→ to the last step');

    // Play at the last step starts over from the first, runs to the last and stops
    // (Next disabled meanwhile); the focus stays on it. It is the first stop after
    // the pipeline diagram's stages.
    let name = await activeName(page);
    for (let i = 0; i < 20 && (name === 'button#prev' || name.startsWith('g[')); i++) {
      await page.keyboard.press('Tab');
      name = await activeName(page);
    }
    assert.equal(name, 'button#play');
    await page.keyboard.press('Enter');
    assert.equal(await page.textContent('#step-position'), 'Step 1 of 7');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'true');
    await page.clock.runFor(6 * 3000);
    assert.equal(await page.textContent('#step-position'), 'Step 7 of 7');
    assert.equal(await page.getAttribute('#play', 'aria-pressed'), 'false');
    assert.equal(await activeName(page), 'button#play');

    // Undo until there is nothing left to undo: the focus goes to Redo, and back.
    await openEditor(page);
    await page.click('#sentence');
    await page.keyboard.press('End');
    await page.keyboard.type('他');
    await page.waitForFunction(() => document.querySelectorAll('#token-list li').length === 4);
    await page.keyboard.press('Shift+Tab'); // over Redo, disabled
    assert.equal(await activeName(page), 'button#undo');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('#token-list li').length === 3);
    assert.equal(await page.isDisabled('#undo'), true);
    assert.equal(await activeName(page), 'button#redo', 'Undo with nothing left to undo');
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('#token-list li').length === 4);
    assert.equal(await page.isDisabled('#redo'), true);
    assert.equal(await activeName(page), 'button#undo', 'Redo with nothing left to redo');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('keyboard: in <attention-visualizer> (embed.html), Next at the last step hands its focus to Previous', async () => {
  const { context, page, problems } = await open(fileUrl('embed.html'));
  try {
    await page.waitForSelector('attention-visualizer >> table.matrix');
    let tabs = 0;
    while (await activeName(page) !== 'button[next]' && tabs < 20) {
      await page.keyboard.press('Tab');
      tabs++;
    }
    assert.equal(await activeName(page), 'button[next]');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Enter');
    assert.equal(await page.locator('attention-visualizer li.step').getAttribute('data-step'), 'learn');
    assert.equal(await activeName(page), 'button[prev]');
    for (let i = 0; i < 6; i++) await page.keyboard.press('Enter');
    assert.equal(await page.locator('attention-visualizer li.step').getAttribute('data-step'), 'input');
    assert.equal(await activeName(page), 'button[next]');
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('embed.html follows the browser language (navigator.languages) unless its state says', async () => {
  for (const [locale, lang, html, next] of [['en-US', 'en', 'en', 'Next →'], ['zh-CN', 'zh', 'zh-CN', '下一步 →']]) {
    const { context, page, problems } = await open(fileUrl('embed.html'), { locale });
    try {
      await page.waitForSelector('attention-visualizer >> table.matrix');
      const shown = await page.evaluate(() => ({
        html: document.documentElement.lang,
        lang: document.querySelector('attention-visualizer').state.view.lang,
        next: document.querySelector('attention-visualizer').shadowRoot.querySelector('[data-focus-id="next"]').textContent,
        title: document.title,
        link: document.getElementById('open-full').textContent,
      }));
      assert.deepEqual(shown, {
        html, lang, next, title: lang === 'zh' ? '注意力计算' : 'Attention', link: lang === 'zh' ? '在完整页面中打开' : 'Open in the full page',
      });
      // a state that says its language keeps it
      const other = lang === 'en' ? 'zh' : 'en';
      await page.goto('about:blank');
      await page.goto(`${fileUrl('embed.html')}#${encodeHash(tutorial({ lang: other }))}`);
      await page.waitForSelector('attention-visualizer >> table.matrix');
      assert.equal(await page.evaluate(() => document.querySelector('attention-visualizer').state.view.lang), other);
      assert.equal(await page.evaluate(() => document.documentElement.lang), other === 'zh' ? 'zh-CN' : 'en');
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});
