// The page on a phone (375 × 812, touch) and a desktop (1280 × 800), in built dist/ from
// file://: a tapped cell's explanation in view with the cell (issue 31 item 9).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launchChromium } from './chromium.mjs';
import { waitForSteps, openStep } from './ui.mjs';
import { pageFolder } from './host-pages.mjs';
import { tutorialState } from '../../web/src/state/presets.js';
import { encodeHash } from '../../web/src/state/link.js';

const FILE_URL = `${pathToFileURL(path.resolve('dist', 'index.html')).href}?example=tutorial`;
const PHONE = { viewport: { width: 375, height: 812 }, hasTouch: true, isMobile: true };
const DESKTOP = { viewport: { width: 1280, height: 800 } };

let browser;
before(async () => { browser = await launchChromium(); });
after(async () => { await browser?.close(); });

async function open(device, lang = 'en', hash = '') {
  const context = await browser.newContext({ ...device, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(`${FILE_URL}${hash}`);
  if (hash) await page.waitForSelector('#steps .step');
  else await waitForSteps(page);
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

// Beyond 24 tokens a matrix is a heatmap: a tap on one of its cells brings the work into view too.
test('a tapped heatmap cell\'s explanation comes into view with its cell on a phone', async () => {
  const grid = (rows, cols, k) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (__, j) => ((i * 7 + j * 3 + k) % 10) / 10 - 0.5));
  const state = {
    ...tutorialState('en'),
    tokens: Array.from({ length: 30 }, (_, i) => `t${i + 1}`),
    x: grid(30, 2, 0),
    heads: [{ wq: grid(2, 2, 1), wk: grid(2, 2, 2), wv: grid(2, 2, 3) }],
    keyPadding: Array(30).fill(false),
  };
  const { context, page, problems } = await open(PHONE, 'en', `#${encodeHash(state)}`);
  try {
    await openStep(page, 5);
    const heatmap = page.locator('#steps .matrix-canvas[data-matrix="Weights"] .heat-box');
    await heatmap.scrollIntoViewIfNeeded();
    const box = await heatmap.boundingBox();
    await page.touchscreen.tap(box.x + box.width * 0.52, box.y + box.height * 0.88);
    await page.waitForFunction(() => /Weights\[t27, t16\]/.test(document.querySelector('#steps .work').textContent));
    await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
    const [top, bottom] = await band(page);
    const mark = await boxOf(page.locator('#steps .matrix-canvas[data-matrix="Weights"] .mark-selected'));
    const work = await boxOf(page.locator('#steps .step .work').first());
    assert.ok(mark.top >= top - 0.5 && mark.bottom <= bottom + 0.5, `the cell's mark ${mark.top}–${mark.bottom} outside ${top}–${bottom}`);
    assert.ok(work.top >= mark.bottom && work.bottom <= bottom + 0.5, `explanation ${work.top}–${work.bottom}, the cell ends at ${mark.bottom}, the screen at ${bottom}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// Every pointer target on screen whose box is under 24 × 24 CSS px and not spaced (WCAG 2.2,
// 2.5.8: a 24 px circle on its centre meets no other target nor another small target's circle),
// as "what WxH" strings; the folds opened first so that their contents count.
const smallTargets = (page) => page.evaluate(() => {
  for (const details of document.querySelectorAll('details')) details.open = true;
  const selector = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [role=radio], [tabindex], .pipeline-stage';
  const targets = [...document.querySelectorAll(selector)].map((node) => ({ node, r: node.getBoundingClientRect() }))
    .filter(({ node, r }) => r.width > 1 && r.height > 1 && getComputedStyle(node).visibility !== 'hidden' && !node.closest('[hidden], [inert]'));
  const centre = ({ r }) => [r.left + r.width / 2, r.top + r.height / 2];
  const small = targets.filter(({ r }) => r.width < 24 || r.height < 24);
  const meets = (t, other) => {
    const [x, y] = centre(t);
    if (other.r.width < 24 || other.r.height < 24) {
      const [u, v] = centre(other);
      if (Math.hypot(x - u, y - v) < 24) return true;
    }
    const dx = Math.max(other.r.left - x, 0, x - other.r.right);
    const dy = Math.max(other.r.top - y, 0, y - other.r.bottom);
    return Math.hypot(dx, dy) < 12;
  };
  const label = ({ node, r }) => `${node.tagName.toLowerCase()}${node.id ? `#${node.id}` : ''}.${String(node.className?.baseVal ?? node.className).split(' ')[0]} "${(node.textContent || node.getAttribute('aria-label') || '').trim().slice(0, 20)}" ${r.width.toFixed(1)}×${r.height.toFixed(1)}`;
  return [...new Set(small.filter((t) => targets.some((other) => other !== t && !other.node.contains(t.node) && !t.node.contains(other.node) && meets(t, other))).map(label))];
});

// issue 31 item 10: "pad" 36 × 19, checkboxes 16 × 16, "Also train X" 13 × 13, the diagram's
// Q/K/V stages 22 px tall, "Paste or edit as text" 21 px; token indices and "query \ key" at
// 11.2 px; the pinned toolbar ~150 of a phone's 812 px.
for (const [name, device] of [['375 px', PHONE], ['1280 px', DESKTOP]]) {
  test(`every pointer target is at least 24 × 24 px or spaced, and no label is under 12 px, at ${name}`, async () => {
    const { context, page, problems } = await open(device);
    try {
      assert.deepEqual(await smallTargets(page), [], 'the first screen');
      if (await page.getAttribute('#edit-toggle', 'aria-expanded') !== 'true') await page.click('#edit-toggle');
      await page.waitForSelector('.token-pad');
      assert.deepEqual(await smallTargets(page), [], 'the edit panel open');
      await page.locator('#pipeline .pipeline-stage[data-step="learn"]').click();
      await page.waitForSelector('.learn-train-x input');
      assert.deepEqual(await smallTargets(page), [], 'How it learns');
      const sizes = await page.$$eval('.token-index, table.matrix th.corner, .token-pad', (nodes) => [...new Set(nodes.map((n) => `${n.className} ${getComputedStyle(n).fontSize}`))]);
      for (const size of sizes) assert.ok(parseFloat(size.split(' ').pop()) >= 12, size);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

test('the pinned toolbar takes at most 110 of a phone\'s 812 px and still holds Previous, Next and the diagram', async () => {
  const { context, page, problems } = await open(PHONE);
  try {
    await page.evaluate(() => scrollTo(0, document.getElementById('steps').getBoundingClientRect().top + scrollY + 400));
    const bar = await boxOf(page.locator('#steps-toolbar'));
    assert.ok(bar.top <= 0.5 && bar.bottom - bar.top <= 110, `toolbar ${bar.top}–${bar.bottom}`);
    for (const selector of ['#prev', '#next', '#pipeline']) {
      const box = await boxOf(page.locator(selector));
      assert.ok(box.top >= bar.top && box.bottom <= bar.bottom + 0.5, `${selector} in the toolbar: ${box.top}–${box.bottom}`);
    }
    assert.equal(await page.getAttribute('#prev', 'data-i18n'), 'prev');
    assert.deepEqual(await page.evaluate(() => [...document.querySelectorAll('#prev, #next')].map((b) => b.textContent)), ['← Previous', 'Next →']);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// The diagram's scroll state and mask: [data-more, the computed mask-image is not none, it overflows].
const pipelineEnds = (page) => page.$eval('#pipeline .pipeline', (p) => [p.dataset.more, getComputedStyle(p).maskImage !== 'none', p.scrollWidth > p.clientWidth]);
const frames = (page) => page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));

// issue 31 item 11: on a phone the diagram was cut at both ends ("· Kᵀ" … "lear") with nothing
// saying it scrolls; with the edit panel open at 1280 px it stopped after "concat", and the
// 11-column matrices of "The animal didn't cross the street because it was too tired" hid "too"
// and "tired" behind an inner scroll.
test('the diagram says which ends scroll, and the 11-token matrices fit beside the edit panel at 1280 px', async () => {
  const phone = await open(PHONE);
  try {
    await openStep(phone.page, 5);
    await frames(phone.page);
    assert.deepEqual(await pipelineEnds(phone.page), ['both', true, true], 'cut at both ends: both fade');
    await phone.page.$eval('#pipeline .pipeline', (p) => { p.scrollLeft = 0; });
    await frames(phone.page);
    assert.deepEqual(await pipelineEnds(phone.page), ['right', true, true], 'at the start: more on the right');
    await phone.page.$eval('#pipeline .pipeline', (p) => { p.scrollLeft = p.scrollWidth; });
    await frames(phone.page);
    assert.deepEqual(await pipelineEnds(phone.page), ['left', true, true], 'at the end: more on the left');
    // the 11-token matrices cannot fit a phone: their hidden end fades too
    await phone.page.click('#edit-toggle');
    await phone.page.click('[data-preset="animal"]');
    await openStep(phone.page, 5);
    const weights = '#steps .matrix-scroll:has(table[data-matrix="Weights"])';
    await phone.page.waitForSelector(`${weights} th:text-is("tired")`);
    await frames(phone.page);
    const ends = (selector) => phone.page.$eval(selector, (box) => [box.dataset.more, getComputedStyle(box).maskImage !== 'none', box.scrollWidth > box.clientWidth]);
    assert.deepEqual(await ends(weights), ['right', true, true], 'an 11-column matrix on a phone: more on the right');
    await phone.page.$eval(weights, (box) => { box.scrollLeft = box.scrollWidth; });
    await frames(phone.page);
    assert.deepEqual(await ends(weights), ['left', true, true], 'scrolled to its end: more on the left');
    assert.deepEqual(phone.problems, []);
  } finally {
    await phone.context.close();
  }
  const { context, page, problems } = await open(DESKTOP);
  try {
    await page.click('#edit-toggle');
    await frames(page);
    assert.deepEqual(await pipelineEnds(page), ['', false, false], 'the tutorial\'s diagram fits beside the panel, no fade');
    await page.click('[data-preset="animal"]');
    await openStep(page, 5);
    await page.waitForSelector('#steps table[data-matrix="Weights"] th:text-is("tired")');
    const views = await page.$$eval('#steps .step .matrix-scroll', (boxes) => boxes.map((box) => ({
      name: box.querySelector('table').dataset.matrix, client: box.clientWidth, scroll: box.scrollWidth, right: box.getBoundingClientRect().right,
    })));
    assert.equal(views.length, 2);
    for (const v of views) assert.ok(v.scroll <= v.client, `${v.name}: ${v.scroll} px in a box of ${v.client}`);
    assert.deepEqual(await page.$$eval('#steps .step .matrix-scroll', (boxes) => boxes.map((box) => box.dataset.more)), ['', ''], 'nothing hidden, nothing fades');
    const tired = await page.locator('#steps table[data-matrix="Weights"] thead th:text-is("tired")').boundingBox();
    const panel = await page.locator('#edit-panel').boundingBox();
    assert.ok(tired.x + tired.width <= panel.x, `"tired" (right edge ${tired.x + tired.width}) left of the panel (${panel.x})`);
    // two heads, W_O, a mask and positions: the diagram is wider than its column, and says so
    await page.fill('#heads', '2');
    for (const id of ['causal', 'positional-encoding', 'use-wo']) await page.check(`#${id}`);
    await page.waitForSelector('#pipeline [data-stage="concat"]');
    await frames(page);
    const [more, masked, overflows] = await pipelineEnds(page);
    assert.equal(overflows, true);
    assert.ok(['right', 'both', 'left'].includes(more) && masked, `an end fades: ${more}`);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

// issue 31 item 7: the → between Scaled and Weights pointed right on a phone while Weights sat
// below. Each arrow of a step points where the matrix after it is: right while it is beside, down
// once it has wrapped below; and turning it moves nothing (a rotation, not a new line).
const arrowsOf = (page) => page.evaluate(() => [...document.querySelectorAll('#steps .step .op-to')].map((arrow) => {
  const a = arrow.getBoundingClientRect();
  const next = arrow.nextElementSibling.getBoundingClientRect();
  return { below: next.top >= a.bottom - 1, transform: getComputedStyle(arrow).transform, text: arrow.textContent };
}));
for (const [name, device, below] of [['a phone (375 px)', PHONE, true], ['a desktop (1280 px)', DESKTOP, false]]) {
  test(`the arrow to a step's result points at it on ${name}: down when it has wrapped below, right beside it`, async () => {
    const { context, page, problems } = await open(device);
    try {
      await openStep(page, 5);
      await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
      const arrows = await arrowsOf(page);
      assert.ok(arrows.length >= 1, 'the softmax step has its arrow');
      for (const arrow of arrows) {
        assert.equal(arrow.below, below, `Weights ${below ? 'below' : 'beside'} Scaled at this width`);
        // rotate(90deg) is matrix(0, 1, -1, 0, 0, 0) (cos 90° prints as 6.1e-17)
        assert.equal(arrow.transform === 'none' ? 'right' : /^matrix\([-\de.]+, 1, -1, [-\de.]+, 0, 0\)$/.test(arrow.transform) ? 'down' : arrow.transform,
          below ? 'down' : 'right');
      }
      // "How it learns": its goal → weights arrow and the backward chain's arrows are the same kind
      await openStep(page, 7);
      await page.evaluate(() => new Promise((resolve) => { requestAnimationFrame(() => requestAnimationFrame(resolve)); }));
      for (const arrow of await arrowsOf(page)) assert.equal(arrow.transform !== 'none', arrow.below, JSON.stringify(arrow));
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  });
}

// issue 32 item 14: in a 320 px column (a blog's narrow layout) a 10-token sentence scrolled the
// whole element sideways; only the matrices (and the diagram, in its own strip) may scroll.
test('in a 320 px column with 10 tokens only the matrices scroll sideways, not the element, on every step, zh and en', async () => {
  const dir = pageFolder('touch-layout-320', ['attention-visualizer.js']);
  const html = (attrs) => `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><link rel="icon" href="data:,">`
    + `<script src="attention-visualizer.js"></script><style>body{margin:0}main{width:320px;margin:0 auto}</style></head>`
    + `<body><main><p>Text of the post.</p><attention-visualizer sentence="The cat sat on the mat and then it slept" ${attrs}></attention-visualizer></main></body></html>\n`;
  writeFileSync(path.join(dir, 'compact.html'), html('lang="en"'));
  writeFileSync(path.join(dir, 'editable.html'), html('lang="zh" editable steps="all"'));
  for (const file of ['compact.html', 'editable.html']) {
    const context = await browser.newContext({ viewport: { width: 360, height: 800 }, hasTouch: true, isMobile: true });
    const page = await context.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    try {
      await page.goto(pathToFileURL(path.join(dir, file)).href);
      await page.evaluate(() => document.querySelector('attention-visualizer').ready);
      const widths = () => page.evaluate(() => {
        const host = document.querySelector('attention-visualizer');
        const right = host.getBoundingClientRect().right;
        // a box a reader can scroll sideways (a visually hidden label, 1 px wide, is none)
        const scrolling = [...host.shadowRoot.querySelectorAll('*')].filter((n) => n.clientWidth > 1 && n.scrollWidth > n.clientWidth + 1 && !['visible', 'clip'].includes(getComputedStyle(n).overflowX));
        // inside a box that scrolls or clips (a matrix's strip, the diagram's, the flying numbers' layer) is not out
        const clipped = (n) => {
          for (let a = n.parentElement; a && !a.classList.contains('av'); a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
          return false;
        };
        const stickingOut = [...host.shadowRoot.querySelectorAll('*')].filter((n) => n.getBoundingClientRect().right > right + 0.5 && !clipped(n));
        return {
          page: document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth,
          host: host.scrollWidth - host.clientWidth,
          out: stickingOut.map((n) => `${n.tagName}.${[...n.classList].join('.')}`),
          scrolls: [...new Set(scrolling.map((n) => [...n.classList].find((c) => ['matrix-scroll', 'pipeline', 'lines-scroll'].includes(c)) || `${n.tagName}.${[...n.classList].join('.')}`))],
          matrices: host.shadowRoot.querySelectorAll('.matrix-scroll').length,
        };
      });
      for (let step = 1; ; step++) {
        const w = await widths();
        const where = `${file} step ${step}`;
        assert.equal(w.page, 0, `${where}: the page scrolls sideways`);
        assert.equal(w.host, 0, `${where}: the element scrolls sideways`);
        assert.deepEqual(w.out, [], `${where}: sticks out of the element`);
        for (const box of w.scrolls) assert.ok(['matrix-scroll', 'pipeline', 'lines-scroll'].includes(box), `${where}: ${box} scrolls sideways`);
        if (file === 'editable.html') break; // steps="all": every step at once, checked above
        const next = page.locator('attention-visualizer').getByRole('button', { name: 'Next' });
        if (!(await next.isEnabled())) break;
        await next.click();
        await frames(page);
      }
      const wide = await widths();
      assert.ok(wide.matrices > 0, `${file}: matrices shown`);
      assert.deepEqual(problems, []);
    } finally {
      await context.close();
    }
  }
});
