// Browser tests of the element and embed.html with large inputs (issue 13, item 6): 2048 and
// 4096 tokens, d = 64, given by the state attribute, the state property, a link and
// postMessage `set`, reach a painted result while the page stays responsive, as the full page
// does (large.test.mjs): no task of a page's main thread takes LONGEST_TASK_MS of CPU time
// and the JS heap (performance.memory, typed arrays included) stays under a bound; a burst of
// edits made while computing ends on the newest state, the results it made stale never
// shown. Before this (computing on the page's thread with arrays of rows), a 4096-token state
// held the element's page for 19 s and embed.html for over 2 minutes (PerformanceObserver
// 'longtask', wall clock), with 1.1 and 1.6 GB of heap. Values are checked against plain JS,
// never against the engine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { encodeHash } from '../../web/src/state/link.js';
import { mulberry32 } from '../../web/src/io/random.js';
import { browserAndServer } from './local.mjs';

const EMBED_FILE = pathToFileURL(path.resolve('dist/embed.html')).href;
const D = 64;
// Far below the seconds to minutes before. In thread CPU time (from a Chromium trace): on a
// loaded machine a task's wall time is mostly waiting for a core (a 300 ms busy loop took
// 28 ms of CPU time with 15 processes waiting on 2 cores); the PerformanceObserver's
// wall-clock longest task is printed beside it.
const LONGEST_TASK_MS = 1000;
// The result on screen is three n × n float64 matrices (384 MiB at n = 4096, 96 MiB at 2048).
const HEAP_MB = { 2048: 200, 4096: 520 };

// A host page on localhost may frame embed.html from 127.0.0.1 (another site, as hosts are).
const local = browserAndServer(path.resolve('dist'), { args: ['--disable-features=LocalNetworkAccessChecks'] });

// n tokens, d = 64; every value one of -1, -0.5, 0, 0.5, 1 (so that a 4096-token link stays
// under Chromium's 2 MB address limit), from a seed; shown at the softmax step (two n × n heatmaps).
function bigState(n, seed) {
  const next = mulberry32(seed);
  const matrix = (rows, cols) => Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round(next() * 4) / 2 - 1));
  return {
    version: 1,
    tokens: Array.from({ length: n }, (_, i) => String.fromCodePoint(0x4e00 + i)),
    x: matrix(n, D),
    heads: [{ wq: matrix(D, D), wk: matrix(D, D), wv: matrix(D, D) }],
    causal: false,
    keyPadding: Array(n).fill(false),
    scaleBySqrtDk: true,
    temperature: 1,
    positionalEncoding: false,
    alibi: false,
    exercise: '',
    guess: false,
    model: '',
    layer: 0,
    view: { step: 'softmax', head: 0, lang: 'en', decimals: 4 },
  };
}

// Plain-JS attention weights of the given (query, key) cells.
function expectedWeights(state, cells) {
  const { x, heads: [{ wq, wk }], temperature } = state;
  const project = (row, w) => w[0].map((_, j) => row.reduce((sum, v, k) => sum + v * w[k][j], 0));
  const keys = x.map((row) => project(row, wk));
  return cells.map(([i, j]) => {
    const q = project(x[i], wq);
    const scaled = keys.map((k) => q.reduce((sum, v, t) => sum + v * k[t], 0) / Math.sqrt(D) / temperature);
    const max = Math.max(...scaled);
    const e = scaled.map((s) => Math.exp(s - max));
    return e[j] / e.reduce((a, b) => a + b, 0);
  });
}
const close = (actual, wanted) => Math.abs(actual - wanted) <= 1e-12 * Math.max(1, Math.abs(wanted));

// Before any script: long tasks (their durations) are collected in window.longTasks.
function observeLongTasks() {
  window.longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.longTasks.push(entry.duration);
  }).observe({ type: 'longtask', buffered: true });
}

