// The measuring tools every section of scripts/bench.mjs shares: Chromium, the bench's inputs
// and timer (as sources, to run in the page too), the JSON lines of a bench binary, medians,
// the page opened with its steps shown, and the longest main-thread task.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../build.mjs';
import { waitForSteps, openEditor } from '../../tests/browser/ui.mjs';

// playwright-core is imported only when used, after bootstrap() has installed it
export const launchChromium = async () => (await import('../../tests/browser/chromium.mjs')).launchChromium();

// The inputs of tests/bench/attention_bench.cpp and numpy_bench.py, as a JS function source
// so the same code also runs inside the page.
export const INPUTS_SOURCE = `(n, d) => {
  const filled = (rows, cols, seed) => Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => Math.sin(seed + 0.37 * i + 1.91 * j) / Math.sqrt(cols)));
  return { x: filled(n, d, 1), wq: filled(d, d, 2), wk: filled(d, d, 3), wv: filled(d, d, 4) };
}`;

// Median ms per call of fn: after 100 ms of warm-up (a first call can be slow while the code
// is compiled, which would leave the batch at one call), calls are batched so that each timed
// batch lasts >= 5 ms (Chromium coarsens performance.now()); 2 warm-up batches, then >= 5
// batches or ~1 s.
export const TIMER_SOURCE = `(fn) => {
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
export const makeInputs = (0, eval)(INPUTS_SOURCE);
export const medianMs = (0, eval)(TIMER_SOURCE);

export function jsonLines(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stderr}`);
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));
}

export const byN = (lines, field = 'median_ms') => Object.fromEntries(lines.map((l) => [l.n, l[field]]));

// the middle value (of an odd count; the upper middle of an even one)
export const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
export const fmt = (ms) => (ms === undefined ? '–' : ms < 1 ? ms.toFixed(3) : ms < 100 ? ms.toFixed(2) : ms.toFixed(0));

// dist/index.html in a new page of its own (a fresh context: nothing stored), its steps shown,
// the edit panel open, the page's long tasks collected in globalThis.longTasks; errors: the
// page's uncaught errors, for the caller to report.
export async function openPage(browser) {
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
export async function longestTask(browser, page, action) {
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
