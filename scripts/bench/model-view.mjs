// The model view at 32 tokens (bench.mjs --model-view-only).
import { mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from '../build.mjs';
import { waitForSteps, openEditor } from '../../tests/browser/ui.mjs';
import { modelScript } from '../../web/src/engine/models.js';
import { launchChromium, median, fmt } from './common.mjs';

/* global document, requestAnimationFrame -- the callbacks of page.evaluate run in the page */

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

export async function modelViewSection() {
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
