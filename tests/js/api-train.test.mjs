// engine.train() of the JS API (dist/attention-engine.js) under node: SGD and Adam against
// torch.optim (tests/fixtures/training_cases.txt, tests/make_grad_fixtures.py), a goal that
// training reaches, steps split over calls with the state, the native build's bits, every bad
// option, inputs left untouched and wasm memory that does not grow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { TUTORIAL, assertInputError, createAttentionEngine, loadTrainingCases, relativeDiff } from './fixtures.mjs';

const engine = await createAttentionEngine();
const cases = loadTrainingCases();

// torch's final.<name> of a trained matrix, and where the engine's result keeps it
function finals(c, trained) {
  const out = [];
  for (const key of Object.keys(c).filter((k) => k.startsWith('final.'))) {
    const name = key.slice(6); // x, context, wo, h<i>.wq …
    const m = /^h(\d+)\.(\w+)$/.exec(name);
    out.push([key, c[key], m ? trained.heads[Number(m[1])][m[2]] : trained[name]]);
  }
  return out;
}

test('SGD and Adam steps agree with torch.optim within 1e-8, both input forms', (t) => {
  assert.ok(cases.length >= 6);
  let worst = 0;
  for (const c of cases) {
    const r = engine.train(c.input, c.trainOptions);
    assert.deepEqual(Object.keys(r).sort(), ['input', 'losses', 'state']);
    assert.equal(r.losses.length, c.trainOptions.steps + 1);
    worst = Math.max(worst, relativeDiff([r.losses], c.losses));
    assert.ok(relativeDiff([r.losses], c.losses) <= 1e-8, `${c.name} losses`);
    const trainedFinals = finals(c, r.input);
    assert.ok(trainedFinals.length > 0);
    for (const [key, want, got] of trainedFinals) {
      const diff = relativeDiff(got, want);
      worst = Math.max(worst, diff);
      assert.ok(diff <= 1e-8, `${c.name} ${key}: ${diff}`);
    }
    // what is not trained is the caller's own matrix, untouched
    if (!c.trainOptions.train.includes('wv')) assert.equal(r.input.heads[0].wv, c.input.heads[0].wv);
    assert.equal(r.input.causal, c.input.causal);

    if (c.options.heads === 1 && !c.wo) { // the one-head form: target is one matrix
      const { heads, ...rest } = c.input;
      const options = { ...c.trainOptions };
      if (options.loss === 'weights') options.target = options.target[0];
      const one = engine.train({ ...rest, ...heads[0] }, options);
      assert.deepEqual(one.losses, r.losses, c.name);
      for (const name of ['wq', 'wk', 'wv']) assert.deepEqual(one.input[name], r.input.heads[0][name]);
      assert.equal(one.input.heads, undefined);
    }
  }
  t.diagnostic(`worst |engine - torch| / max(1, |torch|): ${worst.toExponential(2)}`);
});

// "each token attends to the one before it" (token 0 to itself), on the tutorial, causal
const shift = [[1, 0, 0], [1, 0, 0], [0, 1, 0]];
const goal = { loss: 'weights', target: shift, train: ['wq', 'wk'], optimizer: 'adam', learningRate: 0.05 };

test('the same call gives the bits of the native build (tests/cpp/test_training.cpp)', () => {
  const r = engine.train({ ...TUTORIAL, causal: true }, { ...goal, steps: 5 });
  const values = [...r.losses, ...r.input.wq.flat(), ...r.input.wk.flat(), ...r.state.moments.subarray(8)];
  const bits = Array.from(new BigUint64Array(Float64Array.from(values).buffer), (b) => `0x${b.toString(16).padStart(16, '0')}`);
  assert.deepEqual(bits, [
    // losses before the first step and after each step
    '0x3fe352e6804c7209', '0x3fe31e56070b7f32', '0x3fe2ed32231d9272', '0x3fe2bf4c6f7f5f55',
    '0x3fe29432329a6618', '0x3fe26b3acafa60e5',
    // W_Q, W_K after 5 steps
    '0x3fe7f2b5dd8dbe79', '0xbf9a9e3742111230', '0x3fd66903cb12e1c0', '0x3fd83bf0c2534c79',
    '0x3fe4d5ac6a35c126', '0x3fe14563abf3f2fd', '0xbfaa27937028df35', '0x3fdd7538a8181a06',
    // Adam's second moments
    '0x3ea88a9a7a1c9666', '0x3e91b417d52f8b82', '0x3ea5e159b19d3015', '0x3e974559e4489670',
    '0x3ec63de2f0074557', '0x3ebf26b6740e0644', '0x3ec63de2f007455a', '0x3ebf26b6740e0649',
  ]);
});

