// Reads the numpy fixtures written by tests/make_fixtures.py:
// attention_cases.txt, an array of { name, x, wq, wk, wv, q, k, v, scores, scaled, weights,
// output }, and variant_cases.txt (multi-head, masks, temperature, scaling, PE, cross).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { execFileSync } from 'node:child_process';
import { numpyScript } from '../../web/src/io/export.js';

export const FIXTURE_FILE = new URL('../fixtures/attention_cases.txt', import.meta.url);
export const VARIANT_FIXTURE_FILE = new URL('../fixtures/variant_cases.txt', import.meta.url);
// written by tests/make_grad_fixtures.py (torch autograd)
export const BACKWARD_FIXTURE_FILE = new URL('../fixtures/backward_cases.txt', import.meta.url);
export const TRAINING_FIXTURE_FILE = new URL('../fixtures/training_cases.txt', import.meta.url);

// numpy's repr writes masked scores as -inf
function parseNumber(word) {
  if (word === '-inf') return -Infinity;
  if (word === 'inf') return Infinity;
  return Number(word);
}

// Cases in file order: { name, options: { causal: 1, ... }, <matrix name>: rows, ... }.
function loadCases(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const cases = [];
  for (let i = 0; i < lines.length; i++) {
    const [word, ...rest] = lines[i].trim().split(/\s+/);
    if (word === '' || word === '#' || word === 'end') continue;
    if (word === 'case') {
      cases.push({ name: rest[0], options: {} });
      continue;
    }
    const current = cases[cases.length - 1];
    if (word === 'option') {
      current.options[rest[0]] = parseNumber(rest[1]);
      continue;
    }
    const rows = Number(rest[0]);
    const m = [];
    for (let r = 0; r < rows; r++) m.push(lines[++i].trim().split(' ').map(parseNumber));
    current[word] = m;
  }
  return cases;
}

export function loadFixtureCases() {
  return loadCases(FIXTURE_FILE);
}

// Variant cases with `input`, the argument of engine.compute() in the multi-head form
// (heads: [{ wq, wk, wv }], wo, context, keyPadding and the options), next to numpy's
// results: h<i>.<step>, concat, output, masked, fullyMasked, pe, xWithPe, ...
export function loadVariantCases() {
  return loadCases(VARIANT_FIXTURE_FILE).map((c) => ({ ...c, input: multiHeadInput(c) }));
}

// Gradient cases (torch): `input` as above, G (dL/doutput), and d.<name> for every gradient
// (d.x, d.h0.wq, d.h0.scores, d.concat, d.temperature as a 1 × 1 matrix, …).
export function loadBackwardCases() {
  return loadCases(BACKWARD_FIXTURE_FILE).map((c) => ({ ...c, input: multiHeadInput(c) }));
}

// The other seeds of backward() (torch): `input` as above and `seed`, backward()'s second
// argument in the heads form: { weights: [S | null per head] } (option seed 0), plus output: G
// (1), or { loss, target } (2, with `loss`, its value, as a 1 × 1 matrix); f.h<i>.q, k, weights,
// the forward pass, and d.<name> as above.
export const BACKWARD_SEED_FIXTURE_FILE = new URL('../fixtures/backward_seed_cases.txt', import.meta.url);
export function loadBackwardSeedCases() {
  return loadCases(BACKWARD_SEED_FIXTURE_FILE).map((c) => {
    const perHead = (prefix) => Array.from({ length: c.options.heads }, (_, h) => c[`${prefix}.h${h}`] ?? null);
    let seed;
    if (c.options.seed === 2) {
      const loss = c.options.loss === 1 ? 'weights' : 'output';
      seed = { loss, target: loss === 'output' ? c.target : perHead('target') };
    } else {
      seed = { weights: perHead('S') };
      if (c.options.seed === 1) seed.output = c.G;
    }
    return { ...c, input: multiHeadInput(c), seed };
  });
}

