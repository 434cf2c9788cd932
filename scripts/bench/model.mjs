// Models against PyTorch (bench.mjs --model-only).
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../build.mjs';
import { launchChromium, TIMER_SOURCE, jsonLines, fmt } from './common.mjs';

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

export async function modelSection() {
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
