// engine.backward() of the JS API with the other seeds: { weights: S } (dL/dweights, one per
// head in the heads form), { output, weights } together, and { loss, target } (train()'s loss,
// with its value), against PyTorch autograd (tests/fixtures/backward_seed_cases.txt, written by
// tests/make_grad_fixtures.py), in both input forms; every bad S and loss.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RESULTS,
  TUTORIAL,
  assertInputError,
  createAttentionEngine,
  loadBackwardSeedCases,
  relativeDiff,
} from './fixtures.mjs';

const engine = await createAttentionEngine();
const cases = loadBackwardSeedCases();

function compare(got, c, name) {
  const want = c[`d.${name}`];
  assert.ok(want, `${c.name}: torch has d.${name}`);
  const diff = relativeDiff(got, want);
  assert.ok(diff <= 1e-8, `${c.name} d.${name}: ${diff}`);
}

// Every gradient of g (heads form) against torch's.
function compareAll(g, c) {
  compare(g.input.x, c, 'x');
  if (c.context) compare(g.input.context, c, 'context');
  if (c.wo) compare(g.input.wo, c, 'wo');
  compare([[g.input.temperature]], c, 'temperature');
  g.input.heads.forEach((head, h) => {
    for (const name of ['wq', 'wk', 'wv']) compare(head[name], c, `h${h}.${name}`);
  });
  g.result.heads.forEach((head, h) => {
    for (const name of RESULTS) compare(head[name], c, `h${h}.${name}`);
  });
  compare(g.result.concat, c, 'concat');
  compare(g.result.output, c, 'output');
  if (c.input.positionalEncoding) compare(g.result.xWithPe, c, 'xWithPe');
}

test('{ weights: S } and { output, weights } agree with PyTorch autograd within 1e-8', () => {
  const seeded = cases.filter((c) => c.options.seed !== 2);
  assert.ok(seeded.length >= 10);
  assert.ok(seeded.some((c) => c.seed.weights.includes(null)), 'a head left out');
  for (const c of seeded) {
    const g = engine.backward(c.input, c.seed);
    assert.equal(g.loss, undefined);
    compareAll(g, c);
    // the weights' gradient is S where nothing else reaches them (no output seed)
    if (c.options.seed === 0) {
      c.seed.weights.forEach((s, h) => { if (s) assert.deepEqual(g.result.heads[h].weights, s); });
    }
  }
});

test('{ loss, target } gives train()\'s loss and its gradients, as torch does', () => {
  const losses = cases.filter((c) => c.options.seed === 2);
  assert.ok(losses.length >= 5);
  for (const c of losses) {
    const g = engine.backward(c.input, c.seed);
    assert.ok(Math.abs(g.loss - c.loss[0][0]) <= 1e-8 * Math.max(1, c.loss[0][0]), `${c.name}: loss ${g.loss}`);
    compareAll(g, c);
    // the value is train()'s loss before its first step
    const trained = engine.train(c.input, { ...c.seed, train: ['wq'], learningRate: 0.01, steps: 1 });
    assert.equal(trained.losses[0], g.loss);
  }
});

test('one-head cases give the same through the one-head form: S and target one matrix each', () => {
  const oneHead = cases.filter((c) => c.options.heads === 1 && !c.wo);
  assert.ok(oneHead.length >= 5);
  for (const c of oneHead) {
    const { heads, ...options } = c.input;
    const input = { ...options, ...heads[0] };
    const seed = c.seed.loss ? { loss: c.seed.loss, target: c.seed.loss === 'weights' ? c.seed.target[0] : c.seed.target }
      : { ...c.seed, weights: c.seed.weights[0] };
    const g = engine.backward(input, seed);
    for (const name of ['wq', 'wk', 'wv']) compare(g.input[name], c, `h0.${name}`);
    compare(g.input.x, c, 'x');
    for (const name of RESULTS) compare(g.result[name], c, `h0.${name}`);
    if (c.seed.loss) assert.ok(Math.abs(g.loss - c.loss[0][0]) <= 1e-8);
  }
  // the page's start: tutorial, goal "previous word"
  const page = cases.find((c) => c.name === 'tutorial_loss_previous');
  const g = engine.backward(TUTORIAL, { loss: 'weights', target: page.seed.target[0] });
  assert.ok(Math.abs(g.loss - 1.1088566926463) < 1e-12);
});