// Training cases (torch.optim): `input` as above and `options`, the argument of
// engine.train() in the multi-head form, next to torch's losses and final.<name> matrices.
export function loadTrainingCases() {
  return loadCases(TRAINING_FIXTURE_FILE).map((c) => {
    const o = c.options;
    const options = {
      loss: o.loss === 1 ? 'weights' : 'output',
      train: ['x', 'context', 'wq', 'wk', 'wv', 'wo'].filter((name) => o[`train.${name}`] === 1),
      optimizer: o.optimizer === 1 ? 'adam' : 'sgd',
      learningRate: o.learningRate,
      steps: o.steps,
      seed: o.seed,
    };
    if (o.rowsPerStep !== 0) options.rowsPerStep = o.rowsPerStep;
    options.target = options.loss === 'output' ? c.target
      : Array.from({ length: o.heads }, (_, h) => c[`target.h${h}`] ?? null);
    return { ...c, input: multiHeadInput(c), trainOptions: options };
  });
}

// Bias cases (torch's nn.MultiheadAttention(bias=True), tests/make_bias_fixtures.py): `input`
// as above with each head's bq, bk, bv and bo (arrays of numbers) where the case has them, and
// `state`, the same as a page state (schema.js); training cases (option steps) also
// `trainOptions` (every matrix, its bias with it). Results by the file's names (h0.q, h0.weights,
// output, G, d.h0.bq, final.bo, …; vectors as 1 × n matrices).
export const BIAS_FIXTURE_FILE = new URL('../fixtures/bias_cases.txt', import.meta.url);
export function loadBiasCases() {
  return loadCases(BIAS_FIXTURE_FILE).map((c) => {
    const input = multiHeadInput(c);
    input.heads.forEach((head, h) => {
      for (const b of ['bq', 'bk', 'bv']) if (c[`h${h}.${b}`]) head[b] = c[`h${h}.${b}`][0];
    });
    if (c.bo) input.bo = c.bo[0];
    const state = {
      version: 1,
      tokens: c.x.map((_, i) => `t${i + 1}`),
      x: input.x,
      heads: input.heads,
      ...(input.wo ? { wo: input.wo } : {}),
      ...(input.bo ? { bo: input.bo } : {}),
      ...(input.context ? { context: { tokens: input.context.map((_, i) => `k${i + 1}`), x: input.context } } : {}),
      causal: input.causal,
      ...(input.keyPadding ? { keyPadding: input.keyPadding } : {}),
    };
    const out = { ...c, input, state };
    if (c.options.steps !== undefined) {
      out.trainOptions = {
        loss: 'output', target: c.target, train: ['wq', 'wk', 'wv', 'wo'], optimizer: c.options.optimizer === 1 ? 'adam' : 'sgd',
        learningRate: c.options.learningRate, steps: c.options.steps,
      };
    }
    return out;
  });
}

// Model cases (torch, tests/make_model_fixtures.py): `model`, the argument of engine.runModel()
// in the format of docs/api.md, `ids` and `targets`, next to torch's results by the file's names
// (residual.<l>, L<l>.h<h>.weights, logits, grad.<parameter>, …); training cases also
// `trainOptions` (engine.trainModel()'s second argument), trainLosses and final.<parameter>.
export const MODEL_FIXTURE_FILE = new URL('../fixtures/model_cases.txt', import.meta.url);
export function loadModelCases() {
  return loadCases(MODEL_FIXTURE_FILE).map((c) => {
    const o = c.options;
    const ids = (name) => c[name][0];
    const out = { ...c, model: modelOf(c), ids: ids('ids'), targets: ids('targets') };
    if (o['train.optimizer'] !== undefined) {
      out.trainOptions = {
        optimizer: o['train.optimizer'] === 1 ? 'adam' : 'sgd',
        learningRate: o['train.learningRate'],
        batches: Array.from({ length: o['train.batches'] }, (_, b) => ({ ids: ids(`batch${b}.ids`), targets: ids(`batch${b}.targets`) })),
      };
    }
    return out;
  });
}

