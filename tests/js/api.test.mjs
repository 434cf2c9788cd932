// The public JS API of dist/attention-engine.js under node: values against REFERENCE.md and
// numpy fixtures, every bad-input error, recovery after errors, no leak, no stray globals.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import vm from 'node:vm';
import {
  ENGINE_FILE,
  RESULTS,
  TUTORIAL,
  TUTORIAL_EXPECTED,
  assertInputError,
  assertTutorial,
  createAttentionEngine,
  loadFixtureCases,
  maxAbs,
  maxAbsDiff,
} from './fixtures.mjs';

const engine = await createAttentionEngine();

test('createAttentionEngine returns one cached engine', async () => {
  assert.equal(typeof createAttentionEngine, 'function');
  assert.equal(createAttentionEngine(), createAttentionEngine());
  assert.equal(await createAttentionEngine(), engine);
});

test('the worked example gives the values of tests/REFERENCE.md to 1e-12', () => {
  const r = engine.compute(TUTORIAL);
  assert.deepEqual(Object.keys(r).sort(), [...RESULTS].sort());
  assertTutorial(r);
  // the tutorial's printed step-4/5 digits are wrong; the engine must not reproduce them
  assert.ok(Math.abs(r.weights[0][0] - 0.33614837) > 1e-4);
  assert.ok(Math.abs(r.output[0][0] - 0.55158713) > 1e-4);
});

test('every step agrees with numpy on all fixture cases', (t) => {
  const cases = loadFixtureCases();
  assert.ok(cases.length >= 30);
  let worst = 0;
  for (const c of cases) {
    const r = engine.compute({ x: c.x, wq: c.wq, wk: c.wk, wv: c.wv });
    for (const name of RESULTS) {
      // 1e-12 relative to the matrix's magnitude: numpy's BLAS sums in another order
      const scale = Math.max(1, maxAbs(c[name]));
      const diff = maxAbsDiff(r[name], c[name]);
      worst = Math.max(worst, diff / scale);
      assert.ok(diff <= 1e-12 * scale, `${c.name} ${name}: max diff ${diff}, scale ${scale}`);
    }
  }
  t.diagnostic(`worst scaled difference from numpy: ${worst}`);
});

test('shapes follow n, d_k and d_v, which may all differ', () => {
  // n = 4, d_model = 3, d_k = 2, d_v = 5
  const r = engine.compute({
    x: [[1, 2, 3], [4, 5, 6], [7, 8, 9], [0, 1, 0]].map((row) => row.map((v) => v / 10)),
    wq: [[1, 0], [0, 1], [1, 1]],
    wk: [[0, 1], [1, 0], [1, 1]],
    wv: [[1, 0, 0, 0, 1], [0, 1, 0, 0, 1], [0, 0, 1, 0, 1]],
  });
  const shape = (m) => [m.length, m[0].length];
  assert.deepEqual(shape(r.q), [4, 2]);
  assert.deepEqual(shape(r.k), [4, 2]);
  assert.deepEqual(shape(r.v), [4, 5]);
  assert.deepEqual(shape(r.scores), [4, 4]);
  assert.deepEqual(shape(r.weights), [4, 4]);
  assert.deepEqual(shape(r.output), [4, 5]);
  for (const row of r.weights) assert.ok(Math.abs(row.reduce((a, b) => a + b) - 1) < 1e-15);
});

test('rows may be Float64Arrays, and results are plain arrays of numbers', () => {
  const r = engine.compute({
    x: TUTORIAL.x.map((row) => Float64Array.from(row)),
    wq: TUTORIAL.wq,
    wk: TUTORIAL.wk,
    wv: TUTORIAL.wv,
  });
  assertTutorial(r);
  assert.ok(Array.isArray(r.output[0]));
});

