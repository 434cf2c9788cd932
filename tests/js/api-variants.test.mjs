// The issue-4 options of the JS API (dist/attention-engine.js) under node: multi-head with W_O,
// causal and padding masks, fully masked rows, temperature, no √d_k scaling, positional
// encoding and cross-attention, against numpy fixtures (tests/fixtures/variant_cases.txt) and
// hand-derived values; every new bad input, each followed by a correct compute.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RESULTS,
  TUTORIAL,
  TUTORIAL_EXPECTED,
  assertInputError,
  assertTutorial,
  createAttentionEngine,
  loadVariantCases,
  maxAbs,
  maxAbsDiff,
} from './fixtures.mjs';
const engine = await createAttentionEngine();

const shape = (m) => [m.length, m[0].length];
const T = TUTORIAL;


// Asserts got ≈ want to 1e-12 relative to want's magnitude; returns the scaled difference.
function compare(got, want, what) {
  const scale = Math.max(1, maxAbs(want));
  const diff = maxAbsDiff(got, want);
  assert.ok(diff <= 1e-12 * scale, `${what}: max diff ${diff}, scale ${scale}`);
  return diff / scale;
}

const asFlags = (rows) => rows.map((row) => row.map((v) => v === 1));

test('every option and combination agrees with numpy (multi-head form)', (t) => {
  const cases = loadVariantCases();
  assert.ok(cases.length >= 50);
  const worst = {};
  const note = (name, d) => {
    for (const family of ['heads', 'causal', 'padding', 'fully_masked', 'cross', 'dk', 'temperature',
      'no_scaling', 'unscaled', 'pe', 'huge', 'everything', 'alibi']) {
      if (new RegExp(`(^|_)${family}(\\d|_|$)`).test(name) || (family === 'fully_masked' && name.includes('all_padding'))) {
        worst[family] = Math.max(worst[family] ?? 0, d);
      }
    }
  };
  for (const c of cases) {
    const r = engine.compute(c.input);
    assert.equal(r.heads.length, c.options.heads, c.name);
    r.heads.forEach((head, h) => {
      for (const name of RESULTS) note(c.name, compare(head[name], c[`h${h}.${name}`], `${c.name} h${h}.${name}`));
      if (c.input.alibi) note(c.name, compare(head.bias, c[`h${h}.bias`], `${c.name} h${h}.bias`));
      else assert.equal(head.bias, undefined, `${c.name}: no bias without alibi`);
    });
    note(c.name, compare(r.concat, c.concat, `${c.name} concat`));
    note(c.name, compare(r.output, c.output, `${c.name} output`));
    const masks = c.input.causal || c.input.keyPadding !== undefined;
    if (masks) {
      assert.deepEqual(r.masked, asFlags(c.masked), `${c.name} masked`);
      assert.deepEqual(r.fullyMasked, asFlags(c.fullyMasked)[0], `${c.name} fullyMasked`);
    } else {
      assert.equal(r.masked, undefined);
      assert.ok(c.masked.flat().every((v) => v === 0));
    }
    if (c.input.positionalEncoding) {
      note(c.name, compare(r.pe, c.pe, `${c.name} pe`));
      note(c.name, compare(r.xWithPe, c.xWithPe, `${c.name} xWithPe`));
      if (c.context) {
        note(c.name, compare(r.contextPe, c.contextPe, `${c.name} contextPe`));
        note(c.name, compare(r.contextWithPe, c.contextWithPe, `${c.name} contextWithPe`));
      }
    }
  }
  t.diagnostic(`worst scaled difference from numpy per family: ${JSON.stringify(worst)}`);
});

test('one-head variant cases give the same through the single-head form', () => {
  for (const c of loadVariantCases().filter((v) => v.options.heads === 1 && !v.wo)) {
    const { heads, ...options } = c.input;
    const r = engine.compute({ ...options, ...heads[0] });
    for (const name of RESULTS) compare(r[name], c[`h0.${name}`], `${c.name} ${name}`);
    if (c.input.alibi) compare(r.bias, c['h0.bias'], `${c.name} bias`);
    assert.equal(r.heads, undefined);
  }
});

test('the default single-head call still returns exactly the seven steps', () => {
  const r = engine.compute(T);
  assert.deepEqual(Object.keys(r).sort(), [...RESULTS].sort());
  assertTutorial(r);
  // explicit defaults change nothing
  const d = engine.compute({ ...T, causal: false, scaleBySqrtDk: true, temperature: 1, positionalEncoding: false });
  assert.deepEqual(Object.keys(d).sort(), [...RESULTS].sort());
  assert.deepEqual(d, r);
});

