// `npm run bench`: one table of medians (after warm-up) for n tokens and d = 64, comparing
// the engine's C++ natively (-O3), the same C++ as wasm in node and in headless Chromium,
// the public JS API (including its copies) in node and in Chromium, a plain-JS Float64Array
// reference, and numpy with the reference BLAS and with single-threaded OpenBLAS.
// Ratios come from the same run, since absolute times on shared machines drift.
// Then a second table: the page's latency from an edit to every panel in view updated (pageLatency),
// and a third: each frame's work while a number or the temperature is dragged (dragLatency).
// And a fourth: models (runModel and an Adam step) against PyTorch (modelSection), and the
// matmul kernel built with relaxed SIMD against the product's SIMD128 (relaxedSimdSection).
//   node scripts/bench.mjs [--sizes 8,64,512,2048] [--d 64] [--rounds 5] [--page-only] [--drag-only] [--large-only] [--model-only] [--relaxed-simd] [--training-only] [--model-view-only] [--elements]
// --large-only prints the page's n = 4096 scenarios alone, --drag-only the drag table alone
// (neither writes docs/performance.md); --model-only measures and writes the models' section alone,
// --relaxed-simd the relaxed-SIMD section alone, --elements the many-elements section (elementsSection)
// alone, --training-only the live training's (trainingSection), --model-view-only the model view's (modelViewSection).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { OPENBLAS_DIR, bootstrap } from './bootstrap.mjs';
import { ROOT, buildDist, cmakeBuild } from './build.mjs';
import { attentionReference } from '../tests/bench/reference.mjs';
import { waitForSteps, openEditor } from '../tests/browser/ui.mjs';
import { modelScript } from '../web/src/engine/models.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const SIZES = arg('sizes', '8,64,512,2048').split(',').map(Number);
const D = Number(arg('d', '64'));
// playwright-core is imported only when used, after bootstrap() has installed it
const launchChromium = async () => (await import('../tests/browser/chromium.mjs')).launchChromium();
const REFERENCE_BLAS_DIR = '/usr/lib/x86_64-linux-gnu/blas';

// The inputs of tests/bench/attention_bench.cpp and numpy_bench.py, as a JS function source
// so the same code also runs inside the page.
const INPUTS_SOURCE = `(n, d) => {
  const filled = (rows, cols, seed) => Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => Math.sin(seed + 0.37 * i + 1.91 * j) / Math.sqrt(cols)));
  return { x: filled(n, d, 1), wq: filled(d, d, 2), wk: filled(d, d, 3), wv: filled(d, d, 4) };
}`;

// Median ms per call of fn: after 100 ms of warm-up (a first call can be slow while the code
// is compiled, which would leave the batch at one call), calls are batched so that each timed
// batch lasts >= 5 ms (Chromium coarsens performance.now()); 2 warm-up batches, then >= 5
// batches or ~1 s.
const TIMER_SOURCE = `(fn) => {
  for (const t0 = performance.now(); performance.now() - t0 < 100;) fn();
  let batch = 1;
  for (;;) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    if (performance.now() - t0 >= 5) break;
    batch *= 2;
  }
  for (let w = 0; w < 2; w++) for (let i = 0; i < batch; i++) fn();
  const times = [];
  const start = performance.now();
  while (times.length < 5 || (performance.now() - start < 1000 && times.length < 50)) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) fn();
    times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}`;
const makeInputs = (0, eval)(INPUTS_SOURCE);
const medianMs = (0, eval)(TIMER_SOURCE);

