// The page's latency from an edit, and each frame's work while a number or the temperature is
// dragged (docs/performance.md's page section).
import { launchChromium, median, fmt, openPage, longestTask } from './common.mjs';

/* global document, window, requestAnimationFrame, MouseEvent -- the callbacks of page.evaluate run in the page */

// The page's latency from an edit to every panel in view updated (and until the steps out of view are), in headless Chromium on
// dist/index.html: n tokens (n ≤ 512 of --sizes), d_model = d_k = d_v = d (--d), random inputs.
// The edit: X's text box with its first value changed, then Apply, just after a frame.
// "script": until the page has recomputed and rebuilt its panels (it counts full renders in
// <html data-render-count>); "main thread": script plus the browser's style, layout and paint
// in the next frame (from its requestAnimationFrame callback to a task after it), the work
// that must fit in 16 ms for the edit to show in the next frame; "painted": wall time until
// that frame is done, including the wait for the frame clock (~16.7 ms apart). Medians of
// PAGE_RUNS edits after PAGE_WARMUP, with one step shown (softmax) and with all steps.
// Also n = 4096: the time from "fill randomly" to its heatmaps painted, and the longest
// main-thread tasks then and while typing.

const PAGE_WARMUP = 3;
const PAGE_RUNS = 15;
const LARGE_ROUNDS = 3;