test('a causal mask returns -Infinity before the softmax and exactly 0 after', () => {
  const r = engine.compute({ ...T, causal: true });
  assert.deepEqual(Object.keys(r).sort(), [...RESULTS, 'masked', 'fullyMasked'].sort());
  assert.deepEqual(r.masked, [[false, true, true], [false, false, true], [false, false, false]]);
  assert.deepEqual(r.fullyMasked, [false, false, false]);
  assert.deepEqual(r.scores, engine.compute(T).scores); // Q·Kᵀ itself is never masked
  assert.equal(r.scaled[0][1], -Infinity);
  assert.equal(r.scaled[0][2], -Infinity);
  assert.equal(r.scaled[1][2], -Infinity);
  assert.deepEqual(r.weights[0], [1, 0, 0]);
  assert.equal(r.weights[1][2], 0);
  assert.deepEqual(r.output[0], TUTORIAL_EXPECTED.v[0]);
  // the last row sees every key: tests/REFERENCE.md's unmasked values
  assert.ok(maxAbsDiff([r.weights[2]], [TUTORIAL_EXPECTED.weights[2]]) <= 1e-15);
});

test('a fully masked row has zero weights, a zero output and a flag, never NaN', () => {
  const r = engine.compute({
    x: T.x,
    heads: [{ wq: T.wq, wk: T.wk, wv: T.wv }, { wq: T.wq, wk: T.wk, wv: T.wv }],
    wo: [[1, 2], [3, 4], [5, 6], [7, 8]],
    causal: true,
    keyPadding: [true, false, false],
  });
  assert.deepEqual(r.fullyMasked, [true, false, false]);
  assert.deepEqual(r.masked[0], [true, true, true]);
  for (const head of r.heads) {
    assert.deepEqual(head.scaled[0], [-Infinity, -Infinity, -Infinity]);
    assert.deepEqual(head.weights[0], [0, 0, 0]);
    assert.deepEqual(head.output[0], [0, 0]);
    assert.deepEqual(head.weights[1], [0, 1, 0]); // row 1 sees only key 1
  }
  assert.deepEqual(r.output[0], [0, 0]);
  const all = [r.output, r.concat, ...r.heads.flatMap((h) => RESULTS.map((n) => h[n]))].flat(2);
  assert.ok(all.every((v) => !Number.isNaN(v)));
});

test('multi-head results: every head kept, concatenated in order, projected by W_O', () => {
  const swapped = [[0.1, 0.8], [0.9, 0.3]]; // head 1: W_V with its columns swapped
  const input = { x: T.x, heads: [{ wq: T.wq, wk: T.wk, wv: T.wv }, { wq: T.wq, wk: T.wk, wv: swapped }] };
  const r = engine.compute(input);
  assert.deepEqual(Object.keys(r).sort(), ['concat', 'heads', 'output']);
  assert.equal(r.heads.length, 2);
  assertTutorial(r.heads[0]);
  const out = TUTORIAL_EXPECTED.output;
  assert.ok(maxAbsDiff(r.concat, out.map(([a, b]) => [a, b, b, a])) <= 1e-15);
  assert.deepEqual(r.output, r.concat); // no W_O: output is the concatenation
  const p = engine.compute({ ...input, wo: [[1, 0], [0, 2], [1, 0], [0, 0]] });
  assert.deepEqual(shape(p.output), [3, 2]);
  assert.ok(maxAbsDiff(p.output, out.map(([a, b]) => [a + b, 2 * b])) <= 1e-15);
});

test('temperature divides the scaled scores and scaleBySqrtDk: false leaves the scores', () => {
  const hot = engine.compute({ ...T, temperature: 2 });
  const halved = TUTORIAL_EXPECTED.scaled.map((row) => row.map((v) => v / 2));
  assert.ok(maxAbsDiff(hot.scaled, halved) <= 1e-15);
  const raw = engine.compute({ ...T, scaleBySqrtDk: false });
  assert.deepEqual(raw.scaled, raw.scores);
  const cold = engine.compute({ ...T, temperature: 1e-6 });
  assert.deepEqual(cold.weights.map((row) => row.indexOf(Math.max(...row))), [0, 2, 2]);
  assert.equal(cold.weights[0][0], 1);
});

