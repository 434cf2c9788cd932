// engine.runModel(), modelGradients() and trainModel() of the JS API (dist/attention-engine.js)
// under node: every intermediate, the gradients and Adam/SGD steps against PyTorch
// (tests/fixtures/model_cases.txt, tests/make_model_fixtures.py), the typed and reuse forms, a
// head switched off, the format's errors with their paths, inputs left untouched and wasm memory
// that does not grow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertInputError, createAttentionEngine, loadModelCases, modelOf } from './fixtures.mjs';

const engine = await createAttentionEngine();
const cases = loadModelCases();
const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];

// max |a − b| / max(1, |b|) over two matrices (arrays of rows) or vectors; −∞ matches −∞
function diff(a, b) {
  const rowsA = Array.isArray(a[0]) ? a : [a];
  const rowsB = Array.isArray(b[0]) ? b : [b];
  assert.equal(rowsA.length, rowsB.length, 'rows');
  let d = 0;
  rowsB.forEach((row, i) => {
    assert.equal(rowsA[i].length, row.length, `row ${i}`);
    row.forEach((v, j) => {
      const x = rowsA[i][j];
      if (x === v) return;
      d = Math.max(d, Math.abs(x - v) / Math.max(1, Math.abs(v)));
    });
  });
  return d;
}

// Every array of `want` (a model's structure, as modelOf() builds it) against `got`, and no
// array in `got` that `want` does not have.
function compareArrays(got, want, tolerance, path = '') {
  const isNumbers = (v) => Array.isArray(v) && (typeof v[0] === 'number' || Array.isArray(v[0]));
  for (const [key, value] of Object.entries(want)) {
    if (key === 'vocab' || (typeof value !== 'object' && !Array.isArray(value))) continue;
    const where = `${path}${key}`;
    assert.ok(got[key] !== undefined, `${where} is missing`);
    if (isNumbers(value)) {
      const d = diff(got[key], value);
      assert.ok(d <= tolerance, `${where}: ${d}`);
    } else if (Array.isArray(value)) {
      assert.equal(got[key].length, value.length, where);
      value.forEach((v, i) => compareArrays(got[key][i], v, tolerance, `${where}[${i}].`));
    } else {
      compareArrays(got[key], value, tolerance, `${where}.`);
    }
  }
  for (const [key, value] of Object.entries(got)) {
    if (typeof value !== 'object' || key === 'vocab') continue; // not an array of parameters
    assert.ok(want[key] !== undefined && typeof want[key] === 'object', `${path}${key} is not in the model`);
  }
}

test('runModel gives every intermediate of PyTorch within 1e-12', () => {
  assert.ok(cases.length >= 14);
  for (const c of cases) {
    const r = engine.runModel(c.model, c.ids);
    const check = (got, name) => {
      const d = diff(got, c[name]);
      assert.ok(d <= 1e-12, `${c.name} ${name}: ${d}`);
    };
    assert.equal(r.residual.length, c.model.layers.length + 1);
    r.residual.forEach((x, l) => check(x, `residual.${l}`));
    r.layers.forEach((layer, l) => {
      const p = `L${l}.`;
      check(layer.input, `${p}input`);
      layer.attention.heads.forEach((head, h) => {
        for (const name of RESULTS) check(head[name], `${p}h${h}.${name}`);
      });
      check(layer.attention.concat, `${p}concat`);
      check(layer.attention.output, `${p}attention`);
      assert.equal(layer.mlp !== undefined, c.model.layers[l].mlp !== undefined);
      if (layer.mlp) for (const name of ['input', 'hidden', 'activated', 'output']) check(layer.mlp[name], `${p}mlp.${name}`);
    });
    check(r.finalInput, 'finalInput');
    check(r.logits, 'logits');
    check(r.probabilities, 'probabilities');
  }
});

