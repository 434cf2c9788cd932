// updates.js ResultArrays: results computed on the page's thread are copied out
// of the engine's reused views into the arrays of earlier results no longer in
// use, never into those of a live result or of one an export holds.
// WorkerResults: the worker's results go back to it under the same rule.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ResultArrays, WorkerResults } from '../../web/src/engine/updates.js';
import { holdRows } from '../../web/src/engine/rows.js';

// The engine's single-head typed form of an n × n attention with d = 2: every matrix
// filled with `value` (the views are overwritten by the next call, as the engine's are).
function views(n, value, { causal = false } = {}) {
  const matrix = (rows, cols) => ({ rows, cols, data: new Float64Array(rows * cols).fill(value) });
  const result = {
    q: matrix(n, 2), k: matrix(n, 2), v: matrix(n, 2), scores: matrix(n, n), scaled: matrix(n, n), weights: matrix(n, n), output: matrix(n, 2),
  };
  if (causal) Object.assign(result, { masked: { rows: n, cols: n, data: new Uint8Array(n * n).fill(1) }, fullyMasked: new Uint8Array(n) });
  return result;
}
const buffers = (result) => new Set(['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'].map((key) => result.heads[0][key][0].buffer));
const values = (result) => [...result.heads[0].weights[0], result.output[1][1], result.heads[0].q[0][0]];

test('a copy has the views\' values and keeps them when the views are overwritten', () => {
  const arrays = new ResultArrays();
  const engine = views(3, 0.5, { causal: true });
  const result = arrays.resultOf(engine, []);
  engine.weights.data.fill(9);
  engine.masked.data.fill(0);
  assert.deepEqual(values(result), [0.5, 0.5, 0.5, 0.5, 0.5]);
  assert.deepEqual([...result.masked[2]], [1, 1, 1]);
  assert.deepEqual([...result.fullyMasked], [0, 0, 0]);
  assert.equal(result.heads[0].output, result.output, 'the one head\'s output is the result\'s');
});

test('the arrays of a result no longer live are written again; those of live results never', () => {
  const arrays = new ResultArrays();
  const first = arrays.resultOf(views(4, 1), []);
  const second = arrays.resultOf(views(4, 2), [first]);
  assert.equal([...buffers(second)].some((b) => buffers(first).has(b)), false, 'a live result\'s arrays are not taken');
  const third = arrays.resultOf(views(4, 3), [second]);
  assert.deepEqual(buffers(third), buffers(first), 'the first result\'s arrays, all seven, are written again');
  assert.deepEqual(values(second), [2, 2, 2, 2, 2, 2], 'the live one keeps its values');
  assert.deepEqual(values(third), [3, 3, 3, 3, 3, 3]);
  // two live results (a result and its Before), and the new result while its Before is computed
  const fourth = arrays.resultOf(views(4, 4), [second, third]);
  const before = arrays.resultOf(views(4, 5), [second, third, fourth]);
  for (const [name, result, expected] of [['second', second, 2], ['third', third, 3], ['fourth', fourth, 4], ['before', before, 5]]) {
    assert.deepEqual(values(result), Array(6).fill(expected), `${name} keeps its values`);
  }
  assert.equal(new Set([second, third, fourth, before].flatMap((r) => [...buffers(r)])).size, 28, 'four results, 28 arrays of their own');
});

test('arrays of other lengths are not taken: a new size gets fresh arrays', () => {
  const arrays = new ResultArrays();
  const small = arrays.resultOf(views(3, 1), []);
  arrays.resultOf(views(3, 2), [small]);
  const larger = arrays.resultOf(views(5, 3), []);
  assert.equal([...buffers(larger)].some((b) => buffers(small).has(b)), false);
  assert.deepEqual(values(larger), [3, 3, 3, 3, 3, 3, 3]);
});

test('an export\'s held matrix keeps its result\'s arrays until released', () => {
  const arrays = new ResultArrays();
  const exported = arrays.resultOf(views(4, 1), []);
  const release = holdRows(exported.heads[0].weights);
  const next = arrays.resultOf(views(4, 2), [exported]);
  const meanwhile = arrays.resultOf(views(4, 3), [next]);
  assert.deepEqual(values(exported), [1, 1, 1, 1, 1, 1], 'held: not written');
  assert.equal([...buffers(meanwhile)].some((b) => buffers(exported).has(b)), false);
  release();
  release(); // a second call changes nothing
  const after = arrays.resultOf(views(4, 4), [meanwhile]);
  assert.ok([...buffers(after)].some((b) => buffers(exported).has(b) || buffers(next).has(b)), 'released: written again');
  assert.deepEqual(values(meanwhile), [3, 3, 3, 3, 3, 3]);
});

test('a result with a side over 512 (a heatmap painted in slices) keeps its arrays', () => {
  const arrays = new ResultArrays();
  const large = arrays.resultOf(views(513, 1), []);
  arrays.resultOf(views(513, 2), []);
  const third = arrays.resultOf(views(513, 3), []);
  assert.equal([...buffers(third)].some((b) => buffers(large).has(b)), false);
  assert.equal(large.heads[0].weights[512][512], 1);
});

test('the worker\'s results go back to it once neither live nor held, each once; with no worker they are forgotten', () => {
  const given = [];
  const worker = { recycle: (typed) => given.push(typed) };
  const results = new WorkerResults();
  const [typedA, typedB, typedC] = [views(4, 1), views(4, 2), views(4, 3, { causal: true })];
  const a = results.rowsOf(typedA);
  const b = results.rowsOf(typedB);
  const c = results.rowsOf(typedC);
  assert.equal(a.heads[0].weights[1][2], 1, 'row views of the typed result');
  const release = holdRows(b.heads[0].weights); // a heatmap of b still painting
  results.giveBack(worker, [c]);
  assert.deepEqual(given, [typedA], 'b is held, c live');
  results.giveBack(worker, [c]);
  assert.deepEqual(given, [typedA], 'a given once');
  release();
  results.giveBack(worker, [c]);
  assert.deepEqual(given, [typedA, typedB], 'b once released');
  results.giveBack(null, []); // the worker broke: c is garbage now, not given
  results.giveBack(worker, []);
  assert.deepEqual(given, [typedA, typedB]);
});