test('every bad S or loss throws an Error with its code, head, row and column; the engine goes on', () => {
  const S = [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9]];
  const good = () => assert.deepEqual(engine.backward(TUTORIAL, { weights: S }).result.weights, S);
  const heads = { x: TUTORIAL.x, heads: [{ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }, { wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }] };
  const bad = [
    [TUTORIAL, { weights: 'S' }, { code: 'not_matrix', operand: 'weights', message: 'weights must be an array of rows (arrays of numbers), got the string "S"' }],
    [TUTORIAL, { weights: [[1, 2, 3], 4, [1, 2, 3]] }, { code: 'not_matrix', operand: 'weights', row: 1 }],
    [TUTORIAL, { weights: [] }, { code: 'empty', operand: 'weights' }],
    [TUTORIAL, { weights: [[1, 2, 3], [1, 2], [1, 2, 3]] }, { code: 'ragged', operand: 'weights', row: 1 }],
    [TUTORIAL, { weights: [[1, 2, 3], [1, 2, 3]] }, { code: 'shape', operand: 'weights', row: 2, column: undefined, head: undefined, message: "weights is 2 × 3 but the gradient must have the weights' shape 3 × 3 (n_q × n_k)" }],
    [TUTORIAL, { weights: [[1, 2], [1, 2], [1, 2]] }, { code: 'shape', operand: 'weights', row: undefined, column: 2 }],
    [TUTORIAL, { weights: [[1, 2, 3], [1, null, 3], [1, 2, 3]] }, { code: 'not_number', operand: 'weights', row: 1, column: 1, message: 'weights[1][1] is null: every value must be a number' }],
    [TUTORIAL, { weights: [[1, 2, 3], [1, 2, 3], [1, 2, NaN]] }, { code: 'not_finite', operand: 'weights', row: 2, column: 2, message: 'weights[2][2] is NaN: every value must be a finite number' }],
    [TUTORIAL, { weights: S, output: [[1, 2], [1, 2], [1, Infinity]] }, { code: 'not_finite', operand: 'output', row: 2, column: 1 }],
    [heads, { weights: S }, { code: 'not_matrix', operand: 'weights', head: 0, row: 0, message: 'weights[0][0] must be an array of numbers, got number 0.1' }],
    [heads, { weights: 'S' }, { code: 'not_matrix', operand: 'weights', message: 'weights must be an array with one gradient of the weights per head (or null), got the string "S"' }],
    [heads, { weights: [S] }, { code: 'shape', operand: 'weights', message: 'weights has 1 matrices but there are 2 heads: one per head (or null for a head the loss does not see)' }],
    [heads, { weights: [null, null] }, { code: 'empty', operand: 'output' }],
    [heads, { weights: [null, [[1, 2, 3]]] }, { code: 'shape', operand: 'weights', head: 1, row: 1, message: "weights[1] is 1 × 3 but the gradient must have the weights' shape 3 × 3 (n_q × n_k)" }],
    [heads, { weights: [S, [[1, 2, 3], [1, 2, 3], [1, -Infinity, 3]]] }, { code: 'not_finite', operand: 'weights', head: 1, row: 2, column: 1, message: 'weights[1][2][1] is -Infinity: every value must be a finite number' }],
    [TUTORIAL, { weigths: S }, { code: 'unknown_option', operand: 'weigths' }],
    [TUTORIAL, { loss: 'weights', target: S, weights: S }, { code: 'conflict', operand: 'weights' }],
    [TUTORIAL, { loss: 'weights' }, { code: 'not_matrix', operand: 'target', message: 'backward() needs a target (the weights wanted); target is missing' }],
    [TUTORIAL, { target: S }, { code: 'choice', operand: 'loss' }],
    [TUTORIAL, { loss: 'weights', target: [[1, 0, 0], [0, -1, 0], [0, 0, 1]] }, { code: 'range', operand: 'target', row: 1, column: 1 }],
    [TUTORIAL, { loss: 'weights', target: [[1, 0, 0]] }, { code: 'shape', operand: 'target' }],
    [TUTORIAL, { loss: 'output', target: S }, { code: 'shape', operand: 'target' }],
    [heads, { loss: 'weights', target: [null, null] }, { code: 'empty', operand: 'target' }],
  ];
  for (const [input, seed, expected] of bad) {
    assertInputError(() => engine.backward(input, seed), expected);
    good();
  }
});

test('the cross-entropy on a weight that underflowed to exactly 0 is an overflow error', () => {
  // scores ~1e4 apart: row 0's weight on key 2 is exactly 0
  const input = { ...TUTORIAL, wq: [[1e4, 0], [0, 1e4]], wk: [[1, 0], [0, 1]] };
  const w = engine.compute(input).weights;
  assert.equal(w[0][1], 0);
  const target = [[0, 1, 0], [1, 0, 0], [1, 0, 0]];
  assertInputError(() => engine.backward(input, { loss: 'weights', target }), { code: 'overflow', operand: 'weights', row: 0, column: 1 });
  // train() enters at the scaled scores instead: it trains from there
  const t = engine.train(input, { loss: 'weights', target, train: ['wq'], learningRate: 1, steps: 1 });
  assert.ok(Number.isFinite(t.losses[1]));
});

test('neither the input nor S is modified, and wasm memory does not grow over repeated calls', () => {
  const c = cases.find((v) => v.name === 'everything_weights_heads_1_3');
  const seed = { weights: c.seed.weights.map((s) => s && s.map((row) => Float64Array.from(row))) };
  const before = structuredClone({ input: c.input, seed });
  for (let i = 0; i < 5; i++) engine.backward(c.input, seed, { typed: true });
  const bytes = engine.memoryBytes();
  for (let i = 0; i < 200; i++) {
    engine.backward(c.input, seed);
    engine.backward(c.input, seed, { typed: true });
    assert.throws(() => engine.backward(c.input, { weights: [[[1]]] }));
  }
  assert.equal(engine.memoryBytes(), bytes);
  assert.deepEqual({ input: c.input, seed }, before);
});