// A model case's parameters (under `prefix`: '', 'grad.' or 'final.') in the model format;
// vectors (1 × n in the file) as arrays of numbers.
export function modelOf(c, prefix = '') {
  const o = c.options;
  const get = (name) => c[prefix + name];
  const vector = (name) => (c[prefix + name] === undefined ? undefined : c[prefix + name][0]);
  const norm = (name) => ({ gain: vector(`${name}.gain`), bias: vector(`${name}.bias`) });
  const withOptional = (object, entries) => {
    for (const [key, value] of entries) if (value !== undefined) object[key] = value;
    return object;
  };
  const model = {
    name: c.name,
    vocab: Array.from({ length: o.vocab }, (_, i) => `t${i}`),
    dModel: o.dModel,
    maxTokens: o.maxTokens,
    causal: o.causal === 1,
    embed: get('embed'),
    positions: o.sinusoidal === 1 ? 'sinusoidal' : get('positions'),
    layers: Array.from({ length: o.layers }, (_, l) => {
      const p = `L${l}.`;
      const layer = {};
      if (o[`${p}norm1`] === 1) layer.norm1 = norm(`${p}norm1`);
      layer.heads = Array.from({ length: o[`${p}heads`] }, (_, h) => {
        const hp = `${p}h${h}.`;
        return withOptional({ wq: get(`${hp}wq`), wk: get(`${hp}wk`), wv: get(`${hp}wv`) },
          ['bq', 'bk', 'bv'].map((b) => [b, vector(hp + b)]));
      });
      layer.wo = get(`${p}wo`);
      withOptional(layer, [['bo', vector(`${p}bo`)]]);
      if (o[`${p}mlp`] === 1) {
        if (o[`${p}norm2`] === 1) layer.norm2 = norm(`${p}norm2`);
        layer.mlp = withOptional({ w1: get(`${p}mlp.w1`), w2: get(`${p}mlp.w2`), activation: o[`${p}activation`] === 1 ? 'relu' : 'gelu' },
          [['b1', vector(`${p}mlp.b1`)], ['b2', vector(`${p}mlp.b2`)]]);
      }
      return layer;
    }),
    unembed: o.tied === 1 ? 'tied' : get('unembed'),
  };
  if (o.finalNorm === 1) model.finalNorm = norm('finalNorm');
  withOptional(model, [['unembedBias', vector('unembedBias')]]);
  return model;
}

// A fixture case's inputs as the argument of engine.compute() in the multi-head form
// (heads: [{ wq, wk, wv }], wo, context, keyPadding and the options).
function multiHeadInput(c) {
  const heads = [];
  for (let h = 0; h < c.options.heads; h++) {
    heads.push({ wq: c[`h${h}.wq`], wk: c[`h${h}.wk`], wv: c[`h${h}.wv`] });
  }
  const input = {
    x: c.x,
    heads,
    causal: c.options.causal === 1,
    scaleBySqrtDk: c.options.scale === 1,
    temperature: c.options.temperature,
    positionalEncoding: c.options.pe === 1,
    ...(c.options.alibi === 1 ? { alibi: true } : {}), // the ALiBi cases only
  };
  if (c.wo) input.wo = c.wo;
  if (c.context) input.context = c.context;
  if (c.keyPadding) input.keyPadding = c.keyPadding[0].map((p) => p === 1);
  return input;
}

// The agreement measure of issue 16: max over cells of |a − b| / max(1, |b|).
export function relativeDiff(a, b) {
  if (a.length !== b.length) throw new Error(`rows differ: ${a.length} vs ${b.length}`);
  let d = 0;
  a.forEach((row, i) => {
    if (row.length !== b[i].length) throw new Error(`row ${i} lengths differ`);
    row.forEach((v, j) => {
      d = Math.max(d, Math.abs(v - b[i][j]) / Math.max(1, Math.abs(b[i][j])));
    });
  });
  return d;
}

// The worked example of tests/REFERENCE.md: inputs and what numpy really prints.
export const TUTORIAL = {
  x: [[1.0, 0.0], [0.5, 0.5], [0.0, 1.0]],
  wq: [[0.5, 0.2], [0.1, 0.6]],
  wk: [[0.4, 0.3], [0.2, 0.7]],
  wv: [[0.8, 0.1], [0.3, 0.9]],
};