function jsonLines(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

const byN = (lines, field = 'median_ms') => Object.fromEntries(lines.map((l) => [l.n, l[field]]));

// keepPages: glibc's malloc told to keep freed memory (mmap threshold at its 32 MiB maximum, no
// trimming), so numpy's temporaries reuse pages instead of faulting in fresh ones every call:
// numpy's own arithmetic without its allocator's cost, which on this machine is 2-6 ms at n = 512.
function numpy(blasDir, { keepPages = false } = {}) {
  if (!existsSync(blasDir)) return { label: null, times: {}, products: {} };
  const env = { ...process.env, LD_LIBRARY_PATH: blasDir, OPENBLAS_NUM_THREADS: '1' };
  if (keepPages) Object.assign(env, { MALLOC_MMAP_THRESHOLD_: String(32 << 20), MALLOC_TRIM_THRESHOLD_: String(2 ** 40) });
  // OPENBLAS_CORETYPE/L2_SIZE (set on some machines for old OpenBLAS builds) slow a current one
  delete env.OPENBLAS_CORETYPE;
  delete env.OPENBLAS_L2_SIZE;
  const lines = jsonLines('/usr/bin/python3', ['tests/bench/numpy_bench.py', D, ...SIZES], env);
  return { label: lines[0].blas, times: byN(lines), products: byN(lines, 'products_ms') };
}

function plainJs() {
  const times = {};
  for (const n of SIZES) {
    const flat = (m) => Float64Array.from(m.flat());
    const { x, wq, wk, wv } = makeInputs(n, D);
    const args = [flat(x), flat(wq), flat(wk), flat(wv), n, D, D, D];
    times[n] = medianMs(() => attentionReference(...args));
  }
  return times;
}

async function apiInNode() {
  const createAttentionEngine = createRequire(import.meta.url)(
    path.join(ROOT, 'dist/attention-engine.js'),
  );
  const engine = await createAttentionEngine();
  return Object.fromEntries(
    SIZES.map((n) => {
      const inputs = makeInputs(n, D);
      return [n, medianMs(() => engine.compute(inputs))];
    }),
  );
}

async function inChromium(wasmDir) {
    const browser = await launchChromium();
  try {
    // the core C++ as wasm: the bench driver prints one JSON line per n to the console
    const page = await browser.newPage();
    const lines = [];
    const done = new Promise((resolve) => {
      page.on('console', (m) => {
        if (m.text().startsWith('{')) lines.push(JSON.parse(m.text()));
        if (lines.length === SIZES.length) resolve();
      });
    });
    const html = path.join(wasmDir, 'bench.html');
    writeFileSync(
      html,
      `<!doctype html><script>var Module = { arguments: ${JSON.stringify([String(D), ...SIZES.map(String)])},
        print: (t) => console.log(t) };</script><script src="attention_bench_web.js"></script>`,
    );
    await page.goto(pathToFileURL(html).href);
    await done;

    // the public API on the built engine script, in a blank page (the real page's CSP would
    // refuse the inline reference script below)
    const apiPage = await browser.newPage();
    await apiPage.addScriptTag({ path: path.join(ROOT, 'dist/attention-engine.js') });
    const api = await apiPage.evaluate(
      async ({ sizes, d, inputsSource, timerSource }) => {
        const makeInputs = (0, eval)(inputsSource);
        const medianMs = (0, eval)(timerSource);
        const engine = await globalThis.createAttentionEngine(); // runs in the page
        const out = {};
        for (const n of sizes) {
          const inputs = makeInputs(n, d);
          // dL/doutput for backward(): the output's shape, n × d
          const gradient = { output: makeInputs(n, d).x.map((row) => row.map((v) => -v)) };
          out[n] = {
            rows: medianMs(() => engine.compute(inputs)),
            typed: medianMs(() => engine.compute(inputs, { typed: true })),
            reuse: medianMs(() => engine.compute(inputs, { typed: true, reuse: true })),
            backward: medianMs(() => engine.backward(inputs, gradient, { typed: true })),
          };
        }
        // training at n = 16, d = 16: W_Q, W_K, W_V by Adam towards an output target; a step is a
        // forward pass, a backward pass and the update (and the loss); a call also reads and
        // writes the input and the state
        const small = makeInputs(16, 16);
        const options = { loss: 'output', target: makeInputs(16, 16).x, train: ['wq', 'wk', 'wv'], optimizer: 'adam', learningRate: 0.01 };
        out.train = {
          step: medianMs(() => engine.train(small, { ...options, steps: 100 })) / 100,
          call: medianMs(() => engine.train(small, { ...options, steps: 1 })),
        };
        return out;
      },
      { sizes: SIZES, d: D, inputsSource: INPUTS_SOURCE, timerSource: TIMER_SOURCE },
    );
    // the plain-JS reference in the same browser: its module source, as a classic script
    const reference = readFileSync(path.join(ROOT, 'tests/bench/reference.mjs'), 'utf8');
    await apiPage.addScriptTag({ content: reference.replace(/^export /gm, '') });
    const js = await apiPage.evaluate(
      ({ sizes, d, inputsSource, timerSource }) => {
        const makeInputs = (0, eval)(inputsSource);
        const medianMs = (0, eval)(timerSource);
        const out = {};
        for (const n of sizes) {
          const flat = (m) => Float64Array.from(m.flat());
          const { x, wq, wk, wv } = makeInputs(n, d);
          const args = [flat(x), flat(wq), flat(wk), flat(wv), n, d, d, d];
          out[n] = medianMs(() => globalThis.attentionReference(...args));
        }
        return out;
      },
      { sizes: SIZES, d: D, inputsSource: INPUTS_SOURCE, timerSource: TIMER_SOURCE },
    );
    return { core: byN(lines), products: byN(lines, 'products_ms'), api, js };
  } finally {
    await browser.close();
  }
}

// the middle value (of an odd count; the upper middle of an even one)
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const fmt = (ms) => (ms === undefined ? '–' : ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0));

// The page's latency from an edit to every panel in view updated (and until the steps out of view are), in headless Chromium on
// dist/index.html: n tokens (n ≤ 512 of --sizes), d_model = d_k = d_v = D, random inputs.
// The edit: X's text box with its first value changed, then Apply, just after a frame.
// "script": until the page has recomputed and rebuilt its panels (it counts full renders in
// <html data-render-count>); "main thread": script plus the browser's style, layout and paint
// in the next frame (from its requestAnimationFrame callback to a task after it), the work
// that must fit in 16 ms for the edit to show in the next frame; "painted": wall time until
// that frame is done, including the wait for the frame clock (~16.7 ms apart). Medians of
// PAGE_RUNS edits after PAGE_WARMUP, with one step shown (softmax) and with all steps.
// Also n = 4096: the time from "fill randomly" to its heatmaps painted, and the longest
// main-thread tasks then and while typing.
/* global document, window, requestAnimationFrame, MouseEvent -- pageLatency's and dragLatency's callbacks run in the page */
const PAGE_WARMUP = 3;
const PAGE_RUNS = 15;
const LARGE_ROUNDS = 3;

// dist/index.html in a new page of its own (a fresh context: nothing stored), its steps shown,
// the edit panel open, the page's long tasks collected in globalThis.longTasks; errors: the
// page's uncaught errors, for the caller to report.
async function openPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await page.goto(`${pathToFileURL(path.join(ROOT, 'dist/index.html')).href}?example=tutorial`); // (the inputs below replace the tutorial's)
  await waitForSteps(page);
  await openEditor(page);
  await page.evaluate(() => {
    globalThis.longTasks = [];
    new PerformanceObserver((list) => { for (const e of list.getEntries()) globalThis.longTasks.push(e.duration); }).observe({ type: 'longtask' });
  });
  return { page, errors };
}

// The longest task of the page's main thread while `action` runs: in thread CPU time from a
// Chromium trace (on a loaded machine wall time also counts the waits for a core), and in wall
// time as the page saw it (PerformanceObserver 'longtask', which reports only tasks over
// 50 ms: 0 means none). Returns { value: what action gave, cpu, wall } (ms).
const TRACE_CATEGORIES = ['devtools.timeline', 'disabled-by-default-devtools.timeline', '__metadata'];
async function longestTask(browser, page, action) {
  // (a page not loaded yet, before an action that loads it, has no observer: nothing to clear)
  await page.evaluate(() => globalThis.longTasks.splice(0)).catch(() => {});
  await browser.startTracing(page, { categories: TRACE_CATEGORIES });
  let value;
  let trace;
  try {
    value = await action();
    await page.evaluate(() => console.timeStamp('bench page')); // names the page's process
  } finally {
    trace = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  }
  const { pid } = trace.find((e) => e.name === 'TimeStamp' && e.args.data.message === 'bench page');
  const main = trace.find((e) => e.pid === pid && e.name === 'thread_name' && e.args.name === 'CrRendererMain').tid;
  const cpu = trace.reduce((most, e) => (e.name === 'RunTask' && e.pid === pid && e.tid === main ? Math.max(most, e.tdur || 0) : most), 0);
  const wall = await page.evaluate(() => Math.max(0, ...globalThis.longTasks.splice(0)));
  return { value, cpu: cpu / 1000, wall };
}