const ok = TUTORIAL;
// [description, input, code, operand, row, column, message]
const BAD_INPUTS = [
  ['no input object', null, 'not_matrix', undefined, undefined, undefined,
    'compute() takes an object { x, wq, wk, wv }, got null'],
  ['a missing operand', { x: ok.x, wq: ok.wq, wv: ok.wv }, 'not_matrix', 'wk', undefined, undefined,
    'compute() needs x, wq, wk and wv; wk is missing'],
  ['an operand that is not an array', { ...ok, wq: 'abc' }, 'not_matrix', 'wq', undefined, undefined,
    'wq must be an array of rows (arrays of numbers), got the string "abc"'],
  ['a row that is not an array', { ...ok, x: [[1, 0], 5, [0, 1]] }, 'not_matrix', 'x', 1, undefined,
    'x[1] must be an array of numbers, got number 5'],
  ['a string value', { ...ok, x: [[1, 0], [0.5, '0.5'], [0, 1]] }, 'not_number', 'x', 1, 1,
    'x[1][1] is the string "0.5": every value must be a number'],
  ['a null value', { ...ok, wv: [[0.8, 0.1], [null, 0.9]] }, 'not_number', 'wv', 1, 0,
    'wv[1][0] is null: every value must be a number'],
  ['no rows', { ...ok, x: [] }, 'empty', 'x', undefined, undefined,
    'x is empty: it needs at least one row of numbers'],
  ['an empty row', { ...ok, wk: [[0.4, 0.3], []] }, 'empty_row', 'wk', 1, undefined,
    'wk[1] is empty: every row needs at least one number'],
  ['a ragged row', { ...ok, x: [[1, 0], [0.5, 0.5, 1], [0, 1]] }, 'ragged', 'x', 1, undefined,
    'x[1] has 3 values but x[0] has 2: every row of x must have the same length'],
  ['NaN', { ...ok, x: [[1, 0], [0.5, NaN], [0, 1]] }, 'not_finite', 'x', 1, 1,
    'x[1][1] is NaN: every value must be a finite number'],
  ['Infinity', { ...ok, wq: [[0.5, Infinity], [0.1, 0.6]] }, 'not_finite', 'wq', 0, 1,
    'wq[0][1] is Infinity: every value must be a finite number'],
  ['-Infinity', { ...ok, wv: [[0.8, 0.1], [0.3, -Infinity]] }, 'not_finite', 'wv', 1, 1,
    'wv[1][1] is -Infinity: every value must be a finite number'],
  ['W_Q rows ≠ d_model', { ...ok, wq: [[0.5, 0.2], [0.1, 0.6], [1, 1]] }, 'shape', 'wq', undefined,
    undefined,
    'wq has 3 rows but x has 2 columns: wq must be d_model × d_k with d_model = 2 (x is 3 × 2, wq is 3 × 2)'],
  ['W_K rows ≠ d_model', { ...ok, wk: [[0.4, 0.3]] }, 'shape', 'wk', undefined, undefined,
    'wk has 1 row but x has 2 columns: wk must be d_model × d_k with d_model = 2 (x is 3 × 2, wk is 1 × 2)'],
  ['W_V rows ≠ d_model', { ...ok, wv: [[0.8, 0.1]] }, 'shape', 'wv', undefined, undefined,
    'wv has 1 row but x has 2 columns: wv must be d_model × d_v with d_model = 2 (x is 3 × 2, wv is 1 × 2)'],
  ['x columns ≠ W_Q rows', { ...ok, x: [[1], [0.5], [0]] }, 'shape', 'wq', undefined, undefined,
    'wq has 2 rows but x has 1 column: wq must be d_model × d_k with d_model = 1 (x is 3 × 1, wq is 2 × 2)'],
  ['W_K columns ≠ W_Q columns', { ...ok, wk: [[0.4, 0.3, 1], [0.2, 0.7, 1]] }, 'shape', 'wk',
    undefined, undefined,
    'wk has 3 columns but wq has 2: queries and keys must have the same length d_k (wq is 2 × 2, wk is 2 × 3)'],
  ['more tokens than supported', { ...ok, x: Array.from({ length: 4097 }, () => [1, 0]) }, 'limit',
    'x', undefined, undefined,
    'the number of tokens (rows of x) is 4097, more than the 4096 supported: use a shorter sentence'],
  ['longer vectors than supported', { x: [new Array(1025).fill(1)], wq: [[1]], wk: [[1]], wv: [[1]] },
    'limit', 'x', undefined, undefined,
    'd_model (columns of x) is 1025, more than the 1024 supported: use shorter vectors'],
  ['scores that overflow', { x: [[1e160]], wq: [[1]], wk: [[1]], wv: [[1]] }, 'overflow', 'scores',
    0, 0,
    'scores[0][0] is Infinity: the inputs are too large for float64 (products overflow); use smaller values'],
  ['a projection that overflows', { x: [[1e200, 1e200]], wq: [[1e200], [1]], wk: [[1], [1]],
    wv: [[1], [1]] }, 'overflow', 'q', 0, 0,
    'q[0][0] is Infinity: the inputs are too large for float64 (products overflow); use smaller values'],
];

