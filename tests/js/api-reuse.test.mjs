// compute(input, { typed: true, reuse: true }) under node: the same bits as the copying typed
// form, and its ownership rule (docs/api.md): the arrays are views of the engine's buffers,
// valid until the engine's next call, which overwrites them (or, when wasm memory grows,
// leaves them empty); memory does not grow over repeated calls; errors leave the engine working.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RESULTS, TUTORIAL, TUTORIAL_EXPECTED, assertInputError, createAttentionEngine } from './fixtures.mjs';

const engine = await createAttentionEngine();
const REUSE = { typed: true, reuse: true };

// { rows, cols, data } → arrays of rows of numbers (a copy)
const rowsOf = ({ rows, cols, data }) => Array.from({ length: rows }, (_, i) => Array.from(data.subarray(i * cols, (i + 1) * cols)));

// Every value of a typed result within 1e-12 of `expected` (arrays of rows per name).
function assertValues(result, expected, what) {
  for (const name of RESULTS) {
    const got = rowsOf(result[name]);
    got.forEach((row, i) => row.forEach((v, j) => {
      assert.ok(Math.abs(v - expected[name][i][j]) <= 1e-12, `${what}: ${name}[${i}][${j}] is ${v}, expected ${expected[name][i][j]}`);
    }));
  }
}

// The worked example with the tokens in reverse order: self-attention permutes with them, so
// its true values are the example's, rows (and the n × n matrices' columns) reversed.
const REVERSED = { ...TUTORIAL, x: [...TUTORIAL.x].reverse() };
const REVERSED_EXPECTED = Object.fromEntries(RESULTS.map((name) => {
  const rows = [...TUTORIAL_EXPECTED[name]].reverse();
  return [name, ['scores', 'scaled', 'weights'].includes(name) ? rows.map((row) => [...row].reverse()) : rows];
}));

// a as bits: Object.is on every value (so -0 and NaN count too)
const sameBits = (a, b) => a.length === b.length && a.every((v, i) => Object.is(v, b[i]));

test('reuse gives the worked example, bit for bit the copying typed form, with every option', () => {
  const r = engine.compute(TUTORIAL, REUSE);
  assertValues(r, TUTORIAL_EXPECTED, 'reuse');
  const copy = engine.compute(TUTORIAL, { typed: true });
  const again = engine.compute(TUTORIAL, REUSE);
  for (const name of RESULTS) assert.ok(sameBits(again[name].data, copy[name].data), name);

  const input = {
    x: [[0.3, -1.2, 0.5], [0.9, 0.1, -0.4], [-0.7, 0.6, 0.2], [0.05, 0.8, -0.9]],
    context: [[0.2, 0.4], [-0.5, 0.1], [0.7, -0.3], [0.6, 0.9], [-0.2, -0.8]],
    heads: [0, 1].map((h) => ({
      wq: [[0.5, h], [0.1, 0.6], [-0.3, 0.2]],
      wk: [[0.4, -0.2], [h / 2, 0.7]],
      wv: [[0.8, 0.1], [0.3, -0.9 + h]],
    })),
    wo: [[0.1, 0.2, 0.3], [0.4, 0.5, 0.6], [0.7, 0.8, 0.9], [-0.1, -0.2, -0.3]],
    causal: true,
    keyPadding: [false, true, false, false, true],
    temperature: 0.7,
    positionalEncoding: true,
  };
  const typed = engine.compute(input, { typed: true });
  const live = engine.compute(input, REUSE);
  const flat = (result) => [
    ...result.heads.flatMap((head) => RESULTS.map((name) => [`heads.${name}`, head[name].data])),
    ...['concat', 'output', 'masked', 'pe', 'xWithPe', 'contextPe', 'contextWithPe'].map((name) => [name, result[name].data]),
    ['fullyMasked', result.fullyMasked],
  ];
  const expected = flat(typed);
  flat(live).forEach(([name, data], i) => {
    assert.equal(data.constructor, expected[i][1].constructor, name);
    assert.ok(sameBits(data, expected[i][1]), name);
  });
});