test('training reaches the goal: each token attends to the one before it', () => {
  // with X trained too, Adam at 0.05 reaches it within 100 steps
  const r = engine.train({ ...TUTORIAL, causal: true }, { ...goal, train: ['x', 'wq', 'wk'], steps: 100 });
  assert.ok(r.losses[0] > 0.6, `starts at ${r.losses[0]}`);
  assert.ok(r.losses[100] < 1e-3, `cross-entropy after 100 steps: ${r.losses[100]}`);
  const { weights } = engine.compute(r.input);
  assert.ok(weights[1][0] > 0.999 && weights[2][1] > 0.999, JSON.stringify(weights));
  // W_Q and W_K alone cannot: 爱's vector is the mean of 我's and 你's, so its key's score is the
  // mean of theirs, e^s₁ ≤ (e^s₀ + e^s₂) / 2, and 你's weight on 爱 is at most 1/3: the loss
  // (a mean over 3 rows) stays at or above ln(3) / 3, which Adam approaches
  const w = engine.train({ ...TUTORIAL, causal: true }, { ...goal, steps: 400 });
  assert.ok(w.losses[400] >= Math.log(3) / 3 - 1e-12, `${w.losses[400]}`);
  assert.ok(w.losses[400] < Math.log(3) / 3 + 1e-3, `${w.losses[400]}`);
});

test('steps split over calls, passing the state, give the same bits as one call', () => {
  for (const c of cases) {
    const whole = engine.train(c.input, c.trainOptions);
    const first = engine.train(c.input, { ...c.trainOptions, steps: 4 });
    assert.equal(first.state.step, 4);
    const rest = engine.train(first.input, { ...c.trainOptions, steps: c.trainOptions.steps - 4, state: first.state });
    assert.deepEqual(rest.input, whole.input, c.name);
    assert.deepEqual([...first.losses.slice(0, 4), ...rest.losses], whole.losses, c.name);
    assert.deepEqual(rest.state, whole.state, c.name);
  }
});