// largeOnly: the n = 4096 scenarios alone.
async function pageLatency({ largeOnly = false } = {}) {
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
    // n tokens, d = D, filled randomly (timed: until painted); cross: the keys from a second
    // sentence of n tokens (cross-attention, d_context = D)
    const setUp = async (n, { openX = true, cross = false } = {}) => {
      if (cross && !(await page.isChecked('#cross'))) await page.click('#cross');
      for (const dim of ['dModel', 'dk', 'dv', ...(cross ? ['dCtx'] : [])]) await page.fill(`#dim-${dim}`, String(D));
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
    for (const n of largeOnly ? [] : SIZES.filter((size) => size <= 512)) {
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

async function pageSection({ largeOnly = false } = {}) {
  const { sizes, large } = await pageLatency({ largeOnly });
  const lines = [];
  if (!largeOnly) {
    lines.push(`Page latency from an edit (X's text, Apply) to every panel in view updated, d = ${D}; medians of ${PAGE_RUNS} edits, in ms;`
      + ' "settled": until the steps out of view are written too (a step a task once the frame is on screen: every step above 128² attention cells, How it learns at any size);'
      + ' "longest task": the longest main-thread task over those edits, in CPU time (a Chromium trace) and in wall time'
      + ' (the page\'s long-task observer, which sees only tasks over 50 ms: 0 means none):', '');
    const columns = (shown) => ['script', 'main thread', 'painted', ...(shown === 'all steps' ? ['settled'] : []), 'longest task CPU', 'longest task wall'];
    const header = ['n', ...['one step', 'all steps'].flatMap((shown) => columns(shown).map((what) => `${shown}: ${what}`))];
    lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
    for (const [n, { one, all }] of Object.entries(sizes)) lines.push(`| ${[n, ...one, ...all].map((v, i) => (i === 0 ? v : fmt(v))).join(' | ')} |`);
    lines.push('');
  }
  lines.push(`n = 4096, d = ${D} (softmax step shown, engine in its worker), ${LARGE_ROUNDS} rounds, each in a new page:`
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

async function elementsSection() {
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

// ---- docs/performance.md: everything between a section's markers is this tool's output ----
const DOC = path.join(ROOT, 'docs/performance.md');
const marker = (section, end) => `<!-- bench:${section}:${end ? 'end' : 'start'} (generated by scripts/bench.mjs; edits here are overwritten) -->`;

// The machine, date and load, for the head of a generated section.
async function machine() {
  const browser = await launchChromium();
  const chromium = browser.version();
  await browser.close();
  const cpus = os.cpus();
  const load = os.loadavg().map((l) => l.toFixed(1)).join(', ');
  return `Generated by \`node scripts/bench.mjs ${process.argv.slice(2).join(' ')}\` on ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC:`
    + ` ${cpus[0].model}, ${cpus.length} cores, node ${process.version}, Chromium ${chromium};`
    + ` load average at the start ${load} (1, 5, 15 min).`;
}

function writeSection(section, lines) {
  const text = readFileSync(DOC, 'utf8');
  const start = marker(section, false);
  const end = marker(section, true);
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${DOC} lacks the markers of the "${section}" section`);
  writeFileSync(DOC, `${text.slice(0, from + start.length)}\n\n${lines.join('\n')}\n\n${text.slice(to)}`);
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
async function dragSection() {
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

// Models (issue 35): runModel() and one Adam step (trainModel() with one batch) of the API in
// Chromium against PyTorch (CPU, one thread, float64; tests/bench/torch_model_bench.py) on the
// same model and batch: pre-norm layers with biases, norms and a GELU MLP of width 4·dModel,
// learned positions, a free unembedding, causal; parameters from the bench's sin-filled inputs.
const MODEL_BENCH = [
  { name: '2 layers, 4 heads, dModel 64, 32 tokens', layers: 2, heads: 4, d: 64, n: 32 },
  { name: '4 layers, 4 heads, dModel 64, 16 tokens', layers: 4, heads: 4, d: 64, n: 16 },
];
const MODEL_SOURCE = `({ layers, heads, d, n }) => {
  let seed = 0;
  const filled = (rows, cols) => {
    seed += 1;
    return Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => Math.sin(seed + 0.37 * i + 1.91 * j) / Math.sqrt(cols)));
  };
  const vector = (length) => filled(1, length)[0];
  const norm = () => ({ gain: vector(d).map((v) => 1 + v), bias: vector(d) });
  const vocab = Array.from({ length: 64 }, (_, i) => 't' + i);
  const dk = d / heads;
  const model = {
    vocab, dModel: d, maxTokens: n, causal: true, embed: filled(vocab.length, d), positions: filled(n, d),
    layers: Array.from({ length: layers }, () => ({
      norm1: norm(),
      heads: Array.from({ length: heads }, () => ({ wq: filled(d, dk), wk: filled(d, dk), wv: filled(d, dk), bq: vector(dk), bk: vector(dk), bv: vector(dk) })),
      wo: filled(d, d), bo: vector(d), norm2: norm(),
      mlp: { w1: filled(d, 4 * d), b1: vector(4 * d), w2: filled(4 * d, d), b2: vector(d), activation: 'gelu' },
    })),
    finalNorm: norm(), unembed: filled(d, vocab.length), unembedBias: vector(vocab.length),
  };
  const ids = Array.from({ length: n }, (_, i) => (7 * i + 3) % vocab.length);
  return { model, ids, targets: ids.slice(1).concat([-1]) };
}`;

const MODEL_ROUNDS = 3;

async function modelSection() {
  const makeModel = (0, eval)(MODEL_SOURCE);
  const cases = MODEL_BENCH.map((c) => ({ ...c, ...makeModel(c) }));
  const file = path.join(os.tmpdir(), `model-bench-${process.pid}.json`);
  writeFileSync(file, JSON.stringify(cases.map(({ name, model, ids, targets }) => ({ name, model, ids, targets }))));
  const hasTorch = spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
  const browser = await launchChromium();
  // rounds of both, each time the least of the rounds (a shared machine's slow spells only add
  // time), each ratio the median of the rounds' own ratios
  const rounds = [];
  try {
    const page = await browser.newPage();
    await page.addScriptTag({ path: path.join(ROOT, 'dist/attention-engine.js') });
    for (let r = 0; r < MODEL_ROUNDS; r++) {
      const chromium = await page.evaluate(async ({ cases, timer }) => {
        const medianMs = (0, eval)(timer);
        const engine = await globalThis.createAttentionEngine();
        const options = (ids, targets) => ({ batches: [{ ids, targets }], optimizer: 'adam', learningRate: 1e-3 });
        return cases.map(({ model, ids, targets }) => {
          // loaded once (engine.loadModel), as a page or a training loop keeps it
          const loaded = engine.loadModel(model);
          const out = {
            run: medianMs(() => engine.runModel(model, ids, { typed: true })),
            runLoaded: medianMs(() => engine.runModel(loaded, ids, { typed: true })),
            // views of the engine's buffers, no copy (the page's form for a model it keeps)
            runReuse: medianMs(() => engine.runModel(loaded, ids, { typed: true, reuse: true })),
            step: medianMs(() => engine.trainModel(model, options(ids, targets))),
            stepLoaded: medianMs(() => engine.trainModel(loaded, options(ids, targets)).model.release()),
            loss: engine.modelGradients(model, ids, targets).loss,
          };
          loaded.release();
          return out;
        });
      }, { cases, timer: TIMER_SOURCE });
      const torch = hasTorch ? jsonLines('/usr/bin/python3', [path.join(ROOT, 'tests/bench/torch_model_bench.py'), file]) : [];
      rounds.push(cases.map((c, i) => ({ ...chromium[i], torch: torch.find((line) => line.name === c.name) })));
    }
  } finally {
    await browser.close();
  }
  const least = (i, of) => Math.min(...rounds.map((round) => of(round[i])));
  const ratio = (i, of) => {
    if (!hasTorch) return '–';
    const values = rounds.map((round) => of(round[i])).sort((a, b) => a - b);
    return `${values[values.length >> 1].toFixed(2)}× (${values[0].toFixed(2)}–${values[values.length - 1].toFixed(2)})`;
  };
  const lines = [`Models (issue 35): the API in Chromium (runModel typed, and typed with reuse on a loaded model; trainModel with one batch, Adam), given the model object`
    + ' or a model loaded once (engine.loadModel, docs/api.md), against PyTorch'
    + ` ${hasTorch ? '' : '(not installed: apt-get install python3-torch) '}on CPU, one thread, float64, the same model and batch;`
    + ` ms, the least of ${MODEL_ROUNDS} rounds' medians; ratio: PyTorch ÷ engine (above 1: the engine is faster), the median of the`
    + ' rounds\' own ratios (least–most); loss: the two agree on it', ''];
  const header = ['model', 'runModel Chromium', 'runModel loaded', 'runModel loaded, reuse', 'PyTorch forward', 'ratio', 'ratio loaded', 'Adam step Chromium',
    'Adam step loaded', 'PyTorch Adam step', 'ratio', 'ratio loaded', 'loss (engine − PyTorch)'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  cases.forEach((c, i) => {
    const torchMs = (key) => (hasTorch ? fmt(least(i, (m) => m.torch[key])) : '–');
    lines.push(`| ${[c.name, fmt(least(i, (m) => m.run)), fmt(least(i, (m) => m.runLoaded)), fmt(least(i, (m) => m.runReuse)), torchMs('forward_ms'),
      ratio(i, (m) => m.torch.forward_ms / m.run), ratio(i, (m) => m.torch.forward_ms / m.runLoaded),
      fmt(least(i, (m) => m.step)), fmt(least(i, (m) => m.stepLoaded)), torchMs('adam_step_ms'),
      ratio(i, (m) => m.torch.adam_step_ms / m.step), ratio(i, (m) => m.torch.adam_step_ms / m.stepLoaded),
      hasTorch ? (rounds[0][i].loss - rounds[0][i].torch.loss).toExponential(1) : '–'].join(' | ')} |`);
  });
  return lines;
}

// "How it learns", from scratch (issue 36): the page's live training of the induction model, in
// the engine's worker, from its click on "Train from scratch" to the first measurement of a head
// with a prefix-matching score ≥ 0.4 on the held-out sequences (goal ≤ 30 s), with the step it
// came at and the page's longest task meanwhile (longestTask). A fresh page a round.
const TRAINING_ROUNDS = 2;
const TRAINING_GOAL_S = 30;

async function trainingSection() {
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

// The model view (issue 36, views/modelgrid.js) on the page at 32 tokens: a copy of dist/ whose
// models/ also holds "bench-32", the shipped learner-words model (2 layers × 4 heads, dModel 32)
// with its 16 learned positions repeated to 32 (for timing only: never shipped), on a sentence of
// 31 of its words after <s>. "render": the model view made again for a new run (the predictions'
// "switch this head off", pressed on and off: runModel with headsOff, the thumbnails whose
// weights changed painted again, the lines moved, the predictions drawn anew); "head switch": a thumbnail clicked (every other one in
// turn, across both layers), until the element shows that head's step (a head of the same layer: a
// change of view; of another: that layer's input read, computed and rendered), also told apart
// (+3 of 8 in turn: a quarter of the clicks within a layer). For each: the script of the click (its handlers), and "painted": until
// a task after the next frame once it is all on screen (as the page table's). Medians and maxima
// of MODEL_VIEW_RUNS clicks after MODEL_VIEW_WARMUP; MODEL_VIEW_ROUNDS fresh pages, the least
// round's median (a shared machine's slow spells only add time).
const MODEL_VIEW_TOKENS = 32;
const MODEL_VIEW_WARMUP = 4;
const MODEL_VIEW_RUNS = 16;
const MODEL_VIEW_ROUNDS = 3;
const MODEL_VIEW_GOAL_MS = 16;

function modelViewFolder() {
  const dir = path.join(ROOT, 'build/bench-modelview');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.join(dir, 'models'), { recursive: true });
  for (const file of readdirSync(path.join(ROOT, 'dist'))) if (file !== 'models') symlinkSync(path.join(ROOT, 'dist', file), path.join(dir, file));
  const index = JSON.parse(readFileSync(path.join(ROOT, 'dist/models/index.json'), 'utf8'));
  for (const file of readdirSync(path.join(ROOT, 'dist/models'))) if (!file.startsWith('index.')) symlinkSync(path.join(ROOT, 'dist/models', file), path.join(dir, 'models', file));
  const base = index.find((entry) => entry.name === 'learner-words');
  const model = JSON.parse(readFileSync(path.join(ROOT, 'dist/models', base.file), 'utf8'));
  model.positions = Array.from({ length: MODEL_VIEW_TOKENS }, (_, i) => model.positions[i % model.positions.length]);
  model.maxTokens = MODEL_VIEW_TOKENS;
  // each file and its script twin (read from file://: web/src/engine/models.js)
  const write = (name, value) => {
    writeFileSync(path.join(dir, 'models', `${name}.json`), JSON.stringify(value));
    writeFileSync(path.join(dir, 'models', `${name}.js`), modelScript(JSON.stringify(value)));
  };
  write('bench-32', model);
  write('index', [...index, { ...base, name: 'bench-32', file: 'bench-32.json' }]);
  const words = model.vocab.filter((word) => /^[a-z]+$/.test(word));
  const sentence = Array.from({ length: MODEL_VIEW_TOKENS - 1 }, (_, i) => words[(5 * i) % words.length]).join(' ');
  return { url: `${pathToFileURL(path.join(dir, 'index.html')).href}?example=tutorial`, sentence }; // (as before the first visit opened on a model)
}

async function modelViewSection() {
  const { url, sentence } = modelViewFolder();
  const browser = await launchChromium();
  const rounds = [];
  try {
    for (let round = 0; round < MODEL_VIEW_ROUNDS; round++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      const errors = [];
      page.on('pageerror', (error) => errors.push(error.message));
      await page.goto(url);
      await waitForSteps(page);
      await openEditor(page);
      await page.waitForFunction(() => document.querySelectorAll('#model-picker option').length >= 5);
      await page.selectOption('#model-picker', 'bench-32');
      await page.waitForFunction(() => document.querySelector('attention-visualizer').state.model === 'bench-32');
      await page.fill('#sentence', sentence); // (read by the model's tokenizer)
      await page.waitForFunction((n) => document.querySelector('attention-visualizer').state.tokens.length === n
        && document.querySelectorAll('.model-view .mv-tile').length === 8, MODEL_VIEW_TOKENS);
      await page.evaluate(() => document.querySelector('.model-view').scrollIntoView());
      const times = await page.evaluate(async ({ warmup, runs }) => {
        const el = document.querySelector('attention-visualizer');
        // the model view's own script (element/model-view.js render: the run with the head off, the
        // thumbnails painted, the lines), summed over a click's renders
        const view = el._models.view;
        const render = view.render.bind(view);
        let own = 0;
        view.render = (...args) => {
          const start = performance.now();
          const node = render(...args);
          own += performance.now() - start;
          return node;
        };
        const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
        // one click: [its script, until painted]; done() tells when what it changes is all on screen
        const clicked = async (node, done) => {
          await frame();
          own = 0;
          const start = performance.now();
          node.click();
          const script = performance.now() - start;
          while (!done() || document.documentElement.hasAttribute('data-computing') || el.computing) await new Promise((resolve) => setTimeout(resolve, 0));
          await frame();
          return [script, performance.now() - start, own];
        };
        const out = { render: [], head: [], within: [], across: [] };
        for (let i = 0; i < warmup + runs; i++) {
          const pressed = document.querySelector('.head-off').getAttribute('aria-pressed') === 'true';
          const render = await clicked(document.querySelector('.head-off'), () => document.querySelector('.head-off').getAttribute('aria-pressed') === String(!pressed)
            && document.querySelector('.model-view .mv-tile') && (!pressed) === Boolean(document.querySelector('.model-view .mv-tile.off')));
          const tiles = [...document.querySelectorAll('.model-view .mv-tile')];
          const { layer, head } = { layer: el.state.layer, head: el.state.view.head };
          const next = tiles[(tiles.findIndex((t) => Number(t.dataset.layer) === layer && Number(t.dataset.head) === head) + 3) % tiles.length];
          const want = [Number(next.dataset.layer), Number(next.dataset.head)];
          const switched = await clicked(next, () => el.state.layer === want[0] && el.state.view.head === want[1]
            && document.querySelector('.model-view .mv-tile.current')?.dataset.head === String(want[1]) && el.result && el.result.heads[want[1]].weights.length > 0);
          if (i >= warmup) {
            out.render.push(render);
            out.head.push(switched);
            out[want[0] === layer ? 'within' : 'across'].push(switched); // (a head of the same layer: a change of view)
          }
        }
        return out;
      }, { warmup: MODEL_VIEW_WARMUP, runs: MODEL_VIEW_RUNS });
      if (errors.length) throw new Error(`the model view's page failed: ${errors.join('; ')}`);
      rounds.push(times);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  const stat = (what, k) => {
    const medians = rounds.map((r) => median(r[what].map((t) => t[k])));
    return [Math.min(...medians), Math.max(...rounds.flatMap((r) => r[what].map((t) => t[k])))];
  };
  const lines = [`The model view (issue 36) at ${MODEL_VIEW_TOKENS} tokens, 2 layers × 4 heads (learner-words with its positions repeated to ${MODEL_VIEW_TOKENS}, for timing only), on dist/index.html at 1280 × 900:`
    + ' "render": the predictions\' "switch this head off" pressed (runModel with headsOff, the thumbnails whose weights changed painted again, the lines moved, the predictions made again);'
    + ' "head switch": a thumbnail clicked until its head\'s step is on screen (a quarter of them a head of the same layer: a change of view; the rest of another, its input read and computed); script (the click\'s handlers), painted (to a task after the next frame)'
    + ' and the model view\'s own script (element/model-view.js render, summed over the click\'s renders),'
    + ` in ms: the least of ${MODEL_VIEW_ROUNDS} fresh pages' medians of ${MODEL_VIEW_RUNS} clicks, and the most of any click (goal: painted ≤ ${MODEL_VIEW_GOAL_MS} ms)`, ''];
  const header = ['action', 'script: median', 'script: most', 'painted: median', 'painted: most', `painted ≤ ${MODEL_VIEW_GOAL_MS} ms`, 'the model view\'s own script: median', 'most'];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  const rows = [['render', `model view render at ${MODEL_VIEW_TOKENS} tokens`], ['head', `head switch at ${MODEL_VIEW_TOKENS} tokens`],
    ['within', '… of which within a layer (the view\'s head only)'], ['across', '… of which to another layer (its input read, computed)']];
  for (const [what, name] of rows) {
    const [script, scriptMost] = stat(what, 0);
    const [painted, paintedMost] = stat(what, 1);
    const [own, ownMost] = stat(what, 2);
    lines.push(`| ${[name, fmt(script), fmt(scriptMost), fmt(painted), fmt(paintedMost), painted <= MODEL_VIEW_GOAL_MS ? 'yes' : 'no', fmt(own), fmt(ownMost)].join(' | ')} |`);
  }
  return lines;
}

// Relaxed SIMD (issue 35): the engine's matmul kernel alone (tests/bench/relaxed_matmul.cpp), as
// three freestanding wasm modules in headless Chromium: Emscripten 3.1.6 with -msimd128 (the
// product's compiler, clang 14), Debian's clang-19 with -msimd128, and clang-19 with
// -mrelaxed-simd (each step one f64x2.relaxed_madd, fused on a CPU with FMA). clang-19 is not a
// dependency of anything else: without it (apt-get install clang-19 lld-19) the section says so.
const RELAXED_SHAPES = [
  // [m, k, n, what]: the bench models' products, then attention's at n = 512, d = 64
  [16, 64, 16, 'a head\'s X·W_Q, 16 tokens, dModel 64, d_k 16'],
  [16, 64, 256, 'the MLP\'s m·W1, 16 tokens, f 256'],
  [16, 256, 64, 'the MLP\'s act·W2, 16 tokens'],
  [32, 64, 64, 'W_O, 32 tokens'],
  [512, 64, 64, 'X·W_Q at n = 512, d 64'],
  [512, 512, 64, 'weights·V at n = 512'],
];

const RELAXED_ROUNDS = 5;

function relaxedModules(dir) {
  const source = path.join(ROOT, 'tests/bench/relaxed_matmul.cpp');
  const clang19 = (out, flags) => {
    // compiled, then linked by wasm-ld-19 itself: clang-19's driver would run the PATH's
    // wasm-opt (Emscripten's binaryen, which cannot read relaxed SIMD) after linking
    spawnOk('clang-19', ['--target=wasm32', '-O3', '-msimd128', '-mbulk-memory', '-fno-exceptions', ...flags, '-c', '-o', `${out}.o`, source]);
    spawnOk('wasm-ld-19', ['--no-entry', '--export=matmul', '--export=__heap_base', `--initial-memory=${64 << 20}`, '-o', `${out}.wasm`, `${out}.o`]);
    return readFileSync(`${out}.wasm`);
  };
  const emcc = path.join(dir, 'simd128-emscripten.wasm');
  spawnOk('em++', ['-O3', '-msimd128', '--no-entry', '-sSTANDALONE_WASM', `-sINITIAL_MEMORY=${64 << 20}`,
    '-sEXPORTED_FUNCTIONS=_matmul,___heap_base', '-o', emcc, source], { ...process.env, NODE_PATH: '/usr/share/nodejs' });
  return {
    'SIMD128, Emscripten 3.1.6 (clang 14)': readFileSync(emcc),
    'SIMD128, clang-19': clang19(path.join(dir, 'simd128-clang19'), []),
    'relaxed SIMD, clang-19': clang19(path.join(dir, 'relaxed-clang19'), ['-mrelaxed-simd', '-DRELAXED']),
  };
}

function spawnOk(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
}

async function relaxedSimdSection() {
  const intro = 'Relaxed SIMD (issue 35): the engine\'s matmul kernel alone (packing b into panels, the 2 × 8 micro-kernel;'
    + ' tests/bench/relaxed_matmul.cpp) as a freestanding wasm module in headless Chromium, built three ways;';
  if (spawnSync('clang-19', ['--version'], { stdio: 'ignore' }).status !== 0) {
    return [`${intro} not measured here: clang-19 is not installed (apt-get install clang-19 lld-19).`];
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), 'relaxed-simd-'));
  const modules = relaxedModules(dir);
  const browser = await launchChromium();
  let rounds;
  try {
    const page = await browser.newPage();
    rounds = await page.evaluate(async ({ modules, shapes, timer, nRounds }) => {
      const medianMs = (0, eval)(timer);
      const instances = {};
      for (const [name, bytes] of Object.entries(modules)) {
        instances[name] = (await WebAssembly.instantiate(new Uint8Array(bytes))).instance.exports;
      }
      // per shape, the builds one after another (so a slow spell of the machine meets them all)
      const setUp = (e, [m, k, n]) => {
        const f64 = new Float64Array(e.memory.buffer);
        const a = Math.ceil(e.__heap_base.value / 64) * 64;
        const b = a + m * k * 8;
        const o = b + k * n * 8;
        for (let i = 0; i < m * k; i++) f64[a / 8 + i] = Math.sin(1 + 0.37 * i) / Math.sqrt(k);
        for (let i = 0; i < k * n; i++) f64[b / 8 + i] = Math.sin(2 + 1.91 * i) / Math.sqrt(n);
        // small products repeated within one timed call (~10⁶ multiply-adds), so that a slow
        // spell during the timer's calibration cannot leave single calls below the coarse clock
        const reps = Math.ceil(1e6 / (m * k * n));
        const run = () => {
          for (let r = 0; r < reps; r++) e.matmul(a, b, o, o + m * n * 8, m, k, n);
        };
        return { reps, run, result: () => Array.from(f64.subarray(o / 8, o / 8 + m * n)) };
      };
      const out = [];
      for (let r = 0; r < nRounds; r++) {
        const round = Object.fromEntries(Object.keys(instances).map((name) => [name, []]));
        shapes.forEach((shape, s) => {
          for (const [name, e] of Object.entries(instances)) {
            const { reps, run, result } = setUp(e, shape);
            round[name][s] = { ms: medianMs(run) / reps, result: r === 0 ? result() : null };
          }
        });
        out.push(round);
      }
      return out;
    }, { modules: Object.fromEntries(Object.entries(modules).map(([k, v]) => [k, Array.from(v)])), shapes: RELAXED_SHAPES, timer: TIMER_SOURCE, nRounds: RELAXED_ROUNDS });
  } finally {
    await browser.close();
  }
  const names = Object.keys(modules);
  const [product] = names;
  const least = (name, s) => Math.min(...rounds.map((round) => round[name][s].ms));
  const ratio = (name, s) => {
    const values = rounds.map((round) => round[product][s].ms / round[name][s].ms).sort((a, b) => a - b);
    return `${values[values.length >> 1].toFixed(2)}× (${values[0].toFixed(2)}–${values[values.length - 1].toFixed(2)})`;
  };
  // what a fused multiply-add changes: the largest |relaxed − SIMD128| / max(1, |SIMD128|)
  const differs = (name, s) => {
    const a = rounds[0][name][s].result;
    const b = rounds[0][product][s].result;
    const d = Math.max(...a.map((v, i) => Math.abs(v - b[i]) / Math.max(1, Math.abs(b[i]))));
    return d === 0 ? '0 (bit for bit)' : d.toExponential(1);
  };
  const lines = [`${intro} ms, the least of ${RELAXED_ROUNDS} rounds' medians; ratio: the product's build ÷ that build (above 1:`
    + ' faster than the product\'s), the median of the rounds\' own ratios (least–most); difference: the largest |x − product| / max(1, |product|)', ''];
  const header = ['m × k · k × n', 'where', ...names, ...names.slice(1).map((n) => `ratio: ${n}`), ...names.slice(1).map((n) => `difference: ${n}`)];
  lines.push(`| ${header.join(' | ')} |`, `|${header.map(() => ' --- ').join('|')}|`);
  RELAXED_SHAPES.forEach(([m, k, n, what], s) => {
    lines.push(`| ${[`${m} × ${k} · ${k} × ${n}`, what, ...names.map((name) => fmt(least(name, s))),
      ...names.slice(1).map((name) => ratio(name, s)), ...names.slice(1).map((name) => differs(name, s))].join(' | ')} |`);
  });
  return lines;
}

bootstrap({ purpose: 'bench' });
await buildDist();
const MACHINE = await machine(); // the load average before anything here runs
console.log(MACHINE);
if (process.argv.includes('--large-only')) {
  console.log(`\n${(await pageSection({ largeOnly: true })).join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--drag-only')) {
  console.log(`\n${(await dragSection()).join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--elements')) {
  const lines = await elementsSection();
  writeSection('elements', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--relaxed-simd')) {
  const lines = await relaxedSimdSection();
  writeSection('relaxed', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--model-only')) {
  const lines = await modelSection();
  writeSection('model', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--model-view-only')) {
  const lines = await modelViewSection();
  writeSection('modelview', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--training-only')) {
  const lines = await trainingSection();
  writeSection('training', [MACHINE, '', ...lines]);
  console.log(`\n${lines.join('\n')}`);
  process.exit(0);
}
if (process.argv.includes('--page-only')) {
  writeSection('page', [MACHINE, '', ...(await pageSection()), '', ...(await dragSection())]);
  console.log(`\n${readFileSync(DOC, 'utf8').split(marker('page', false))[1].split(marker('page', true))[0].trim()}`);
  process.exit(0);
}
const nativeDir = cmakeBuild({ kind: 'native', targets: ['attention_bench'] });
const wasmDir = cmakeBuild({ kind: 'wasm', targets: ['attention_bench', 'attention_bench_web'] });
const sizeArgs = [String(D), ...SIZES.map(String)];

// One round of every measurement. A shared machine has slow spells lasting seconds to minutes,
// which only ever add time: each time shown is the least of ROUNDS rounds' medians, and each
// ratio the median of the rounds' own ratios.
async function round() {
  return {
    native: byN(jsonLines(path.join(nativeDir, 'attention_bench'), sizeArgs)),
    wasmNode: byN(
      jsonLines(process.execPath, ['--no-experimental-fetch', path.join(wasmDir, 'attention_bench.js'), ...sizeArgs]),
    ),
    chrome: await inChromium(wasmDir),
    apiNode: await apiInNode(),
    js: plainJs(),
    npRef: numpy(REFERENCE_BLAS_DIR),
    npOpen: numpy(OPENBLAS_DIR),
    npKept: numpy(OPENBLAS_DIR, { keepPages: true }),
  };
}

// The least of two rounds' figures, field by field (labels kept).
const least = (a, b) => (typeof a === 'number' ? Math.min(a, b)
  : a === null || typeof a !== 'object' ? a
    : Object.fromEntries(Object.keys(a).map((key) => [key, least(a[key], b[key])])));

const ROUNDS = Number(arg('rounds', '5'));
// the engine's section of docs/performance.md, printed as it is written
const engineLines = [MACHINE, ''];
const say = (text) => {
  console.log(text);
  engineLines.push(...text.split('\n'));
};
say(`bench: d_model = d_k = d_v = ${D}; per full attention (all steps), in ms, the least of ${ROUNDS} rounds' medians;`
  + ' ratios: the median of the rounds\' own ratios (least–most)');
const rounds = [];
for (let r = 0; r < ROUNDS; r++) rounds.push(await round());
const { native, wasmNode, chrome, apiNode, js, npRef, npOpen, npKept } = rounds.reduce(least);

// Ratios within each round (its figures were measured minutes apart at most), then their
// median across rounds, with the least and the most.
const RATIOS = [
  (m, n) => m.chrome.api[n].typed / m.chrome.core[n], // API typed ÷ wasm (issue 17: ≤ 1.2× with reuse)
  (m, n) => m.chrome.api[n].reuse / m.chrome.core[n], // API typed, reuse ÷ wasm
  (m, n) => m.chrome.core[n] / m.native[n], // wasm ÷ native
  (m, n) => m.chrome.js[n] / m.chrome.core[n], // plain JS ÷ wasm
  (m, n) => m.chrome.core[n] / m.npOpen.times[n], // wasm ÷ numpy OpenBLAS
  (m, n) => m.chrome.core[n] / m.npKept.times[n], // wasm ÷ numpy OpenBLAS, pages kept
];
function ratioSpread(of, n) {
  const values = rounds.map((m) => of(m, n)).filter(Number.isFinite).sort((a, b) => a - b);
  if (values.length === 0) return '–';
  const median = values[values.length >> 1];
  return `${median.toFixed(2)}× (${values[0].toFixed(2)}–${values[values.length - 1].toFixed(2)})`;
}

const header = [
  'n',
  'native -O3',
  'wasm node',
  'wasm Chromium',
  'API node',
  'API Chromium',
  'API typed Chromium',
  'API typed, reuse Chromium',
  'plain JS node',
  'plain JS Chromium',
  `numpy (${npRef.label ?? 'n/a'} BLAS)`,
  `numpy (${npOpen.label ?? 'n/a'}, 1 thread)`,
  `numpy (${npOpen.label ?? 'n/a'}, 1 thread, pages kept)`,
  'API typed ÷ wasm',
  'API typed, reuse ÷ wasm',
  'wasm ÷ native',
  'plain JS ÷ wasm',
  'wasm ÷ numpy OpenBLAS',
  'wasm ÷ numpy OpenBLAS, pages kept',
];
const rows = SIZES.map((n) => [
  n,
  fmt(native[n]),
  fmt(wasmNode[n]),
  fmt(chrome.core[n]),
  fmt(apiNode[n]),
  fmt(chrome.api[n].rows),
  fmt(chrome.api[n].typed),
  fmt(chrome.api[n].reuse),
  fmt(js[n]),
  fmt(chrome.js[n]),
  fmt(npRef.times[n]),
  fmt(npOpen.times[n]),
  fmt(npKept.times[n]),
  ...RATIOS.map((of) => ratioSpread(of, n)),
]);
say('');
say(`| ${header.join(' | ')} |`);
say(`|${header.map(() => ' --- ').join('|')}|`);
for (const r of rows) say(`| ${r.join(' | ')} |`);
say(`\nbackward() and train() of the API in Chromium (typed form), the least of the rounds' medians, in ms;`
  + ' ratio: the median of the rounds\' own ratios (least–most)');
const backwardHeader = ['n', 'compute typed', 'backward typed', 'backward ÷ compute'];
say('');
say(`| ${backwardHeader.join(' | ')} |`);
say(`|${backwardHeader.map(() => ' --- ').join('|')}|`);
for (const n of SIZES) {
  const ratio = ratioSpread((m, size) => m.chrome.api[size].backward / m.chrome.api[size].typed, n);
  say(`| ${[n, fmt(chrome.api[n].typed), fmt(chrome.api[n].backward), ratio].join(' | ')} |`);
}
say(`training at n = 16, d = 16 (W_Q, W_K, W_V by Adam, output loss): ${fmt(chrome.api.train.step)} ms a step`
  + ` (in calls of 100 steps), ${fmt(chrome.api.train.call)} ms for a call of one step`);
say(
  '\n"wasm" is the engine\'s C++ (tests/bench/attention_bench.cpp) compiled by Emscripten; "API" adds\n' +
    'the public compute() with its array-of-rows conversions and copies ("typed": compute(input,\n' +
    '{ typed: true }), as the page calls it). "pages kept": numpy with glibc\'s malloc keeping freed\n' +
    'memory, so its temporaries do not fault in fresh pages on every call. Ratios compare runs in\n' +
    'Chromium (the page\'s runtime) with native and numpy.',
);

// Where the time goes: wasm's products against OpenBLAS's, as time and as rate
const madds = (n) => 3 * n * D * D + 2 * n * n * D; // X·W_Q, X·W_K, X·W_V; Q·Kᵀ, weights·V
const rate = (n, ms) => (ms === undefined ? '' : ` (${(madds(n) / ms / 1e6).toFixed(1)} G/s)`);
// the whole less the products, within each round (both measured seconds apart), then the
// median of the rounds: the least picked the round whose products ran slowest, and could be
// below zero when the rest is small (n = 64)
const rest = (of) => {
  const values = rounds.map(of).filter(Number.isFinite).sort((a, b) => a - b);
  return values.length === 0 ? undefined : values[values.length >> 1];
};
const split = [
  'n',
  'multiply-adds',
  'products: wasm Chromium',
  'products: numpy OpenBLAS',
  'the rest: wasm Chromium',
  'the rest: numpy OpenBLAS',
];
say(
  '\nWhere the time goes, in ms: the five matrix products alone (X·W_Q, X·W_K, X·W_V, Q·Kᵀ, weights·V)\n' +
    'with their rate in billions of multiply-adds a second, each the least of the rounds; and the rest\n' +
    '(scaling, softmax, checks): the whole computation less the products within a round, the median\n' +
    'of the rounds.',
);
say('');
say(`| ${split.join(' | ')} |`);
say(`|${split.map(() => ' --- ').join('|')}|`);
for (const n of SIZES) {
  const row = [
    n,
    `${(madds(n) / 1e6).toFixed(2)} M`,
    fmt(chrome.products[n]) + rate(n, chrome.products[n]),
    fmt(npOpen.products[n]) + rate(n, npOpen.products[n]),
    fmt(rest((m) => m.chrome.core[n] - m.chrome.products[n])),
    fmt(rest((m) => m.npOpen.times[n] - m.npOpen.products[n])),
  ];
  say(`| ${row.join(' | ')} |`);
}
writeSection('engine', engineLines);
const pageLines = [...(await pageSection()), '', ...(await dragSection())];
console.log(`\n${pageLines.join('\n')}`);
writeSection('page', [MACHINE, '', ...pageLines]);
const elementLines = await elementsSection();
console.log(`\n${elementLines.join('\n')}`);
writeSection('elements', [MACHINE, '', ...elementLines]);
const modelLines = await modelSection();
console.log(`\n${modelLines.join('\n')}`);
writeSection('model', [MACHINE, '', ...modelLines]);
const trainingLines = await trainingSection();
console.log(`\n${trainingLines.join('\n')}`);
writeSection('training', [MACHINE, '', ...trainingLines]);
const modelViewLines = await modelViewSection();
console.log(`\n${modelViewLines.join('\n')}`);
writeSection('modelview', [MACHINE, '', ...modelViewLines]);
const relaxedLines = await relaxedSimdSection();
console.log(`\n${relaxedLines.join('\n')}`);
writeSection('relaxed', [MACHINE, '', ...relaxedLines]);