test('runModel typed and reuse forms hold the same numbers', () => {
  const c = cases[4];
  const rows = engine.runModel(c.model, c.ids);
  const typed = engine.runModel(c.model, c.ids, { typed: true });
  const { rows: n, cols, data } = typed.layers[1].attention.heads[1].weights;
  assert.ok(data instanceof Float64Array);
  assert.deepEqual(Array.from({ length: n }, (_, i) => Array.from(data.subarray(i * cols, (i + 1) * cols))), rows.layers[1].attention.heads[1].weights);
  const views = engine.runModel(c.model, c.ids, { typed: true, reuse: true });
  assert.deepEqual(Array.from(views.logits.data), Array.from(typed.logits.data));
});

// Issue 35: a 4-layer runModel spent much of its time handing ~150 matrices out of wasm one by
// one; they cross as one block now, each typed matrix a view of its own range of one buffer.
test('runModel hands its matrices over as one block: typed views of one buffer, none overlapping', () => {
  const c = cases.find((k) => k.model.layers.length >= 2 && k.model.layers.some((l) => l.mlp));
  const matrices = (run) => {
    const out = [...run.residual];
    for (const layer of run.layers) {
      out.push(layer.input, ...layer.attention.heads.flatMap((head) => RESULTS.map((name) => head[name])), layer.attention.concat, layer.attention.output);
      if (layer.mlp) out.push(layer.mlp.input, layer.mlp.hidden, layer.mlp.activated, layer.mlp.output);
    }
    return [...out, run.finalInput, run.logits, run.probabilities];
  };
  for (const format of [{ typed: true }, { typed: true, reuse: true }]) {
    const all = matrices(engine.runModel(c.model, c.ids, format));
    const buffer = all[0].data.buffer;
    assert.ok(all.every(({ rows, cols, data }) => data.buffer === buffer && data.length === rows * cols), JSON.stringify(format));
    // the copy is its own buffer (the values alone); the views are of wasm memory
    const total = all.reduce((sum, { data }) => sum + data.length, 0);
    assert.equal(buffer.byteLength === total * 8, !format.reuse);
    const ranges = all.map(({ data }) => [data.byteOffset, data.byteOffset + data.byteLength]).sort((a, b) => a[0] - b[0]);
    ranges.slice(1).forEach(([from], i) => assert.ok(from >= ranges[i][1], 'two matrices share values'));
  }
});

test('a head switched off enters its layer as 0', () => {
  const c = cases[1]; // one layer, two heads
  assert.equal(c.model.layers[0].heads.length, 2);
  const on = engine.runModel(c.model, c.ids);
  const off = engine.runModel(c.model, c.ids, { headsOff: [{ layer: 0, head: 1 }] });
  const dv = c.model.layers[0].heads[0].wv[0].length;
  off.layers[0].attention.concat.forEach((row, i) => {
    assert.deepEqual(row.slice(0, dv), on.layers[0].attention.concat[i].slice(0, dv));
    assert.ok(row.slice(dv).every((v) => v === 0));
  });
  assert.notDeepEqual(off.logits, on.logits);
  // the head itself is still computed and shown
  assert.deepEqual(off.layers[0].attention.heads[1], on.layers[0].attention.heads[1]);
  assertInputError(() => engine.runModel(c.model, c.ids, { headsOff: [{ layer: 0, head: 2 }] }), { code: 'range', layer: 0 });
});

test('modelGradients gives autograd\'s loss and gradients within 1e-9', () => {
  for (const c of cases) {
    const { loss, gradients } = engine.modelGradients(c.model, c.ids, c.targets);
    assert.ok(Math.abs(loss - c.loss[0][0]) <= 1e-12, `${c.name} loss`);
    compareArrays(gradients, modelOf(c, 'grad.'), 1e-9, `${c.name} `);
  }
});