test('positional encoding is its own step: pe and x + pe', () => {
  const r = engine.compute({ ...T, positionalEncoding: true });
  // d_model = 2: one frequency, PE[pos] = (sin pos, cos pos)
  const pe = [0, 1, 2].map((pos) => [Math.sin(pos), Math.cos(pos)]);
  assert.ok(maxAbsDiff(r.pe, pe) <= 1e-15);
  assert.ok(maxAbsDiff(r.xWithPe, T.x.map((row, i) => row.map((v, j) => v + pe[i][j]))) <= 1e-15);
  assert.deepEqual(Object.keys(r).sort(), [...RESULTS, 'pe', 'xWithPe'].sort());
});

test('cross-attention: queries from x, keys and values from a context of another length', () => {
  const context = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [2, 0, 0]];
  const r = engine.compute({
    x: T.x,
    context,
    heads: [{ wq: T.wq, wk: [[1, 0], [0, 1], [0, 0]], wv: [[1], [2], [3]] }],
    keyPadding: [false, false, false, false, true],
    positionalEncoding: true,
  });
  assert.deepEqual(shape(r.heads[0].k), [5, 2]);
  assert.deepEqual(shape(r.heads[0].weights), [3, 5]);
  assert.deepEqual(shape(r.output), [3, 1]);
  assert.deepEqual(shape(r.contextPe), [5, 3]);
  assert.deepEqual(r.masked[2], [false, false, false, false, true]);
  assert.ok(r.heads[0].weights.every((row) => row[4] === 0));
});

