import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mulberry32, randomInputs, randomInputPieces, randomStream, randomStreamPieces, streamSeed, STREAM_CONTEXT } from '../../web/src/io/random.js';

test('mulberry32 gives the known sequence for seed 1', () => {
  const next = mulberry32(1);
  // what the widely copied one-line mulberry32 (a += 0x6D2B79F5; ...) gives for seed 1
  assert.deepEqual([next(), next(), next()].map((v) => v.toFixed(10)), ['0.6270739406', '0.0027357212', '0.5274470400']);
});

test('the same seed gives the same inputs, another seed others', () => {
  const dims = { dModel: 3, dk: 2, dv: 4 };
  const a = randomInputs(42, 5, dims);
  assert.deepEqual(a, randomInputs(42, 5, dims));
  assert.notDeepEqual(a, randomInputs(43, 5, dims));
  assert.equal(a.x.length, 5);
  assert.equal(a.wv[0].length, 4);
  for (const m of Object.values(a)) {
    for (const row of m) for (const v of row) assert.ok(v >= -1 && v <= 1 && Math.abs(v * 100 - Math.round(v * 100)) < 1e-9 && !Object.is(v, -0));
  }
});

test('drawn in pieces, the matrices are the same numbers as drawn whole', () => {
  const dims = { dModel: 5, dk: 3, dv: 4 };
  const whole = randomInputs(7, 37, dims, 6);
  for (const step of [1, 2, 5, 36, 37, 100]) {
    const pieces = { x: [], wq: [], wk: [], wv: [] };
    for (const [field, piece] of randomInputPieces(7, 37, dims, 6, step)) {
      assert.ok(piece.length >= 1 && piece.length <= step);
      pieces[field].push(...piece);
    }
    assert.deepEqual(pieces, whole);
    assert.deepEqual([...randomStreamPieces(7, STREAM_CONTEXT, 37, 5, step)].flat(1), randomStream(7, STREAM_CONTEXT, 37, 5));
  }
  // the stream's first numbers, as mulberry32 from the stream's seed gives them
  const next = mulberry32(streamSeed(7, STREAM_CONTEXT));
  assert.deepEqual(randomStream(7, STREAM_CONTEXT, 1, 3)[0], [next(), next(), next()].map((v) => Math.round((v * 2 - 1) * 100) / 100 + 0));
});