test('every bad option throws an Error with its code; the engine goes on', () => {
  const input = { ...TUTORIAL, causal: true };
  const good = { ...goal, steps: 2 };
  const expectGood = () => assert.equal(engine.train(input, good).losses.length, 3);
  const { state } = engine.train(input, good);
  const bad = [
    [undefined, { code: 'not_object', message: "train()'s second argument must be an object { loss, target, train, learningRate, … }, got undefined undefined" }],
    [{ ...good, steps: 2, stpes: 3 }, { code: 'unknown_option', operand: 'stpes' }],
    [{ ...good, loss: 'mse' }, { code: 'choice', operand: 'loss', message: 'loss must be one of "output", "weights", got the string "mse"' }],
    [{ ...good, target: undefined }, { code: 'not_matrix', operand: 'target' }],
    [{ ...good, target: [[1, 0, 0], [1, 0]] }, { code: 'ragged', operand: 'target', row: 1 }],
    [{ ...good, target: [[1, 0], [1, 0], [1, 0]] }, { code: 'shape', operand: 'target', message: "target is 3 × 2 but must be 3 × 3 (the weights' shape, n_q × n_k)" }],
    [{ ...good, target: [[1, 0, 0], [1, -1, 0], [0, 1, 0]] }, { code: 'range', operand: 'target', row: 1, column: 1 }],
    [{ ...good, target: [[1, 0, 0], [1, NaN, 0], [0, 1, 0]] }, { code: 'not_finite', operand: 'target', row: 1, column: 1 }],
    [{ ...good, loss: 'output', target: [[1, 0], [1, 0]] }, { code: 'shape', operand: 'target' }],
    [{ ...good, train: 'wq' }, { code: 'not_array', operand: 'train' }],
    [{ ...good, train: [] }, { code: 'empty', operand: 'train' }],
    [{ ...good, train: ['wq', 'WK'] }, { code: 'choice', operand: 'train', column: 1, message: 'train[1] is the string "WK": it must be one of x, context, wq, wk, wv, wo' }],
    [{ ...good, train: ['wo'] }, { code: 'conflict', operand: 'train', message: 'train names wo but the input has no wo' }],
    [{ ...good, optimizer: 'Adam' }, { code: 'choice', operand: 'optimizer' }],
    [{ ...good, learningRate: '0.1' }, { code: 'not_number', operand: 'learningRate' }],
    [{ ...good, learningRate: -1 }, { code: 'range', operand: 'learningRate', message: 'learningRate is -1: it must be > 0' }],
    [{ ...good, learningRate: Infinity }, { code: 'not_finite', operand: 'learningRate' }],
    [{ ...good, steps: 1.5 }, { code: 'range', operand: 'steps', message: 'steps is 1.5: it must be a whole number' }],
    [{ ...good, steps: 0 }, { code: 'range', operand: 'steps' }],
    [{ ...good, steps: 1e6 }, { code: 'limit', operand: 'steps', message: 'steps is 1000000, more than the 10000 supported in one call: call again to go on (pass the state)' }],
    [{ ...good, seed: -1 }, { code: 'range', operand: 'seed' }],
    [{ ...good, rowsPerStep: 4 }, { code: 'range', operand: 'rowsPerStep' }],
    [{ ...good, state: { ...state, optimizer: 'sgd' } }, { code: 'conflict', operand: 'state' }],
    [{ ...good, state: { ...state, moments: new Float64Array(3) } }, { code: 'shape', operand: 'state' }],
    [{ ...good, state: { ...state, moments: Array.from(state.moments) } }, { code: 'not_array', operand: 'state' }],
    [{ ...good, state: { ...state, step: -1 } }, { code: 'range', operand: 'state' }],
    [{ ...good, learningRate: 1e308, loss: 'output', target: [[0, 0], [0, 0], [0, 0]], optimizer: 'sgd', steps: 5 }, { code: 'overflow', operand: 'scores' }],
  ];
  for (const [options, expected] of bad) {
    assertInputError(() => engine.train(input, options), expected);
    expectGood();
  }
  // the heads form: a weights target per head, null for a head left out
  const heads = { x: TUTORIAL.x, heads: [{ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }], causal: true };
  assertInputError(() => engine.train(heads, { ...good, target: shift }), { code: 'not_matrix', operand: 'target', head: 0, row: 0, message: 'target[0][0] must be an array of numbers, got number 1' });
  assertInputError(() => engine.train(heads, { ...good, target: [shift, shift] }), { code: 'shape', operand: 'target' });
  assertInputError(() => engine.train(heads, { ...good, target: [null] }), { code: 'empty', operand: 'target' });
  assertInputError(() => engine.train(heads, { ...good, target: [[[1, 0, 0], [1, 0, 0], [0, 1, 'x']]] }), { code: 'not_number', operand: 'target', head: 0, row: 2, column: 2, message: 'target[0][2][2] is the string "x": every value must be a number' });
  assert.equal(engine.train(heads, { ...good, target: [shift] }).losses.length, 3);
});

test('the input is not modified, and wasm memory does not grow over repeated calls', () => {
  const c = cases.find((v) => v.name.startsWith('heads2_wo'));
  const input = structuredClone(c.input);
  input.x = input.x.map((row) => Float64Array.from(row));
  const before = structuredClone({ input, options: c.trainOptions });
  let { state } = engine.train(input, c.trainOptions);
  for (let i = 0; i < 3; i++) state = engine.train(input, { ...c.trainOptions, state }).state;
  const bytes = engine.memoryBytes();
  for (let i = 0; i < 200; i++) {
    state = engine.train(input, { ...c.trainOptions, steps: 2, state }).state;
    assert.throws(() => engine.train(input, { ...c.trainOptions, target: [[1]] }));
  }
  assert.equal(engine.memoryBytes(), bytes);
  assert.deepEqual({ input, options: c.trainOptions }, before);
});