const ok = { x: T.x, heads: [{ wq: T.wq, wk: T.wk, wv: T.wv }, { wq: T.wq, wk: T.wk, wv: T.wv }] };
const withHead1 = (changes) => ({ ...ok, heads: [ok.heads[0], { ...ok.heads[1], ...changes }] });
const w23 = [[1, 0, 0], [0, 1, 0]];
const w32 = [[1, 0], [0, 1], [1, 1]];
// [description, input, code, operand, head, row, column, message]
const BAD_INPUTS = [
  ['an unknown option', { ...T, casual: true }, 'unknown_option', 'casual', undefined, undefined, undefined,
    'compute() got an unknown option "casual"; it takes x, wq, wk, wv, bq, bk, bv, heads, wo, bo, context, causal, keyPadding, scaleBySqrtDk, temperature, positionalEncoding, alibi'],
  ['both wq and heads', { ...ok, wq: T.wq }, 'conflict', 'wq', undefined, undefined, undefined,
    'compute() takes either wq, wk, wv (one head) or heads, not both; wq is given with heads'],
  ['wo without heads', { ...T, wo: T.wq }, 'conflict', 'wo', undefined, undefined, undefined,
    'wo needs heads: pass heads: [{ wq, wk, wv }, ...] with wo (one head without W_O is the default)'],
  ['heads that is not an array', { x: T.x, heads: { wq: T.wq } }, 'not_matrix', 'heads', undefined, undefined,
    undefined, 'heads must be an array of { wq, wk, wv }, got an object'],
  ['no heads', { x: T.x, heads: [] }, 'empty', 'heads', undefined, undefined, undefined,
    'heads is empty: it needs at least one head { wq, wk, wv }'],
  ['a head that is not an object', { ...ok, heads: [ok.heads[0], 5] }, 'not_matrix', 'heads', 1, undefined,
    undefined, 'heads[1] must be an object { wq, wk, wv }, got number 5'],
  ['a head without W_K', withHead1({ wk: undefined }), 'not_matrix', 'wk', 1, undefined, undefined,
    'heads[1] needs wq, wk and wv; wk is missing'],
  ['a head matrix that is not an array', withHead1({ wq: 'abc' }), 'not_matrix', 'wq', 1, undefined, undefined,
    'heads[1].wq must be an array of rows (arrays of numbers), got the string "abc"'],
  ['a string in a head matrix', withHead1({ wv: [[0.8, '0.1'], [0.3, 0.9]] }), 'not_number', 'wv', 1, 0, 1,
    'heads[1].wv[0][1] is the string "0.1": every value must be a number'],
  ['NaN in a head matrix', withHead1({ wk: [[0.4, 0.3], [NaN, 0.7]] }), 'not_finite', 'wk', 1, 1, 0,
    'heads[1].wk[1][0] is NaN: every value must be a finite number'],
  ['a ragged head matrix', withHead1({ wq: [[0.5, 0.2], [0.1]] }), 'ragged', 'wq', 1, 1, undefined,
    'heads[1].wq[1] has 1 value but heads[1].wq[0] has 2: every row of heads[1].wq must have the same length'],
  ['a head whose W_Q rows differ from d_model', withHead1({ wq: w32 }), 'shape', 'wq', 1, undefined, undefined,
    'heads[1].wq has 3 rows but x has 2 columns: heads[1].wq must be d_model × d_k with d_model = 2 (x is 3 × 2, heads[1].wq is 3 × 2)'],
  ['a head whose W_K is wider than its W_Q', withHead1({ wk: w23 }), 'shape', 'wk', 1, undefined, undefined,
    'heads[1].wk has 3 columns but heads[1].wq has 2: queries and keys must have the same length d_k (heads[1].wq is 2 × 2, heads[1].wk is 2 × 3)'],
  ['heads with different d_k', withHead1({ wq: w23, wk: w23 }), 'shape', 'wq', 1, undefined, undefined,
    'heads[1].wq has 3 columns but heads[0].wq has 2: every head must have the same d_k (heads[0].wq is 2 × 2, heads[1].wq is 2 × 3)'],
  ['heads with different d_v', withHead1({ wv: w23 }), 'shape', 'wv', 1, undefined, undefined,
    'heads[1].wv has 3 columns but heads[0].wv has 2: every head must have the same d_v (heads[0].wv is 2 × 2, heads[1].wv is 2 × 3)'],
  ['W_O with too few rows', { ...ok, wo: w32 }, 'shape', 'wo', undefined, undefined, undefined,
    "wo is 3 × 2 but must be (h·d_v) × d_model = 4 × 2: one row per column of the heads' concatenated outputs (2 heads × d_v = 2)"],
  ['W_O of the wrong width', { ...ok, wo: [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1]] }, 'shape', 'wo', undefined,
    undefined, undefined, 'wo is 4 × 3 but must be (h·d_v) × d_model = 4 × 2: the output has the width d_model = 2 of x'],
  ['a W_O value that is not a number', { ...ok, wo: [[1, 0], [0, 1], [1, 0], [0, true]] }, 'not_number', 'wo',
    undefined, 3, 1, 'wo[3][1] is boolean true: every value must be a number'],
  ['a context that is not an array', { ...ok, context: 7 }, 'not_matrix', 'context', undefined, undefined,
    undefined, 'context must be an array of rows (arrays of numbers), got number 7'],
  ['a ragged context', { ...ok, context: [[1, 2], [3]] }, 'ragged', 'context', undefined, 1, undefined,
    'context[1] has 1 value but context[0] has 2: every row of context must have the same length'],
  ['a context narrower than W_K', { ...ok, context: [[1], [2], [3], [4]] }, 'shape', 'wk', 0, undefined, undefined,
    'heads[0].wk has 2 rows but context has 1 column: heads[0].wk must be d_context × d_k with d_context = 1 (context is 4 × 1, heads[0].wk is 2 × 2)'],
  ['keyPadding that is not an array', { ...T, keyPadding: 'last' }, 'not_array', 'keyPadding', undefined,
    undefined, undefined, 'keyPadding must be an array of true/false, one per key, got the string "last"'],
  ['an empty keyPadding', { ...T, keyPadding: [] }, 'empty', 'keyPadding', undefined, undefined, undefined,
    'keyPadding is empty: it needs one true/false per key (leave it out for no padding)'],
  ['keyPadding with a number', { ...T, keyPadding: [false, 1, false] }, 'not_boolean', 'keyPadding', undefined,
    undefined, 1, 'keyPadding[1] is number 1: every entry must be true (a padding key) or false'],
  ['keyPadding for too few keys', { ...T, keyPadding: [false, true] }, 'shape', 'keyPadding', undefined,
    undefined, undefined, 'keyPadding has 2 values but there are 3 keys (x has 3 rows): keyPadding needs one true/false per key'],
  ['keyPadding for the queries, not the context', { ...ok, context: [[1, 0], [0, 1]], keyPadding: [false, false, true] },
    'shape', 'keyPadding', undefined, undefined, undefined,
    'keyPadding has 3 values but there are 2 keys (context has 2 rows): keyPadding needs one true/false per key'],
  ['causal that is not a boolean', { ...T, causal: 'yes' }, 'not_boolean', 'causal', undefined, undefined,
    undefined, 'causal must be true or false, got the string "yes"'],
  ['scaleBySqrtDk that is not a boolean', { ...T, scaleBySqrtDk: 0 }, 'not_boolean', 'scaleBySqrtDk', undefined,
    undefined, undefined, 'scaleBySqrtDk must be true or false, got number 0'],
  ['positionalEncoding that is not a boolean', { ...T, positionalEncoding: null }, 'not_boolean',
    'positionalEncoding', undefined, undefined, undefined, 'positionalEncoding must be true or false, got null'],
  ['a temperature string', { ...T, temperature: '2' }, 'not_number', 'temperature', undefined, undefined,
    undefined, 'temperature must be a number > 0, got the string "2"'],
  ['a NaN temperature', { ...T, temperature: NaN }, 'not_finite', 'temperature', undefined, undefined,
    undefined, 'temperature is NaN: it must be a finite number > 0'],
  ['an infinite temperature', { ...T, temperature: Infinity }, 'not_finite', 'temperature', undefined,
    undefined, undefined, 'temperature is Infinity: it must be a finite number > 0'],
  ['a zero temperature', { ...T, temperature: 0 }, 'range', 'temperature', undefined, undefined, undefined,
    'temperature is 0: it must be > 0 (the scaled scores are divided by it)'],
  ['a negative temperature', { ...T, temperature: -0.5 }, 'range', 'temperature', undefined, undefined,
    undefined, 'temperature is -0.5: it must be > 0 (the scaled scores are divided by it)'],
  ['scores of one head that overflow', { x: [[1e150]], heads: [{ wq: [[1]], wk: [[1]], wv: [[1]] },
    { wq: [[1e10]], wk: [[1e10]], wv: [[1]] }] }, 'overflow', 'scores', 1, 0, 0,
  'heads[1].scores[0][0] is Infinity: the inputs are too large for float64 (products overflow); use smaller values'],
  ['scaled scores that overflow from a tiny temperature', { x: [[1e100]], wq: [[1]], wk: [[1]], wv: [[1]],
    temperature: 1e-200 }, 'overflow', 'scaled', undefined, 0, 0,
  'scaled[0][0] is Infinity: the inputs are too large for float64 (products overflow); use smaller values'],
  ['an output projection that overflows', { x: [[1]], heads: [{ wq: [[1]], wk: [[1]], wv: [[1e300]] }],
    wo: [[1e300]] }, 'overflow', 'output', undefined, 0, 0,
  'output[0][0] is Infinity: the inputs are too large for float64 (products overflow); use smaller values'],
  ['single-head form with options keeps single-head names', { ...T, wk: [[0.4, 0.3, 1], [0.2, 0.7, 1]], causal: true },
    'shape', 'wk', undefined, undefined, undefined,
    'wk has 3 columns but wq has 2: queries and keys must have the same length d_k (wq is 2 × 2, wk is 2 × 3)'],
];