for (const [what, input, code, operand, row, column, message] of BAD_INPUTS) {
  test(`bad input: ${what} throws an Error saying so, and the engine still works`, () => {
    assertInputError(() => engine.compute(input), { message, code, operand, row, column });
    assertTutorial(engine.compute(TUTORIAL));
  });
}

test('repeated computes do not grow wasm memory', () => {
  const n = 64;
  const rand = (rows, cols, seed) =>
    Array.from({ length: rows }, (_, i) =>
      Array.from({ length: cols }, (_, j) => Math.sin(seed + i * 31 + j * 7)),
    );
  const input = { x: rand(n, 64, 1), wq: rand(64, 64, 2), wk: rand(64, 64, 3), wv: rand(64, 64, 4) };
  for (let i = 0; i < 5; i++) engine.compute(input);
  const before = engine.memoryBytes();
  // each compute allocates about 200 KB of matrices: a leak would grow memory by ~100 MB here
  for (let i = 0; i < 500; i++) {
    engine.compute(input);
    assert.throws(() => engine.compute({ ...input, wq: [[1]] }));
  }
  assert.equal(engine.memoryBytes(), before);
});

test('loading the script in a page leaves one global, createAttentionEngine', () => {
  const source = readFileSync(ENGINE_FILE, 'utf8');
  const page = { window: {}, document: { currentScript: null } };
  page.window = page;
  const context = vm.createContext(page);
  const before = new Set(Object.keys(context));
  vm.runInContext(source, context);
  const added = Object.keys(context).filter((k) => !before.has(k));
  assert.deepEqual(added, ['createAttentionEngine']);
});

test('compute(input, { typed: true }) returns row-major Float64Arrays with the same values', () => {
  const r = engine.compute(TUTORIAL, { typed: true });
  for (const name of RESULTS) {
    const m = r[name];
    assert.ok(m.data instanceof Float64Array, name);
    const rows = Array.from({ length: m.rows }, (_, i) => Array.from(m.data.slice(i * m.cols, (i + 1) * m.cols)));
    const diff = maxAbsDiff(rows, TUTORIAL_EXPECTED[name]);
    assert.ok(diff <= 1e-12, `${name}: ${diff}`);
  }
  const masked = engine.compute({ ...TUTORIAL, causal: true }, { typed: true });
  assert.ok(masked.masked.data instanceof Uint8Array);
  assert.deepEqual(Array.from(masked.masked.data), [0, 1, 1, 0, 0, 1, 0, 0, 0]);
  assert.deepEqual(Array.from(masked.fullyMasked), [0, 0, 0]);
  assert.equal(masked.weights.data[1], 0);
  assert.deepEqual(engine.compute(TUTORIAL, { typed: false }), engine.compute(TUTORIAL));
});

test('a bad second argument to compute() is an Error naming it', () => {
  for (const format of [null, 5, { typed: 'yes' }, { type: true }]) {
    assertInputError(() => engine.compute(TUTORIAL, format), { code: 'unknown_option', operand: 'format' });
    assert.throws(() => engine.compute(TUTORIAL, format), /^Error: compute\(\)'s second argument must be \{ typed: true \| false, reuse: true \| false \}, got /);
  }
  assertTutorial(engine.compute(TUTORIAL));
});