async function open(url, setup) {
  const context = await local.browser.newContext({ locale: 'en-US', viewport: { width: 1280, height: 900 } });
  await context.addInitScript(observeLongTasks);
  const page = await context.newPage();
  page.setDefaultTimeout(240000);
  const problems = [];
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  if (setup) await setup(page);
  await page.goto(url);
  return { context, page, problems };
}

// A localhost page with one element (and the example's CSP, which lets the engine's worker start).
const HOST_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self' data:; worker-src blob:">
<script src="attention-visualizer.js"></script></head><body><attention-visualizer></attention-visualizer></body></html>`;

function openHost({ withoutWorker = false } = {}) {
  const url = local.at('element-large-host.html');
  return open(url, async (page) => {
    if (withoutWorker) await page.addInitScript(() => { delete globalThis.Worker; });
    await page.route(url, (route) => route.fulfill({ contentType: 'text/html', body: HOST_PAGE }));
  });
}

// Until the element (in `frame`) shows the n × n weights of its newest state, painted, then what it
// shows: the heatmap's size and opaque pixels, the status, the steps dimmed or not.
async function painted(frame, n) {
  await frame.waitForFunction((wanted) => {
    const v = document.querySelector('attention-visualizer');
    const shape = v.shadowRoot.querySelector('.matrix-canvas[data-matrix="Weights"] .matrix-shape');
    // large heatmaps are painted in slices, each canvas data-painting meanwhile
    return !v.computing && shape !== null && shape.textContent === `${wanted} × ${wanted}` && v.shadowRoot.querySelector('canvas[data-painting]') === null;
  }, n, { polling: 100 });
  return frame.evaluate(() => {
    const root = document.querySelector('attention-visualizer').shadowRoot;
    const canvas = root.querySelector('canvas[data-matrix="Weights"]');
    const { data } = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height);
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    return { width: canvas.width, height: canvas.height, opaque, status: root.querySelector('.status').textContent, stale: root.querySelector('.steps').classList.contains('stale') };
  });
}
const PAINTED = { width: 512, height: 512, opaque: 512 * 512, status: '', stale: false }; // n > 512: a pixel a block of cells

// Runs `action` (which gives the frame it waited in: the element's page or embed.html) while
// Chromium traces; then the longest task of that frame's main thread in CPU time (ms), and
// what the frame saw: its longest task in wall time (ms, since it started or
// resetLongTasks()) and its JS heap (MB).
async function measured(action) {
  await local.browser.startTracing(undefined, { categories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', '__metadata'] });
  let frame;
  let trace;
  try {
    frame = await action();
    await frame.evaluate(() => console.timeStamp('measured frame')); // names its process in the trace
  } finally {
    trace = JSON.parse((await local.browser.stopTracing()).toString()).traceEvents;
  }
  const { pid } = trace.find((e) => e.name === 'TimeStamp' && e.args.data.message === 'measured frame');
  const main = trace.find((e) => e.pid === pid && e.name === 'thread_name' && e.args.name === 'CrRendererMain').tid;
  const cpu = trace.reduce((most, e) => (e.name === 'RunTask' && e.pid === pid && e.tid === main ? Math.max(most, e.tdur || 0) : most), 0);
  const seen = await frame.evaluate(() => ({
    wallMs: Math.round(Math.max(0, ...window.longTasks)), heapMB: Math.round(performance.memory.usedJSHeapSize / 2 ** 20),
  }));
  return { cpuMs: Math.round(cpu / 1000), ...seen };
}
const resetLongTasks = (frame) => frame.evaluate(() => { window.longTasks = []; });

function assertFigures(label, n, { cpuMs, wallMs, heapMB }) {
  console.log(`${label}: longest task ${cpuMs} ms of CPU time (${wallMs} ms wall), JS heap ${heapMB} MB`); // for the record
  assert.ok(cpuMs < LONGEST_TASK_MS, `${label}: a task of ${cpuMs} ms`);
  assert.ok(heapMB < HEAP_MB[n], `${label}: ${heapMB} MB of JS heap`);
}

// A few weights of the element's `result` (rows of Float64Array at this size) against plain JS.
async function checkWeights(frame, state) {
  const n = state.tokens.length;
  const cells = [[0, 0], [7, 3], [n - 1, n - 2]];
  const got = await frame.evaluate((wanted) => {
    const { heads } = document.querySelector('attention-visualizer').result;
    return { typed: heads[0].weights[0] instanceof Float64Array, rows: heads[0].weights.length, values: wanted.map(([i, j]) => heads[0].weights[i][j]) };
  }, cells);
  assert.equal(got.typed, true);
  assert.equal(got.rows, n);
  expectedWeights(state, cells).forEach((want, k) => assert.ok(close(got.values[k], want), `weights[${cells[k]}] = ${got.values[k]}, expected ${want}`));
}

test('the element, given a 2048-token state attribute, computes in the worker and paints it', async () => {
  const { context, page, problems } = await openHost();
  try {
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result !== null);
    const state = bigState(2048, 11);
    await resetLongTasks(page);
    let during;
    const figures = await measured(async () => {
      // set in a task of the page's own, as a script would
      during = await page.evaluate((hash) => new Promise((resolve) => {
        setTimeout(() => {
          const v = document.querySelector('attention-visualizer');
          v.setAttribute('state', hash);
          requestAnimationFrame(() => setTimeout(() => {
            resolve({ computing: v.computing, status: v.shadowRoot.querySelector('.status').textContent, stale: v.shadowRoot.querySelector('.steps').classList.contains('stale') });
          }));
        });
      }), encodeHash(state));
      assert.deepEqual(await painted(page, 2048), PAINTED);
      return page;
    });
    assert.deepEqual(during, { computing: true, status: 'Computing in the background; you can keep editing…', stale: true });
    assertFigures('element, state attribute, n = 2048', 2048, figures);
    await checkWeights(page, state);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('the element, given a 4096-token state property, computes in the worker and paints it', async () => {
  const { context, page, problems } = await openHost();
  try {
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result !== null);
    const state = bigState(4096, 12);
    await page.evaluate((s) => { window.big = s; }, state);
    await resetLongTasks(page);
    const figures = await measured(async () => {
      await page.evaluate(() => { setTimeout(() => { document.querySelector('attention-visualizer').state = window.big; }); });
      assert.deepEqual(await painted(page, 4096), PAINTED);
      return page;
    });
    assertFigures('element, state property, n = 4096', 4096, figures);
    await checkWeights(page, state);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('embed.html opened from a 4096-token link paints it (file://)', async () => {
  const state = bigState(4096, 13);
  let opened;
  try {
    const figures = await measured(async () => {
      opened = await open(`${EMBED_FILE}#${encodeHash(state)}`);
      assert.deepEqual(await painted(opened.page, 4096), PAINTED);
      return opened.page;
    });
    assertFigures('embed.html, link, n = 4096', 4096, figures);
    const { page, problems } = opened;
    assert.deepEqual(await page.evaluate(() => document.querySelector('attention-visualizer').state), state);
    await checkWeights(page, state);
    assert.deepEqual(problems, []);
  } finally {
    await opened?.context.close();
  }
});