test('trainModel takes torch.optim\'s Adam and SGD steps within 1e-9, leaving its input as it was', () => {
  const trained = cases.filter((c) => c.trainOptions);
  assert.ok(trained.some((c) => c.trainOptions.optimizer === 'adam') && trained.some((c) => c.trainOptions.optimizer === 'sgd'));
  for (const c of trained) {
    const before = JSON.stringify(c.model);
    const r = engine.trainModel(c.model, c.trainOptions);
    assert.equal(JSON.stringify(c.model), before, 'the input model is not modified');
    assert.ok(diff(r.losses, c.trainLosses[0]) <= 1e-9, `${c.name} losses`);
    compareArrays(r.model, modelOf(c, 'final.'), 1e-9, `${c.name} `);
    // what is not a parameter is the input's: metadata, vocab, options
    assert.equal(r.model.name, c.model.name);
    assert.equal(r.model.vocab, c.model.vocab);
    assert.equal(r.model.layers[0].mlp?.activation, c.model.layers[0].mlp?.activation);
    // steps on one batch lower its loss, and the trained model runs
    const first = c.trainOptions.batches[0];
    const again = engine.trainModel(r.model, { ...c.trainOptions, batches: [first, first, first] });
    assert.ok(again.losses[2] < again.losses[0], `${c.name}: ${again.losses}`);
    assert.ok(engine.modelGradients(again.model, first.ids, first.targets).loss < again.losses[0]);
  }
});

test('trainModel in chunks, its state carried, is one call of all the batches, bit for bit (Adam does not restart)', () => {
  const trained = cases.filter((c) => c.trainOptions && c.trainOptions.batches.length >= 2);
  assert.ok(trained.some((c) => c.trainOptions.optimizer === 'adam') && trained.some((c) => c.trainOptions.optimizer === 'sgd'));
  for (const c of trained) {
    const { batches } = c.trainOptions;
    const one = engine.trainModel(c.model, c.trainOptions);
    assert.equal(one.state.optimizer, c.trainOptions.optimizer);
    assert.equal(one.state.step, batches.length);
    assert.ok(one.state.moments instanceof Float64Array);
    // in chunks of 1, 2, … batches; the model object, and a loaded model, carried along
    for (const size of [1, 2]) {
      let model = c.model;
      let loaded = engine.loadModel(c.model);
      let state;
      let loadedState;
      const losses = [];
      for (let at = 0; at < batches.length; at += size) {
        const chunk = { ...c.trainOptions, batches: batches.slice(at, at + size) };
        const r = engine.trainModel(model, { ...chunk, state });
        const rl = engine.trainModel(loaded, { ...chunk, state: loadedState });
        loaded.release();
        ({ model, state } = r);
        ({ model: loaded, state: loadedState } = rl);
        losses.push(...r.losses);
        assert.deepEqual(rl.losses, r.losses);
      }
      assert.deepEqual(losses, one.losses, `${c.name}, chunks of ${size}: losses`);
      assert.deepEqual(model, one.model, `${c.name}, chunks of ${size}: parameters`);
      assert.deepEqual(loaded.toModel(), one.model, `${c.name}, chunks of ${size}, loaded`);
      assert.deepEqual(state, one.state, `${c.name}, chunks of ${size}: state`);
      assert.deepEqual(loadedState, one.state);
      loaded.release();
    }
  }
});

test('trainModel refuses a state that is not of this model and optimizer, with code and operand', () => {
  const c = cases.find((x) => x.trainOptions && x.trainOptions.optimizer === 'adam');
  const { state } = engine.trainModel(c.model, c.trainOptions);
  const other = cases.find((x) => x !== c && x.trainOptions && x.trainOptions.optimizer === 'adam' && x.model.dModel !== c.model.dModel);
  const againOther = (s) => () => engine.trainModel(other.model, { ...other.trainOptions, state: s });
  const again = (s, optimizer = 'adam') => () => engine.trainModel(c.model, { ...c.trainOptions, optimizer, state: s });
  const half = state.moments.length / 2;
  assertInputError(againOther(state), {
    code: 'shape',
    operand: 'state',
    message: `the state's moments do not fit: they hold ${state.moments.length} values but ${engine.trainModel(other.model, other.trainOptions).state.moments.length} are needed for this model's parameters with this optimizer (pass the state of a trainModel call on a model of the same shapes with the same optimizer)`,
  });
  assertInputError(again(state, 'sgd'), {
    code: 'conflict',
    operand: 'state',
    message: 'state comes from training with the string "adam", not "sgd": pass the state of a call with the same optimizer',
  });
  assertInputError(again({ ...state, moments: Array.from(state.moments) }), { code: 'not_array', operand: 'state' });
  assertInputError(again({ ...state, step: -1 }), { code: 'range', operand: 'state' });
  assertInputError(again({ ...state, extra: 1 }), { code: 'unknown_option', operand: 'extra' });
  const negative = Float64Array.from(state.moments, (m, i) => (i === half ? -1 : m));
  assertInputError(again({ ...state, moments: negative }), { code: 'range', operand: 'state', message: "the state's second moments must be >= 0 (squares of gradients)" });
  const nan = Float64Array.from(state.moments, (m, i) => (i === 0 ? NaN : m));
  assertInputError(again({ ...state, moments: nan }), { code: 'not_finite', operand: 'state' });
  // and the engine goes on: the good state still works
  assert.equal(engine.trainModel(c.model, { ...c.trainOptions, state }).state.step, 2 * c.trainOptions.batches.length);
});

