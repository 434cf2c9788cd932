// The page's view of the engine's typed results (web/src/engine/rows.js: rows that are views into one
// typed array, made when first read) and its yield between slices of long work (dom.js nextTask).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultRowViews, flatData } from '../../web/src/engine/rows.js';
import { rowsOf } from '../../web/src/engine/updates.js';
import { nextTask } from '../../web/src/ui/dom.js';

// A typed matrix {rows, cols, data} of the given rows (row-major Float64Array).
const typed = (rows) => ({ rows: rows.length, cols: rows[0].length, data: Float64Array.from(rows.flat()) });

test('resultRowViews: each matrix reads as rows that are views of its one array, made once, on the first read', () => {
  const weights = typed([[0.25, 0.75], [1, 0]]);
  const output = typed([[1, 2], [3, 4]]);
  const fullyMasked = Uint8Array.of(0, 1);
  const result = resultRowViews({ heads: [{ weights, output }], output, fullyMasked, concat: null });

  assert.deepEqual(Object.keys(result), ['heads', 'output', 'fullyMasked', 'concat']);
  assert.deepEqual(Object.keys(result.heads[0]), ['weights', 'output']);
  const rows = result.heads[0].weights;
  assert.equal(rows.length, 2);
  assert.deepEqual(rows.map((row) => Array.from(row)), [[0.25, 0.75], [1, 0]]);
  assert.ok(rows.every((row) => row.buffer === weights.data.buffer), 'views, not copies');
  assert.equal(result.heads[0].weights, rows, 'the same rows on every read');
  assert.equal(flatData(rows).buffer, weights.data.buffer, 'the heatmaps read the one array');
  // a matrix met twice (the one head's output is the result's) has the same rows
  assert.equal(result.heads[0].output, result.output);
  assert.equal(result.fullyMasked, fullyMasked);
  assert.equal(result.concat, null);
  // a view shows the engine's numbers: a change to the array is seen through the rows
  weights.data[1] = 0.5;
  assert.equal(rows[0][1], 0.5);
  // written before it was read, a matrix is what was written
  const other = resultRowViews({ weights: typed([[1]]) });
  other.weights = [[7]];
  assert.deepEqual(other.weights, [[7]]);
  assert.deepEqual({ ...resultRowViews({ q: typed([[2, 3]]) }) }.q.map((row) => Array.from(row)), [[2, 3]], 'spread reads it too');
});

test('rowsOf: a single head\'s typed result in the heads form, its matrices rows of views', () => {
  const head = { q: typed([[1]]), k: typed([[2]]), v: typed([[3]]), scores: typed([[4]]), scaled: typed([[5]]), weights: typed([[1]]), output: typed([[6]]) };
  const result = rowsOf({ ...head, masked: null, fullyMasked: null });
  assert.equal(result.heads.length, 1);
  for (const [key, value] of Object.entries(head)) assert.deepEqual(result.heads[0][key].map((row) => Array.from(row)), [Array.from(value.data)], key);
  assert.equal(result.heads[0].output, result.output);
  assert.equal(result.concat, null);
  assert.equal(result.masked, null);
});

test('nextTask: settles in a later task, in the order asked', async () => {
  const order = [];
  const tasks = [1, 2, 3].map((n) => nextTask().then(() => order.push(n)));
  await Promise.resolve();
  assert.deepEqual(order, [], 'not in this task');
  await Promise.all(tasks);
  assert.deepEqual(order, [1, 2, 3]);
  await nextTask(); // and again once the queue was empty
});