for (const [what, input, code, operand, head, row, column, message] of BAD_INPUTS) {
  test(`bad input: ${what} throws an Error saying so, and the engine still works`, () => {
    assertInputError(() => engine.compute(input), { message, code, operand, head, row, column });
    assertTutorial(engine.compute(T));
    assertTutorial(engine.compute(ok).heads[1]);
  });
}

test('repeated multi-head computes with every option do not grow wasm memory', () => {
  const rand = (rows, cols, seed) =>
    Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => Math.sin(seed + i * 31 + j * 7)));
  const input = {
    x: rand(24, 32, 1),
    context: rand(40, 16, 2),
    heads: Array.from({ length: 4 }, (_, h) => ({ wq: rand(32, 8, 3 + h), wk: rand(16, 8, 9 + h), wv: rand(16, 8, 17 + h) })),
    wo: rand(32, 32, 5),
    causal: true,
    keyPadding: Array.from({ length: 40 }, (_, j) => j % 7 === 6),
    temperature: 0.7,
    positionalEncoding: true,
  };
  for (let i = 0; i < 5; i++) engine.compute(input);
  const before = engine.memoryBytes();
  for (let i = 0; i < 300; i++) {
    engine.compute(input);
    assert.throws(() => engine.compute({ ...input, temperature: 0 }));
  }
  assert.equal(engine.memoryBytes(), before);
});