// largeOnly: the n = 4096 scenarios alone.
async function pageLatency({ sizes, d }, { largeOnly = false } = {}) {
  const browser = await launchChromium();
  try {
    let { page, errors } = await openPage(browser);
    const rendered = () => page.evaluate(() => Number(document.documentElement.dataset.renderCount || 0));
    // every heatmap painted (large ones are painted in slices, each canvas data-painting
    // meanwhile), then the next frame
    const painted = async () => {
      await page.waitForFunction(() => document.querySelector('canvas[data-painting]') === null, undefined, { timeout: 0, polling: 'raf' });
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    };
    // until the page has rendered after `before` renders and computes nothing, and is painted
    const settled = async (before) => {
      await page.waitForFunction((count) => {
        const root = document.documentElement;
        return Number(root.dataset.renderCount) > count && !root.hasAttribute('data-computing');
      }, before, { timeout: 0 });
      await painted();
    };
    const timed = async (action) => {
      const t0 = performance.now();
      await action();
      return performance.now() - t0;
    };
    const sentence = (n, from) => Array.from({ length: n }, (_, i) => String.fromCodePoint(from + i)).join('');
    // n tokens, d_model = d_k = d_v = d, filled randomly (timed: until painted); cross: the keys from a second
    // sentence of n tokens (cross-attention, d_context = d)
    const setUp = async (n, { openX = true, cross = false } = {}) => {
      if (cross && !(await page.isChecked('#cross'))) await page.click('#cross');
      for (const dim of ['dModel', 'dk', 'dv', ...(cross ? ['dCtx'] : [])]) await page.fill(`#dim-${dim}`, String(d));
      await page.fill('#sentence', sentence(n, 0x4e00));
      if (cross) await page.fill('#context-sentence', sentence(n, 0x3400));
      await page.fill('#seed', '1');
      const before = await rendered();
      const ms = await timed(async () => {
        await page.click('#fill-random');
        await settled(before);
      });
      if (!openX) return ms;
      // X's text box (large ones are filled when opened)
      await page.evaluate(() => { document.querySelector('#editor-x details').open = true; });
      await page.waitForFunction(() => document.getElementById('x-text').value !== '');
      return ms;
    };
    const edit = (i) => page.evaluate(async (value) => {
      const area = document.getElementById('x-text');
      const root = document.documentElement;
      const count = Number(root.dataset.renderCount);
      area.value = area.value.replace(/^ *[^ \n]+/, String(value));
      // the typing itself (the browser laying out the box's new text) happens before the edit
      // is applied, as when a person types: let that frame pass, then time Apply
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const start = performance.now();
      area.closest('details').querySelector('button.apply').click();
      if (Number(root.dataset.renderCount) !== count + 1) throw new Error('the edit did not render once');
      const renderedMs = performance.now() - start;
      // the next frame: its rAF callback, then a task after its style, layout and paint
      const frameStart = await new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
      await new Promise((resolve) => setTimeout(resolve, 0));
      const paintedMs = performance.now() - start;
      const mainMs = renderedMs + (performance.now() - frameStart);
      // the steps out of view, written a step a task after it (steps.js settleSteps)
      while (document.querySelector('#steps [data-pending]')) await new Promise((resolve) => setTimeout(resolve, 0));
      return [renderedMs, mainMs, paintedMs, performance.now() - start];
    }, 0.25 + i / 1000);
    const goToStep = (overview) => page.evaluate((wanted) => {
      if ((document.getElementById('overview').getAttribute('aria-pressed') === 'true') !== wanted) document.getElementById('overview').click();
      // the weights' stage in the diagram (an SVG element: no .click())
      if (!wanted) document.querySelector('#pipeline [data-step="softmax"]').dispatchEvent(new MouseEvent('click', { bubbles: true }));
    }, overview);

    const out = {};
    for (const n of largeOnly ? [] : sizes.filter((size) => size <= 512)) {
      await setUp(n);
      out[n] = {};
      for (const overview of [false, true]) {
        await goToStep(overview);
        for (let i = 0; i < PAGE_WARMUP; i++) await edit(i);
        const { value: times, cpu, wall } = await longestTask(browser, page, async () => {
          const all = [];
          for (let i = PAGE_WARMUP; i < PAGE_WARMUP + PAGE_RUNS; i++) all.push(await edit(i));
          return all;
        });
        const columns = overview ? [0, 1, 2, 3] : [0, 1, 2];
        out[n][overview ? 'all' : 'one'] = [...columns.map((k) => median(times.map((t) => t[k]))), cpu, wall];
      }
    }
    // n = 4096, engine in the worker: each scenario's wall time until painted, and its longest
    // main-thread task; LARGE_ROUNDS rounds, each in a new page (nothing stored from the one before)
    const large = new Map(); // action → [{ ms, cpu, wall }], a round each
    const scenario = async (name, action) => {
      const { value: ms, cpu, wall } = await longestTask(browser, page, () => timed(action));
      large.set(name, [...(large.get(name) || []), { ms, cpu, wall }]);
    };
    const recompute = (action) => async () => {
      const before = await rendered();
      await action();
      await settled(before);
    };
    const drawn = () => page.evaluate(() => {
      const canvas = document.querySelector('#steps canvas[data-matrix="Weights"]');
      const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
      return data.some((v, i) => i % 4 === 3 && v > 0);
    });
    const newPage = async () => {
      await page.close();
      ({ page, errors } = await openPage(browser));
      await goToStep(false);
      // X's text box closed, as it starts (opened, its 2 MB of text takes the browser ~1 s to lay out)
      await page.evaluate(() => { document.querySelector('#editor-x details').open = false; });
    };
    for (let round = 0; round < LARGE_ROUNDS; round++) {
      await newPage();
      await setUp(4096, { openX: false }); // the sentence's recompute first, then fill randomly alone
      await scenario('"fill randomly"', () => setUp(4096, { openX: false }));
      await scenario('5 Backspaces in the sentence (4096 → 4091 tokens), each starting a recompute', recompute(async () => {
        await page.focus('#sentence');
        await page.keyboard.press('End');
        for (let i = 0; i < 5; i++) await page.keyboard.press('Backspace');
      }));
      await scenario('next step, then back (Next, Previous)', async () => {
        await page.click('#next');
        await painted();
        await page.click('#prev');
        await painted();
      });
      await scenario('an option toggled (causal mask on)', recompute(() => page.click('#causal')));
      await scenario('2 heads (heads: 1 → 2, recomputed)', recompute(() => page.fill('#heads', '2')));
      await scenario('switching heads (head 2 shown)', async () => {
        await page.click('#view-heads .head-tab >> nth=1');
        await painted();
      });
      // the Weights of head 2 (4091 × 4091) as CSV, downloaded
      await page.evaluate(() => { document.querySelector('#share-tools details').open = true; });
      await page.selectOption('#share-tools [data-focus-id="export-format"]', 'csv');
      await scenario('CSV export of Weights (4091 × 4091)', async () => {
        const [download] = await Promise.all([
          page.waitForEvent('download', { timeout: 0 }),
          page.click('#share-tools .av-tools-body button >> nth=0'),
        ]);
        await download.path();
      });
      if (errors.length > 0 || !(await drawn())) throw new Error(`n = 4096: ${errors.join('; ') || 'no heatmap drawn'}`);
      // cross-attention, 4096 queries × 4096 keys
      await newPage();
      await setUp(4096, { openX: false, cross: true }); // the sentences' recomputes first, as above
      await scenario('cross-attention, 4096 queries × 4096 keys: "fill randomly"', () => setUp(4096, { openX: false, cross: true }));
      await scenario('cross-attention, 4096 × 4096: scaling by √d_k off (before, after and their difference shown)', recompute(() => page.click('#scale')));
      if (errors.length > 0 || !(await drawn())) throw new Error(`n = 4096, cross-attention: ${errors.join('; ') || 'no heatmap drawn'}`);
    }
    return { sizes: out, large };
  } finally {
    await browser.close();
  }
}