test('a model\'s errors name the array by its path, with code, layer and head', () => {
  const c = cases[4]; // two layers, two heads
  const { model, ids } = c;
  const d = model.dModel;
  const withLayer = (l, change) => ({ ...model, layers: model.layers.map((layer, i) => (i === l ? change(layer) : layer)) });
  const tall = Array.from({ length: d + 1 }, () => model.layers[1].heads[0].wq[0]);
  assertInputError(() => engine.runModel(withLayer(1, (layer) => ({ ...layer, heads: [{ ...layer.heads[0], wq: tall }, layer.heads[1]] })), ids), {
    code: 'shape', path: 'layers[1].heads[0].wq', operand: 'wq', layer: 1, head: 0,
    message: `layers[1].heads[0].wq has ${d + 1} rows but dModel is ${d}`,
  });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, wo: [layer.wo[0]] })), ids), { code: 'shape', path: 'layers[0].wo', layer: 0, head: undefined });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, heads: [{ ...layer.heads[0], wk: [[1, 'x']] }, layer.heads[1]] })), ids), {
    code: 'not_number', path: 'layers[0].heads[0].wk', layer: 0, head: 0, row: 0, column: 1,
  });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, heads: [{ ...layer.heads[0], wv: [[NaN]] }, layer.heads[1]] })), ids), {
    code: 'not_finite', path: 'layers[0].heads[0].wv', layer: 0, head: 0, row: 0, column: 0,
  });
  assertInputError(() => engine.runModel(withLayer(1, (layer) => ({ ...layer, heads: [layer.heads[0], { ...layer.heads[1], wq: [[1, 2], [3]] }] })), ids), {
    code: 'ragged', path: 'layers[1].heads[1].wq', layer: 1, head: 1, row: 1,
  });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, heads: [] })), ids), { code: 'empty', path: 'layers[0].heads', layer: 0 });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, mlp: { w1: [[1]], w2: [[1]], activation: 'tanh' } })), ids), {
    code: 'choice', path: 'layers[0].mlp.activation', layer: 0,
  });
  assertInputError(() => engine.runModel(withLayer(0, (layer) => ({ ...layer, dropout: 0.1 })), ids), { code: 'unknown_option', path: 'layers[0].dropout', layer: 0 });
  assertInputError(() => engine.runModel({ ...model, temperature: 2 }, ids), { code: 'unknown_option', path: 'temperature' });
  assertInputError(() => engine.runModel({ ...model, dModel: 2.5 }, ids), { code: 'range', path: 'dModel' });
  assertInputError(() => engine.runModel({ ...model, embed: model.embed.slice(1) }, ids), { code: 'shape', path: 'embed' });
  assertInputError(() => engine.runModel({ ...model, unembedBias: [1] }, ids), { code: 'shape', path: 'unembedBias' });
  assertInputError(() => engine.runModel(model, [0, model.vocab.length]), { code: 'range', path: 'ids', column: 1 });
  assertInputError(() => engine.runModel(model, [0.5]), { code: 'range', path: 'ids', column: 0 });
  assertInputError(() => engine.runModel(model, Array(model.maxTokens + 1).fill(0)), { code: 'limit', path: 'ids' });
  assertInputError(() => engine.runModel(model, []), { code: 'empty', path: 'ids' });
  assertInputError(() => engine.runModel({ ...model, maxTokens: 5000 }, ids), { code: 'limit', path: 'maxTokens' });
  // 64 heads × 4096² attention cells: refused before anything is computed
  const wide = {
    vocab: ['a'], dModel: 1, maxTokens: 4096, embed: [[0.5]], positions: 'sinusoidal', unembed: 'tied',
    layers: [{ heads: Array.from({ length: 64 }, () => ({ wq: [[1]], wk: [[1]], wv: [[1]] })), wo: Array.from({ length: 64 }, () => [1]) }],
  };
  assertInputError(() => engine.runModel(wide, Array(4096).fill(0)), { code: 'limit', path: 'ids' });
  assert.equal(engine.runModel(wide, [0, 0]).logits.length, 2);
  assertInputError(() => engine.modelGradients(model, ids, ids.slice(1)), { code: 'shape', path: 'targets' });
  assertInputError(() => engine.modelGradients(model, ids, ids.map(() => -1)), { code: 'empty', path: 'targets' });
  assertInputError(() => engine.trainModel(model, { batches: [{ ids, targets: ids }], optimizer: 'lbfgs', learningRate: 0.1 }), { code: 'choice', operand: 'optimizer' });
  assertInputError(() => engine.trainModel(model, { batches: [{ ids, targets: [99, ...ids.slice(1)] }], learningRate: 0.1 }), { code: 'range', path: 'batches[0].targets', column: 0 });
  assertInputError(() => engine.trainModel(model, { batches: [{ ids, targets: ids }], learningRate: -1 }), { code: 'range', path: 'learningRate' });
  // metadata fields are the author's own; the engine works after every error
  const r = engine.runModel({ ...model, title: { en: 'A model', zh: '一个模型' }, tokenizer: 'words' }, ids);
  assert.equal(r.logits.length, ids.length);
});

