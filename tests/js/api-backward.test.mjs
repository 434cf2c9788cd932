// engine.backward() of the JS API (dist/attention-engine.js) under node: every variant against
// PyTorch autograd (tests/fixtures/backward_cases.txt, tests/make_grad_fixtures.py), both input
// forms, the typed form's bits, the masks' exact zeros, every bad gradient, inputs left
// untouched and wasm memory that does not grow.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  RESULTS,
  TUTORIAL,
  assertInputError,
  createAttentionEngine,
  loadBackwardCases,
  relativeDiff,
} from './fixtures.mjs';

const engine = await createAttentionEngine();
const cases = loadBackwardCases();
const tutorial = cases.find((c) => c.name === 'tutorial');
const G = tutorial.G; // torch's gradient for the tutorial's 3 × 2 output

// Asserts got ≈ torch's d.<name> within 1e-8 (|a − b| / max(1, |b|)); returns the difference.
function compare(got, c, name) {
  const want = c[`d.${name}`];
  assert.ok(want, `${c.name}: torch has d.${name}`);
  const diff = relativeDiff(got, want);
  assert.ok(diff <= 1e-8, `${c.name} d.${name}: ${diff}`);
  return diff;
}

const sortedKeys = (o) => Object.keys(o).sort();

test('every variant agrees with PyTorch autograd within 1e-8 (heads form)', (t) => {
  assert.ok(cases.length >= 20);
  let worst = 0;
  for (const c of cases) {
    const g = engine.backward(c.input, { output: c.G });
    const note = (d) => { worst = Math.max(worst, d); };
    // exactly the input's structure, and compute()'s, nothing else
    const inputKeys = ['heads', 'temperature', 'x', ...(c.wo ? ['wo'] : []), ...(c.context ? ['context'] : [])];
    assert.deepEqual(sortedKeys(g.input), inputKeys.sort(), c.name);
    const resultKeys = ['concat', 'heads', 'output'];
    if (c.input.positionalEncoding) resultKeys.push('xWithPe', ...(c.context ? ['contextWithPe'] : []));
    assert.deepEqual(sortedKeys(g.result), resultKeys.sort(), c.name);

    note(compare(g.input.x, c, 'x'));
    if (c.context) note(compare(g.input.context, c, 'context'));
    if (c.wo) note(compare(g.input.wo, c, 'wo'));
    note(compare([[g.input.temperature]], c, 'temperature'));
    g.input.heads.forEach((head, h) => {
      assert.deepEqual(sortedKeys(head), ['wk', 'wq', 'wv']);
      for (const name of ['wq', 'wk', 'wv']) note(compare(head[name], c, `h${h}.${name}`));
    });
    g.result.heads.forEach((head, h) => {
      assert.deepEqual(sortedKeys(head), [...RESULTS].sort());
      for (const name of RESULTS) note(compare(head[name], c, `h${h}.${name}`));
    });
    note(compare(g.result.concat, c, 'concat'));
    note(compare(g.result.output, c, 'output'));
    if (c.input.positionalEncoding) {
      note(compare(g.result.xWithPe, c, 'xWithPe'));
      if (c.context) note(compare(g.result.contextWithPe, c, 'contextWithPe'));
    }
  }
  t.diagnostic(`worst |engine - torch| / max(1, |torch|) over ${cases.length} cases: ${worst.toExponential(2)}`);
});

test('one-head cases give the same through the one-head form, in its structure', () => {
  const oneHead = cases.filter((c) => c.options.heads === 1 && !c.wo);
  assert.ok(oneHead.length >= 10);
  for (const c of oneHead) {
    const { heads, ...options } = c.input;
    const g = engine.backward({ ...options, ...heads[0] }, { output: c.G });
    const inputKeys = ['temperature', 'wk', 'wq', 'wv', 'x', ...(c.context ? ['context'] : [])];
    assert.deepEqual(sortedKeys(g.input), inputKeys.sort(), c.name);
    const resultKeys = [...RESULTS];
    if (c.input.positionalEncoding) resultKeys.push('xWithPe', ...(c.context ? ['contextWithPe'] : []));
    assert.deepEqual(sortedKeys(g.result), resultKeys.sort(), c.name);
    for (const name of ['wq', 'wk', 'wv']) compare(g.input[name], c, `h0.${name}`);
    compare(g.input.x, c, 'x');
    if (c.context) compare(g.input.context, c, 'context');
    compare([[g.input.temperature]], c, 'temperature');
    for (const name of RESULTS) compare(g.result[name], c, `h0.${name}`);
  }
});