// dims: {sizes, d}, the --sizes and --d of bench.mjs.
export async function pageSection(dims, { largeOnly = false } = {}) {
  const { sizes, large } = await pageLatency(dims, { largeOnly });
  const lines = [];
  if (!largeOnly) {
    lines.push(`Page latency from an edit (X's text, Apply) to every panel in view updated, d = ${dims.d}; medians of ${PAGE_RUNS} edits, in ms;`
      + ' "settled": until the steps out of view are written too (a step a task once the frame is on screen: every step above 128² attention cells, How it learns at any size);'
      + ' "longest task": the longest main-thread task over those edits, in CPU time (a Chromium trace) and in wall time'
      + ' (the page\'s long-task observer, which sees only tasks over 50 ms: 0 means none):', '');
    const columns = (shown) => ['script', 'main thread', 'painted', ...(shown === 'all steps' ? ['settled'] : []), 'longest task CPU', 'longest task wall'];
    const header = ['n', ...['one step', 'all steps'].flatMap((shown) => columns(shown).map((what) => `${shown}: ${what}`))];
    lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
    for (const [n, { one, all }] of Object.entries(sizes)) lines.push(`| ${[n, ...one, ...all].map((v, i) => (i === 0 ? v : fmt(v))).join(' | ')} |`);
    lines.push('');
  }
  lines.push(`n = 4096, d = ${dims.d} (softmax step shown, engine in its worker), ${LARGE_ROUNDS} rounds, each in a new page:`
    + ' each action\'s wall time until its result is painted, and the longest main-thread task meanwhile'
    + ' (CPU time from a trace; wall time as the page saw it, over 50 ms only: 0 means none), in ms;'
    + ' the median of the rounds, and the most of any round:', '');
  const largeHeader = ['action', 'until painted', 'longest task CPU', 'CPU, most', 'longest task wall', 'wall, most'];
  lines.push(`| ${largeHeader.join(' | ')} |`, `|${largeHeader.map(() => ' --- ').join('|')}|`);
  for (const [name, rounds] of large) {
    const of = (key) => rounds.map((r) => r[key]);
    lines.push(`| ${[name, ...[median(of('ms')), median(of('cpu')), Math.max(...of('cpu')), median(of('wall')), Math.max(...of('wall'))].map(fmt)].join(' | ')} |`);
  }
  return lines;
}

// Direct manipulation (scrub.js) in headless Chromium on dist/index.html: n tokens (16 and 64),
// d_model = d_k = d_v = DRAG_D (grids are shown up to 24 columns: at d = 64 there is no cell to
// drag), random inputs. A drag of W_Q's first number, 2 px a move (0.02 a move), and a drag of
// the temperature slider, DRAG_MOVES moves each, back and forth. For each move the page's own
// handling of the event that recomputes (pointermove for a number, the slider's input event),
// between performance marks set by listeners before it (capture on window) and after it (bubble
// on window): "script"; and that plus the browser's style, layout and paint of the next frame
// (its requestAnimationFrame callback to a task after it): "main thread", which must fit in 16 ms.
// Medians and maxima over the moves, with one step shown (softmax) and with all steps; each
// drag is made DRAG_ROUNDS times after one for warm-up, and each figure is the least of the
// rounds' (slow spells of a shared machine only ever add time); and the longest main-thread
// task over all those rounds (longestTask: trace CPU time, long-task wall time).
const DRAG_SIZES = [16, 64];
const DRAG_D = 16;
const DRAG_MOVES = 40;
const DRAG_ROUNDS = 3;