export const TUTORIAL_EXPECTED = {
  q: [[0.5, 0.2], [0.3, 0.4], [0.1, 0.6]],
  k: [[0.4, 0.3], [0.30000000000000004, 0.5], [0.2, 0.7]],
  v: [[0.8, 0.1], [0.55, 0.5], [0.3, 0.9]],
  scores: [
    [0.26, 0.25, 0.24],
    [0.24, 0.29000000000000004, 0.33999999999999997],
    [0.22, 0.33, 0.44],
  ],
  scaled: [
    [0.18384776310850234, 0.17677669529663687, 0.1697056274847714],
    [0.1697056274847714, 0.2050609665440988, 0.2404163056034261],
    [0.15556349186104046, 0.2333452377915607, 0.3111269837220809],
  ],
  weights: [
    [0.3356931140387022, 0.3333277778472214, 0.33097910811407644],
    [0.3216200976300485, 0.33319448783456673, 0.3451854145353847],
    [0.30776779723570424, 0.3326621264139182, 0.3595700763503775],
  ],
  output: [
    [0.5511785014811565, 0.49811439763014975],
    [0.544108670773666, 0.5094261267621345],
    [0.5370494302213317, 0.5207209116458693],
  ],
};

// Largest |a - b| over two matrices; fails on different shapes. Equal entries count as 0,
// so -Infinity (a masked score) matches -Infinity.
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) throw new Error(`rows differ: ${a.length} vs ${b.length}`);
  let d = 0;
  a.forEach((row, i) => {
    if (row.length !== b[i].length) throw new Error(`row ${i} lengths differ`);
    row.forEach((v, j) => {
      if (v !== b[i][j]) d = Math.max(d, Math.abs(v - b[i][j]));
    });
  });
  return d;
}

// Largest finite |value| of a matrix.
export function maxAbs(m) {
  return Math.max(...m.map((row) => Math.max(...row.filter(Number.isFinite).map(Math.abs))));
}

// The built engine script, loaded as node loads it (module.exports is the factory).
export const ENGINE_FILE = new URL('../../dist/attention-engine.js', import.meta.url);
export function createAttentionEngine() {
  return createRequire(import.meta.url)(ENGINE_FILE.pathname)(); // loaded on first use only
}

export const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];

// The worked example's true values under the page's matrix names (Q, K, V, Scores, …).
export const REFERENCE = Object.fromEntries(
  RESULTS.map((name) => [name.length === 1 ? name.toUpperCase() : name[0].toUpperCase() + name.slice(1), TUTORIAL_EXPECTED[name]]),
);

// Every step of a single-head result equals tests/REFERENCE.md's worked example to 1e-12.
export function assertTutorial(result) {
  for (const name of RESULTS) {
    const diff = maxAbsDiff(result[name], TUTORIAL_EXPECTED[name]);
    assert.ok(diff <= 1e-12, `${name}: max |engine - reference| = ${diff}`);
  }
}

// fn() throws a real Error (not a number) with exactly these message and properties.
export function assertInputError(fn, expected) {
  assert.throws(fn, (err) => {
    assert.ok(err instanceof Error, 'a real Error, not a number');
    for (const [key, value] of Object.entries(expected)) assert.equal(err[key], value, key);
    return true;
  });
}

// The page's numpy script (io/export.js numpyScript) run by Debian's python3; its output: a name line, then rows of repr() floats.
export function runScript(state) {
  const text = execFileSync('/usr/bin/python3', ['-'], { input: numpyScript(state), encoding: 'utf8' });
  const blocks = {};
  let current = null;
  for (const line of text.trim().split('\n')) {
    if (/^[-+\d.einf\s]+$/.test(line) && current) blocks[current].push(line.trim().split(' ').map((v) => (v === '-inf' ? -Infinity : Number(v))));
    else blocks[current = line] = [];
  }
  return blocks;
}