test('embed.html in a frame: a burst of postMessage sets of a 2048-token state: each set its own reply, with its own state and that state\'s result', async () => {
  // the frame on another site (127.0.0.1) than the host (localhost), as hosts are: it runs in
  // its own process, and its figures are its own
  const url = local.at('element-large-frame.html');
  const body = `<!doctype html><html><body><iframe id="f" src="${local.at('embed.html').replace('localhost', '127.0.0.1')}" width="1200" height="800"></iframe>
<script>window.received = []; window.addEventListener('message', (e) => window.received.push(e.data));</script></body></html>`;
  const { context, page, problems } = await open(url, (p) => p.route(url, (route) => route.fulfill({ contentType: 'text/html', body })));
  try {
    await page.waitForFunction(() => window.received.some((m) => m.type === 'attention-visualizer:ready'));
    const frame = page.frame({ url: /embed\.html/ });
    const base = bigState(2048, 14);
    const temperatures = [1, 2, 0.5];
    await resetLongTasks(frame);
    const figures = await measured(async () => {
      // three sets in one task: the second and third come while the first is still to compute
      await page.evaluate(([s, list]) => {
        window.received = [];
        const target = document.getElementById('f').contentWindow;
        list.forEach((temperature, id) => target.postMessage({ type: 'attention-visualizer:set', id, state: { ...s, temperature } }, '*'));
      }, [base, temperatures]);
      await page.waitForFunction(() => window.received.filter((m) => m.type === 'attention-visualizer:state').length === 3);
      assert.deepEqual(await painted(frame, 2048), PAINTED);
      return frame;
    });
    assertFigures('embed.html in a frame, postMessage set, n = 2048', 2048, figures);
    const cells = [[0, 0], [2047, 5]];
    // a large result's matrices as the engine's typed form: { rows, cols, data } (row-major)
    // (resize messages, which carry no state, come whenever the content's height changes)
    const replies = await page.evaluate((wanted) => window.received.filter((m) => m.type !== 'attention-visualizer:resize').map((m) => {
      const { rows, cols, data } = m.result.heads[0].weights;
      return {
        type: m.type, id: m.id, temperature: m.state.temperature, shape: [rows, cols, data.constructor.name, data.length],
        values: wanted.map(([i, j]) => data[i * cols + j]),
      };
    }), cells);
    // one set at a time (issue 32.8: the replies all carried the newest state): each set's change,
    // then its reply, with its own state and that state's result
    assert.deepEqual(replies.map(({ type, id, temperature }) => [type, id, temperature]), temperatures.flatMap((temperature, id) => [
      ['attention-visualizer:change', undefined, temperature], ['attention-visualizer:state', id, temperature],
    ]));
    for (const reply of replies) {
      const want = expectedWeights({ ...base, temperature: reply.temperature }, cells);
      assert.deepEqual(reply.shape, [2048, 2048, 'Float64Array', 2048 * 2048]);
      want.forEach((w, k) => assert.ok(close(reply.values[k], w), `${reply.type} ${reply.id}: weights[${cells[k]}] = ${reply.values[k]}, expected ${w}`));
    }
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('a burst of edits while the worker computes: one result shown, the newest state\'s', async () => {
  const { context, page, problems } = await openHost();
  try {
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result !== null);
    const first = bigState(2048, 15);
    const temperatures = [1.5, 3, 0.25];
    const duringBurst = await page.evaluate(([s, later]) => new Promise((resolve) => {
      const v = document.querySelector('attention-visualizer');
      window.events = [];
      v.addEventListener('change', () => window.events.push(`change ${v.state.temperature}`));
      v.addEventListener('computed', () => window.events.push(`computed ${v.state.temperature}`));
      v.state = s;
      // once the worker has the first state: an edit a task, 20 ms apart
      const running = () => v.shadowRoot.querySelector('.status').textContent.startsWith('Computing');
      const edit = (i) => {
        if (i === later.length) resolve(running());
        else {
          v.state = { temperature: later[i] };
          setTimeout(() => edit(i + 1), 20);
        }
      };
      const wait = () => (running() ? edit(0) : requestAnimationFrame(wait));
      wait();
    }), [first, temperatures]);
    assert.equal(duringBurst, true, 'the burst came while the first state computed');
    assert.deepEqual(await painted(page, 2048), PAINTED);
    assert.deepEqual(await page.evaluate(() => window.events), ['change 1', 'change 1.5', 'change 3', 'change 0.25', 'computed 0.25']);
    await checkWeights(page, { ...first, temperature: 0.25 });
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});

test('where no worker can start, the element computes a 1024-token state on the page\'s thread, the same numbers', async () => {
  const { context, page, problems } = await openHost({ withoutWorker: true });
  try {
    await page.waitForFunction(() => document.querySelector('attention-visualizer').result !== null);
    const state = bigState(1024, 16);
    await page.evaluate((s) => { document.querySelector('attention-visualizer').state = s; }, state);
    assert.deepEqual(await painted(page, 1024), PAINTED);
    await checkWeights(page, state);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