test('the typed form gives the same bits as arrays of rows', () => {
  for (const c of cases.filter((v) => v.name.startsWith('everything') || v.name.startsWith('cross_pe'))) {
    const rows = engine.backward(c.input, { output: c.G });
    const typed = engine.backward(c.input, { output: c.G.map((r) => Float64Array.from(r)) }, { typed: true });
    const same = (m, t) => {
      assert.equal(t.rows, m.length);
      assert.equal(t.cols, m[0].length);
      assert.ok(t.data instanceof Float64Array);
      assert.deepEqual(Array.from(t.data), m.flat());
    };
    same(rows.input.x, typed.input.x);
    same(rows.input.context, typed.input.context);
    same(rows.input.wo, typed.input.wo);
    assert.equal(typed.input.temperature, rows.input.temperature);
    rows.input.heads.forEach((head, h) => {
      for (const name of ['wq', 'wk', 'wv']) same(head[name], typed.input.heads[h][name]);
    });
    rows.result.heads.forEach((head, h) => {
      for (const name of RESULTS) same(head[name], typed.result.heads[h][name]);
    });
    same(rows.result.concat, typed.result.concat);
    same(rows.result.output, typed.result.output);
    same(rows.result.xWithPe, typed.result.xWithPe);
    same(rows.result.contextWithPe, typed.result.contextWithPe);
  }
});

test('masked cells of scaled and scores are exactly 0; weights keep dL/dweights; output is G', () => {
  const c = cases.find((v) => v.name === 'causal_padding_first_two_rows_fully_masked');
  const masked = engine.compute(c.input).masked;
  const g = engine.backward(c.input, { output: c.G });
  let maskedWeights = 0;
  for (const head of g.result.heads) {
    masked.forEach((row, i) => row.forEach((hidden, j) => {
      if (!hidden) return;
      assert.ok(Object.is(head.scaled[i][j], 0), `scaled[${i}][${j}] = ${head.scaled[i][j]}`);
      assert.ok(Object.is(head.scores[i][j], 0), `scores[${i}][${j}]`);
      if (head.weights[i][j] !== 0) maskedWeights++;
    }));
  }
  assert.ok(maskedWeights > 0, 'masked weights have their true, nonzero gradient');
  assert.deepEqual(g.result.output, c.G);
  // without W_O the concatenation's gradient is the output's
  const noWo = cases.find((v) => v.name === 'heads3_n4_dm6_causal_nowo');
  assert.deepEqual(engine.backward(noWo.input, { output: noWo.G }).result.concat, noWo.G);
});

test('every bad gradient throws an Error with its code, row and column; the engine goes on', () => {
  const expectGood = () => compare(engine.backward(TUTORIAL, { output: G }).input.wq, tutorial, 'h0.wq');
  const bad = [
    [undefined, { code: 'not_matrix', operand: 'output', message: 'backward() takes the gradient as its second argument, { output: G } (G = dL/doutput, the shape of the output), { weights: S } (S = dL/dweights), both, or { loss, target }, got undefined undefined' }],
    [G, { code: 'not_matrix', operand: 'output' }],
    [{}, { code: 'not_matrix', operand: 'output', message: 'backward() needs { output: G } (G = dL/doutput, the shape of the output), { weights: S } (S = dL/dweights), both, or { loss, target }; output and weights are missing' }],
    [{ output: 'G' }, { code: 'not_matrix', operand: 'output', message: 'output must be an array of rows (arrays of numbers), got the string "G"' }],
    [{ output: [[1, 2], 3, [4, 5]] }, { code: 'not_matrix', operand: 'output', row: 1 }],
    [{ output: [] }, { code: 'empty', operand: 'output', message: 'output is empty: it needs at least one row of numbers' }],
    [{ output: [[1, 2], [1, 2, 3], [1, 2]] }, { code: 'ragged', operand: 'output', row: 1, message: 'output[1] has 3 values but output[0] has 2: every row of output must have the same length' }],
    [{ output: [[1, 2], [1, 2]] }, { code: 'shape', operand: 'output', row: 2, column: undefined, message: "output is 2 × 2 but the gradient must have the output's shape 3 × 2 (n_q × d_v)" }],
    [{ output: [[1, 2, 3], [1, 2, 3], [1, 2, 3]] }, { code: 'shape', operand: 'output', row: undefined, column: 2 }],
    [{ output: [[1, 2], [1, '2'], [1, 2]] }, { code: 'not_number', operand: 'output', row: 1, column: 1, message: 'output[1][1] is the string "2": every value must be a number' }],
    [{ output: [[1, 2], [1, 2], [null, 2]] }, { code: 'not_number', operand: 'output', row: 2, column: 0 }],
    [{ output: [[1, 2], [1, NaN], [1, 2]] }, { code: 'not_finite', operand: 'output', row: 1, column: 1, message: 'output[1][1] is NaN: every value must be a finite number' }],
    [{ output: [[1, 2], [1, 2], [-Infinity, 2]] }, { code: 'not_finite', operand: 'output', row: 2, column: 0 }],
    [{ output: G, outptu: G }, { code: 'unknown_option', operand: 'outptu' }],
  ];
  for (const [gradient, expected] of bad) {
    assertInputError(() => engine.backward(TUTORIAL, gradient), expected);
    expectGood();
  }
  assertInputError(() => engine.backward(TUTORIAL, { output: G }, { typed: 1 }), { code: 'unknown_option', operand: 'format' });
});

