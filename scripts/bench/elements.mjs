// Many elements on a page (bench.mjs --elements).
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../build.mjs';
import { launchChromium, median, fmt, longestTask } from './common.mjs';

/* global document, window -- the callbacks of page.evaluate run in the page */

// Many elements on a page (issue 32 item 14): tests/browser/many-page.mjs's page of
// ELEMENTS elements (3 to 10 tokens each) at 1280 × 900, from file://, ELEMENT_ROUNDS rounds
// each in a new page. For the load, and then for a jump to the page's end: the time until
// every element in the viewport is ready (its first result on screen), how many elements had
// computed by then and in all, and the longest main-thread task until the page is quiet (no
// element computed for a second): CPU time from a trace, and wall time as the page saw it
// (long-task observer, tasks over 50 ms only: 0 means none).
const ELEMENTS = 50;
const ELEMENT_ROUNDS = 3;

async function elementsLoad(browser, url) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.addInitScript(() => {
    globalThis.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.longTasks.push(e.duration); })
      .observe({ type: 'longtask', buffered: true });
    globalThis.computedAt = new Map(); // element → when its first result was on screen
    globalThis.lastComputed = 0;
    document.addEventListener('computed', (event) => {
      if (!globalThis.computedAt.has(event.target)) globalThis.computedAt.set(event.target, performance.now());
      globalThis.lastComputed = performance.now();
    }, true);
  });
  // until every element in the viewport has computed, then until none has for a second:
  // [ms until the viewport's were, elements computed by then, elements computed in all]
  const settle = () => page.evaluate(() => new Promise((resolve) => {
    let visibleAt = null;
    let byThen = 0;
    const check = () => {
      const shown = [...document.querySelectorAll('attention-visualizer')].filter((el) => {
        const r = el.getBoundingClientRect();
        return r.bottom > 0 && r.top < window.innerHeight;
      });
      if (visibleAt === null && shown.every((el) => globalThis.computedAt.has(el))) {
        visibleAt = Math.max(...shown.map((el) => globalThis.computedAt.get(el)));
        byThen = globalThis.computedAt.size;
      }
      if (visibleAt !== null && performance.now() - Math.max(visibleAt, globalThis.lastComputed) > 1000) {
        resolve([visibleAt, byThen, globalThis.computedAt.size]);
      } else setTimeout(check, 50);
    };
    check();
  }));
  const measured = (action) => longestTask(browser, page, action);
  try {
    const load = await measured(async () => {
      await page.goto(url);
      return settle();
    });
    const end = await measured(async () => {
      const t0 = await page.evaluate(() => {
        window.scrollTo(0, document.scrollingElement.scrollHeight);
        return performance.now();
      });
      const [at, byThen, all] = await settle();
      return [Math.max(0, at - t0), byThen, all]; // (0: they were ready before)
    });
    if (errors.length > 0) throw new Error(`elements page: ${errors.join('; ')}`);
    return { load, end };
  } finally {
    await page.close();
  }
}

export async function elementsSection() {
  const { manyElementsPage } = await import('../tests/browser/many-page.mjs');
  const file = path.join(os.tmpdir(), `elements-bench-${process.pid}.html`);
  writeFileSync(file, manyElementsPage(ELEMENTS, pathToFileURL(path.join(ROOT, 'dist/attention-visualizer.js')).href));
  const browser = await launchChromium();
  const rounds = [];
  try {
    for (let r = 0; r < ELEMENT_ROUNDS; r++) rounds.push(await elementsLoad(browser, pathToFileURL(file).href));
  } finally {
    await browser.close();
  }
  const lines = [`${ELEMENTS} elements on a plain page (tests/browser/many-page.mjs; 3 to 10 tokens each), 1280 × 900, from file://,`
    + ` ${ELEMENT_ROUNDS} rounds each in a new page: the time until every element in the viewport is ready, the elements computed`
    + ' by then and in all (until none computed for a second), and the longest main-thread task meanwhile (CPU time from a trace;'
    + ' wall time as the page saw it, over 50 ms only: 0 means none), in ms; the median of the rounds, and the most of any round:', ''];
  const header = ['', 'viewport ready', 'computed by then', 'computed in all', 'longest task CPU', 'CPU, most', 'longest task wall', 'wall, most'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  for (const [name, key] of [['page loaded', 'load'], ['then a jump to its end', 'end']]) {
    const of = (f) => rounds.map((r) => f(r[key]));
    lines.push(`| ${[name, fmt(median(of((m) => m.value[0]))), median(of((m) => m.value[1])), median(of((m) => m.value[2])),
      ...[median(of((m) => m.cpu)), Math.max(...of((m) => m.cpu)), median(of((m) => m.wall)), Math.max(...of((m) => m.wall))].map(fmt)].join(' | ')} |`);
  }
  return lines;
}