test('a reused result is overwritten by the next call of any kind, as documented', () => {
  const first = engine.compute(TUTORIAL, REUSE);
  assertValues(first, TUTORIAL_EXPECTED, 'before the next call');
  // the next reuse call shows the same memory, now holding its own result
  const second = engine.compute(REVERSED, REUSE);
  assert.equal(second.weights.data.buffer, first.weights.data.buffer);
  assert.equal(second.weights.data.byteOffset, first.weights.data.byteOffset);
  assertValues(first, REVERSED_EXPECTED, 'first, after a second reuse call');
  // a copying call overwrites it too; its own result is a copy, which the next call leaves alone
  const copied = engine.compute(TUTORIAL, { typed: true });
  assertValues(first, TUTORIAL_EXPECTED, 'first, after a copying call');
  engine.compute(REVERSED);
  assertValues(first, REVERSED_EXPECTED, 'first, after an arrays-of-rows call');
  assertValues(copied, TUTORIAL_EXPECTED, 'a copy, after another call');
  // backward() runs the forward pass in the same buffers
  engine.backward(TUTORIAL, { output: [[1, 0], [0, 1], [1, 1]] });
  assertValues(first, TUTORIAL_EXPECTED, 'first, after backward()');
});

test('errors leave the engine working, and reuse without typed is an Error naming it', () => {
  assertInputError(() => engine.compute(TUTORIAL, { reuse: true }), {
    code: 'conflict',
    operand: 'format',
    message: "compute()'s second argument: reuse: true needs typed: true (only the typed form's arrays can be reused)",
  });
  assertInputError(() => engine.compute(TUTORIAL, { typed: true, reuse: 'yes' }), {
    code: 'unknown_option',
    operand: 'format',
    message: "compute()'s second argument must be { typed: true | false, reuse: true | false }, got an object",
  });
  assertInputError(() => engine.backward(TUTORIAL, { output: [[1, 0], [0, 1], [1, 1]] }, { typed: true, reuse: true }), {
    code: 'unknown_option',
    operand: 'format',
    message: "backward()'s third argument must be { typed: true | false }, got an object",
  });
  assertInputError(() => engine.compute({ ...TUTORIAL, x: [[1, NaN], [0, 1], [1, 0]] }, REUSE), { code: 'not_finite', operand: 'x', row: 0, column: 1 });
  assertInputError(() => engine.compute({ ...TUTORIAL, x: [[1e300, 1e300], [0, 1], [1, 0]] }, REUSE), { code: 'overflow' });
  assertValues(engine.compute(TUTORIAL, REUSE), TUTORIAL_EXPECTED, 'after the errors');
});

test('repeated reuse calls do not grow wasm memory', () => {
  const rand = (rows, cols, seed) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => Math.sin(seed + i * 31 + j * 7)));
  const input = { x: rand(64, 16, 1), wq: rand(16, 8, 2), wk: rand(16, 8, 3), wv: rand(16, 8, 4), causal: true };
  for (let i = 0; i < 5; i++) engine.compute(input, REUSE);
  const before = engine.memoryBytes();
  for (let i = 0; i < 300; i++) {
    engine.compute(input, REUSE);
    assert.throws(() => engine.compute({ ...input, temperature: 0 }, REUSE));
  }
  assert.equal(engine.memoryBytes(), before);
});

test('a call that grows wasm memory leaves an earlier reused result empty, never stale', () => {
  const small = engine.compute(TUTORIAL, REUSE);
  const bytes = engine.memoryBytes();
  // three n × n float64 matrices larger than all of the memory now: it has to grow
  const n = Math.ceil(Math.sqrt(bytes / 24)) + 64;
  const rand = (rows, cols, seed) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => Math.sin(seed + i * 0.37 + j * 1.91) / 4));
  const big = engine.compute({ x: rand(n, 4, 1), wq: rand(4, 4, 2), wk: rand(4, 4, 3), wv: rand(4, 4, 4) }, REUSE);
  assert.ok(engine.memoryBytes() > bytes, 'memory grew');
  for (const name of RESULTS) assert.equal(small[name].data.length, 0, name);
  assert.equal(big.weights.data.length, n * n);
  assertValues(engine.compute(TUTORIAL, REUSE), TUTORIAL_EXPECTED, 'after the growth');
});