test('a gradient that overflows float64 is an overflow error naming the step', () => {
  const huge = G.map((row) => row.map((v) => v * 1e307));
  assertInputError(() => engine.backward({ ...TUTORIAL, wv: [[8e300, 1e300], [3e300, 9e300]] }, { output: huge }), {
    code: 'overflow',
    operand: 'weights',
    head: undefined,
    row: 0,
    column: 0,
  });
  const heads = { x: TUTORIAL.x, heads: [{ wq: TUTORIAL.wq, wk: TUTORIAL.wk, wv: TUTORIAL.wv }], wo: [[1e10, 0], [0, 1]] };
  assertInputError(() => engine.backward(heads, { output: huge }), { code: 'overflow', operand: 'concat', head: undefined });
  engine.backward(TUTORIAL, { output: G });
});

test('an input that compute() rejects is rejected by backward() with the same Error', () => {
  const inputs = [
    null,
    { ...TUTORIAL, wq: [[1, 2, 3]] },
    { ...TUTORIAL, casual: true },
    { ...TUTORIAL, temperature: 0 },
    { ...TUTORIAL, keyPadding: [true] },
    { ...TUTORIAL, causal: 'yes' },
    { ...TUTORIAL, wo: [[1]] },
    { x: TUTORIAL.x, heads: [{ wq: TUTORIAL.wq, wk: [[1, 2]], wv: TUTORIAL.wv }] },
    { ...TUTORIAL, x: [[1, Infinity], [0, 1], [1, 0]] },
    { ...TUTORIAL, x: Array.from({ length: 4097 }, () => [1, 0]) },
    { x: TUTORIAL.x, wq: TUTORIAL.wq, wk: TUTORIAL.wk },
  ];
  for (const input of inputs) {
    let want;
    try {
      engine.compute(input);
    } catch (error) {
      want = error;
    }
    assert.ok(want, 'compute() rejects it');
    const { message, code, operand, row, column, head } = want;
    const same = { message: message.replace('compute()', 'backward()'), code, operand, row, column, head };
    assertInputError(() => engine.backward(input, { output: G }), same);
  }
});

test('neither the input nor G is modified, and wasm memory does not grow over repeated calls', () => {
  const c = cases.find((v) => v.name === 'everything_cross_heads4');
  const input = structuredClone(c.input);
  input.x = input.x.map((row) => Float64Array.from(row)); // rows may be Float64Arrays
  const gradient = { output: c.G.map((row) => Float64Array.from(row)) };
  const before = structuredClone({ input, gradient });
  for (let i = 0; i < 5; i++) engine.backward(input, gradient, { typed: true });
  const bytes = engine.memoryBytes();
  for (let i = 0; i < 300; i++) {
    engine.backward(input, gradient);
    engine.backward(input, gradient, { typed: true });
    assert.throws(() => engine.backward(input, { output: [[1]] }));
  }
  assert.equal(engine.memoryBytes(), bytes);
  assert.deepEqual({ input, gradient }, before);
});

test('n = 512, d = 64: backward of a larger input matches its finite differences', () => {
  // one head at the bench's size; L = Σ G ⊙ output, central differences on a few cells of W_Q
  const n = 512;
  const d = 64;
  const fill = (rows, cols, seed) => Array.from({ length: rows }, (_, i) => Array.from({ length: cols }, (_, j) => Math.sin(seed + 0.37 * i + 1.91 * j) / Math.sqrt(cols)));
  const input = { x: fill(n, d, 1), wq: fill(d, d, 2), wk: fill(d, d, 3), wv: fill(d, d, 4), causal: true };
  const g = fill(n, d, 5);
  const grads = engine.backward(input, { output: g }, { typed: true });
  const loss = (inp) => {
    const { data } = engine.compute(inp, { typed: true }).output;
    let sum = 0;
    for (let i = 0; i < data.length; i++) sum += data[i] * g[Math.floor(i / d)][i % d];
    return sum;
  };
  for (const [i, j] of [[0, 0], [17, 42], [63, 63]]) {
    const h = 1e-5;
    const at = (delta) => loss({ ...input, wq: input.wq.map((row, r) => (r === i ? row.map((v, c) => (c === j ? v + delta : v)) : row)) });
    const fd = (at(h) - at(-h)) / (2 * h);
    const analytic = grads.input.wq.data[i * d + j];
    assert.ok(Math.abs(fd - analytic) <= 1e-6 * Math.max(1, Math.abs(analytic)), `wq[${i}][${j}]: ${fd} vs ${analytic}`);
  }
});