async function dragLatency() {
  const browser = await launchChromium();
  try {
    const { page, errors } = await openPage(browser);
    // the marks around every event of `type` (see above), and the frame after it
    await page.evaluate(() => {
      globalThis.dragSamples = [];
      globalThis.dragWatch = (type) => {
        const begin = () => performance.mark('drag-start');
        const finish = () => {
          const script = performance.measure('drag', 'drag-start').duration;
          requestAnimationFrame(() => {
            const frameStart = performance.now();
            setTimeout(() => globalThis.dragSamples.push([script, script + performance.now() - frameStart]), 0);
          });
        };
        window.addEventListener(type, begin, true);
        window.addEventListener(type, finish);
        return () => {
          window.removeEventListener(type, begin, true);
          window.removeEventListener(type, finish);
        };
      };
    });
    // Drags from the middle of `selector`, back and forth, and returns the samples.
    const drag = async (selector, type) => {
      const target = page.locator(selector);
      await target.scrollIntoViewIfNeeded();
      const box = await target.boundingBox();
      const x = box.x + box.width / 2;
      const y = box.y + box.height / 2;
      await page.evaluate((t) => { globalThis.dragSamples = []; globalThis.dragStop = globalThis.dragWatch(t); }, type);
      const before = Number(await page.evaluate(() => document.documentElement.dataset.renderCount));
      await page.mouse.move(x, y);
      await page.mouse.down();
      for (let i = 1; i <= DRAG_MOVES; i++) await page.mouse.move(x + 2 * (i <= DRAG_MOVES / 2 ? i : DRAG_MOVES - i) - DRAG_MOVES / 2, y);
      await page.mouse.up();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
      const samples = await page.evaluate(() => {
        globalThis.dragStop();
        return globalThis.dragSamples;
      });
      const renders = Number(await page.evaluate(() => document.documentElement.dataset.renderCount)) - before;
      if (renders < DRAG_MOVES / 2 || samples.length < DRAG_MOVES / 2) throw new Error(`${selector}: ${renders} renders, ${samples.length} samples`);
      return [0, 1].flatMap((k) => [median(samples.map((t) => t[k])), Math.max(...samples.map((t) => t[k]))]);
    };
    const dragRounds = async (selector, type) => {
      await drag(selector, type);
      const { value: rounds, cpu, wall } = await longestTask(browser, page, async () => {
        const all = [];
        for (let r = 0; r < DRAG_ROUNDS; r++) all.push(await drag(selector, type));
        return all;
      });
      return [...rounds[0].map((_, k) => Math.min(...rounds.map((times) => times[k]))), cpu, wall];
    };
    const out = [];
    for (const n of DRAG_SIZES) {
      for (const dim of ['dModel', 'dk', 'dv']) await page.fill(`#dim-${dim}`, String(DRAG_D));
      await page.fill('#sentence', Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)).join(''));
      await page.click('#fill-random');
      for (const overview of [false, true]) {
        await page.evaluate((wanted) => {
          if ((document.getElementById('overview').getAttribute('aria-pressed') === 'true') !== wanted) document.getElementById('overview').click();
          // the softmax step, from its stage in the diagram (an SVG node: no click() of its own)
          if (!wanted) document.querySelector('#pipeline .pipeline-stage[data-n="5"]').dispatchEvent(new MouseEvent('click', { bubbles: true }));
        }, overview);
        out.push({ n, shown: overview ? 'all' : 'one', what: 'W_Q[1, 1]', times: await dragRounds('#editor-wq input[data-r="0"][data-c="0"]', 'pointermove') });
        out.push({ n, shown: overview ? 'all' : 'one', what: 'temperature', times: await dragRounds('#temperature-slider', 'input') });
      }
    }
    if (errors.length > 0) throw new Error(errors.join('; '));
    return out;
  } finally {
    await browser.close();
  }
}

// Each move of a drag, as lines of docs/performance.md's page section.
export async function dragSection() {
  const rows = await dragLatency();
  const lines = [`Each move of a drag (a number of W_Q, the temperature slider), d = ${DRAG_D}, ${DRAG_MOVES} moves;`
    + ` ms, the least of ${DRAG_ROUNDS} drags; the longest main-thread task over the ${DRAG_ROUNDS} drags (CPU time from a trace;`
    + ' wall time as the page saw it, over 50 ms only):', ''];
  const header = ['n', 'steps shown', 'dragged', 'script: median', 'script: max', 'main thread: median', 'main thread: max',
    'longest task CPU', 'longest task wall'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  for (const { n, shown, what, times } of rows) lines.push(`| ${[n, shown, what, ...times.map(fmt)].join(' | ')} |`);
  return lines;
}