test('runModel and trainModel many times do not grow wasm memory', () => {
  const c = cases.find((x) => x.trainOptions);
  engine.runModel(c.model, c.ids);
  engine.trainModel(c.model, c.trainOptions);
  const bytes = engine.memoryBytes();
  for (let i = 0; i < 30; i++) {
    engine.runModel(c.model, c.ids);
    engine.modelGradients(c.model, c.ids, c.targets);
    engine.trainModel(c.model, c.trainOptions);
  }
  assert.equal(engine.memoryBytes(), bytes);
});

test('trainModel with more than 10000 batches says how many it was given, not 10001', () => {
  const { model, ids } = cases[0];
  const batches = Array.from({ length: 12345 }, () => ({ ids, targets: ids }));
  assertInputError(() => engine.trainModel(model, { batches, learningRate: 0.1 }), {
    code: 'limit',
    path: 'batches',
    message: 'the number of batches is 12345, more than the 10000 supported: train in several calls',
  });
  assert.equal(engine.trainModel(model, { batches: batches.slice(0, 1), learningRate: 0.1 }).losses.length, 1);
});

test('a model with more than 64 layers or heads says how many it has, not 65', () => {
  const head = () => ({ wq: [[1]], wk: [[1]], wv: [[1]] });
  const layer = (heads) => ({ heads: Array.from({ length: heads }, head), wo: Array.from({ length: heads }, () => [1]) });
  const model = (layers) => ({ vocab: ['a'], dModel: 1, maxTokens: 2, embed: [[0.5]], positions: 'sinusoidal', unembed: 'tied', layers });
  assertInputError(() => engine.runModel(model(Array.from({ length: 70 }, () => layer(1))), [0]), {
    code: 'limit',
    path: 'layers',
    message: 'the number of layers is 70, more than the 64 supported: use fewer layers',
  });
  assertInputError(() => engine.runModel(model([layer(1), layer(70)]), [0]), {
    code: 'limit',
    path: 'layers[1].heads',
    layer: 1,
    message: 'the number of heads of layers[1] is 70, more than the 64 supported: use fewer heads',
  });
  assert.equal(engine.runModel(model([layer(64)]), [0]).logits.length, 1);
});
