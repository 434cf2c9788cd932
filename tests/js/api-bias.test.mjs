// compute(), backward() and train() with biases (bq, bk, bv per head, bo with wo) against PyTorch's
// nn.MultiheadAttention(bias=True) in float64 (tests/fixtures/bias_cases.txt, written by
// tests/make_bias_fixtures.py), and the biases' errors.
import test from 'node:test';
import assert from 'node:assert/strict';
import { assertInputError, createAttentionEngine, loadBiasCases, relativeDiff } from './fixtures.mjs';

const cases = loadBiasCases();
const forward = cases.filter((c) => c.options.steps === undefined);
const training = cases.filter((c) => c.options.steps !== undefined);
const engine = await createAttentionEngine();
const row = (v) => [Array.from(v)];

test("compute() with biases gives nn.MultiheadAttention's per-head weights and attn_output to 1e-12", () => {
  let worst = 0;
  for (const c of forward) {
    const r = engine.compute(c.input);
    c.input.heads.forEach((_, h) => {
      for (const key of ['q', 'k', 'v', 'weights']) worst = Math.max(worst, relativeDiff(r.heads[h][key], c[`h${h}.${key}`]));
    });
    worst = Math.max(worst, relativeDiff(r.output, c.output));
  }
  assert.ok(worst <= 1e-12, `max relative difference ${worst}`);
  // the one-head form takes bq, bk, bv beside wq, wk, wv
  const one = forward.find((c) => c.name === 'one_head_tutorial');
  const { x, heads: [head] } = one.input;
  const r = engine.compute({ x, ...head });
  assert.ok(relativeDiff(r.output, one.output) <= 1e-12);
  assert.ok(relativeDiff(r.q, one['h0.q']) <= 1e-12);
  console.log(`compute with biases against torch: max relative difference ${worst}`);
});

test("backward() gives each bias's gradient (the column sums of its product's) as autograd does, to 1e-9", () => {
  let worst = 0;
  for (const c of forward) {
    const g = engine.backward(c.input, { output: c.G }).input;
    worst = Math.max(worst, relativeDiff(g.x, c['d.x']));
    if (c.context) worst = Math.max(worst, relativeDiff(g.context, c['d.context']));
    c.input.heads.forEach((head, h) => {
      for (const w of ['wq', 'wk', 'wv']) worst = Math.max(worst, relativeDiff(g.heads[h][w], c[`d.h${h}.${w}`]));
      for (const b of ['bq', 'bk', 'bv']) {
        if (head[b] === undefined) assert.equal(g.heads[h][b], undefined, `${c.name}: no ${b} given, none returned`);
        else worst = Math.max(worst, relativeDiff(row(g.heads[h][b]), c[`d.h${h}.${b}`]));
      }
    });
    if (c.wo) worst = Math.max(worst, relativeDiff(g.wo, c['d.wo']));
    if (c.bo) worst = Math.max(worst, relativeDiff(row(g.bo), c['d.bo']));
    else assert.equal(g.bo, undefined);
  }
  assert.ok(worst <= 1e-9, `max relative difference ${worst}`);
  // the typed form gives the biases' gradients as Float64Arrays
  const typed = engine.backward(forward[1].input, { output: forward[1].G }, { typed: true }).input;
  assert.ok(typed.heads[0].bq instanceof Float64Array && typed.bo instanceof Float64Array);
  console.log(`backward with biases against autograd: max relative difference ${worst}`);
});

test('train() trains each bias with its matrix, as torch.optim (SGD, Adam) does, to 1e-9; state goes on', () => {
  let worst = 0;
  for (const c of training) {
    const t = engine.train(c.input, c.trainOptions);
    worst = Math.max(worst, relativeDiff([t.losses], c.losses));
    c.input.heads.forEach((_, h) => {
      for (const w of ['wq', 'wk', 'wv']) worst = Math.max(worst, relativeDiff(t.input.heads[h][w], c[`final.h${h}.${w}`]));
      for (const b of ['bq', 'bk', 'bv']) worst = Math.max(worst, relativeDiff(row(t.input.heads[h][b]), c[`final.h${h}.${b}`]));
    });
    worst = Math.max(worst, relativeDiff(t.input.wo, c['final.wo']), relativeDiff(row(t.input.bo), c['final.bo']));
    assert.notDeepEqual(t.input.bo, c.input.bo, 'b_O trained');
    // the same steps in two calls, the state carrying Adam's moments of the biases too
    const first = engine.train(c.input, { ...c.trainOptions, steps: 2 });
    const rest = engine.train(first.input, { ...c.trainOptions, steps: c.trainOptions.steps - 2, state: first.state });
    assert.deepEqual(rest.input.heads, t.input.heads);
    assert.deepEqual(rest.input.bo, t.input.bo);
  }
  assert.ok(worst <= 1e-9, `max relative difference ${worst}`);
  // a bias of a matrix not trained stays the caller's own
  const c = training[0];
  const onlyQ = engine.train(c.input, { ...c.trainOptions, train: ['wq'] });
  assert.equal(onlyQ.input.heads[0].bk, c.input.heads[0].bk);
  assert.notDeepEqual(onlyQ.input.heads[0].bq, c.input.heads[0].bq);
  console.log(`train with biases against torch.optim: max relative difference ${worst}`);
});

test('a bad bias is an Error naming it, its head and its column', () => {
  const { input } = forward.find((c) => c.name === 'heads2_n4_dm6'); // d_k = d_v = 3, d_model = 6
  const withHead = (h, fields) => ({ ...input, heads: input.heads.map((head, i) => (i === h ? { ...head, ...fields } : head)) });
  assertInputError(() => engine.compute(withHead(1, { bq: [1, 2] })), {
    code: 'shape', operand: 'bq', head: 1, message: 'heads[1].bq has 2 values but must have 3 (d_k)',
  });
  assertInputError(() => engine.compute(withHead(0, { bv: 'x' })), { code: 'not_array', operand: 'bv', head: 0 });
  assertInputError(() => engine.compute(withHead(0, { bk: [] })), { code: 'empty', operand: 'bk', head: 0 });
  assertInputError(() => engine.compute(withHead(1, { bk: [0, '1', 2] })), { code: 'not_number', operand: 'bk', head: 1, column: 1 });
  assertInputError(() => engine.compute(withHead(1, { bq: [0, 1, NaN] })), {
    code: 'not_finite', operand: 'bq', head: 1, column: 2, message: 'heads[1].bq[2] is NaN: every value must be a finite number',
  });
  assertInputError(() => engine.compute({ ...input, bo: [1, 2] }), { code: 'shape', operand: 'bo', message: "bo has 2 values but must have 6 (d_model, the output's width)" });
  const noWo = { ...input };
  delete noWo.wo;
  assertInputError(() => engine.compute(noWo), { code: 'conflict', operand: 'bo' });
  assertInputError(() => engine.compute({ ...input, bq: [1, 2, 3] }), { code: 'conflict', operand: 'bq' });
  const one = forward.find((c) => c.name === 'one_head_tutorial').input;
  assertInputError(() => engine.compute({ x: one.x, ...one.heads[0], bq: [1] }), { code: 'shape', operand: 'bq', message: 'bq has 1 value but must have 2 (d_k)' });
  assertInputError(() => engine.compute({ x: one.x, ...one.heads[0], bo: [1, 2] }), { code: 'conflict', operand: 'bo' });
});
