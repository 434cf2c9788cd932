// "How it learns", from scratch (web/src/state/induction.js, learninduction.js): the page's
// generator and initial weights are the script's (scripts/train-models.mjs, which imports them
// now), its chunks draw the same sequences as the script's one call, the model sent to the worker
// holds the same numbers, and the stop rule stops where it says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { INDUCTION, inductionStart, inductionData, inductionHeldOut } from '../../web/src/state/induction.js';
import { INDUCTION_RUN, inductionStop, curvePoints, recentLoss, bestHead, packedModel, chunkOptions } from '../../web/src/state/learninduction.js';
import { loadEngine, trainInduction } from '../../scripts/train-models.mjs';

const sha = (value) => createHash('sha256').update(JSON.stringify(value)).digest('hex');

// sha256 of JSON.stringify of the script's trainInduction(engine, { steps: 1 }) init, batches
// (all 10 000) and heldOut, taken from scripts/train-models.mjs at 74a5c46, before its generator
// moved to web/src/state/induction.js (node -e: JSON.stringify of each, hashed).
const SCRIPT_DIGESTS = {
  init: '25d7f200ab2cea8fb3e8c3f58a3402238a41a93682af68e3d9843447bc7887f5',
  batches: '7d3bbfc8bacd872a060348d64c3a86764206b75487361bb59423d77f3d168205',
  heldOut: '945add75c28fa17a8fdfd762ab6eb07210d2ef7ff8edd8bb266f5bc4de157e9d',
};

test('the page draws the script\'s data: initial weights, every training sequence (in the page\'s chunks) and the held-out ones', () => {
  const { rand, init } = inductionStart();
  assert.equal(sha(init), SCRIPT_DIGESTS.init);
  const total = INDUCTION.phases[0].steps;
  const streamed = [];
  for (let at = 0; at < total; at += INDUCTION_RUN.chunk) streamed.push(...inductionData(rand, Math.min(INDUCTION_RUN.chunk, total - at)));
  assert.equal(sha(streamed), SCRIPT_DIGESTS.batches);
  assert.equal(sha(inductionHeldOut()), SCRIPT_DIGESTS.heldOut);
});

test('the script trains from the same start and sequences as the page (one source)', async () => {
  const engine = await loadEngine();
  const script = trainInduction(engine, { steps: 1 });
  const { rand, init } = inductionStart();
  assert.deepEqual(script.init, init);
  assert.deepEqual(script.batches.slice(0, 3 * INDUCTION_RUN.chunk), inductionData(rand, 3 * INDUCTION_RUN.chunk));
});

test('the model the page sends to the worker (packedModel) has the same numbers: runModel and trainModel give the same bits', async () => {
  const engine = await loadEngine();
  const { rand, init } = inductionStart();
  const packed = packedModel(init);
  assert.ok(ArrayBuffer.isView(packed.layers[1].heads[0].wq[3]) && packed.layers[1].heads[0].wq[3].buffer === packed.embed[0].buffer, 'one buffer');
  assert.deepEqual(packed.layers[0].heads[1].wk.map((row) => Array.from(row)), init.layers[0].heads[1].wk);
  const batches = inductionData(rand, 5).map(({ ids, targets }) => ({ ids, targets }));
  assert.deepEqual(engine.trainModel(packed, { batches, learningRate: 2e-3 }).losses, engine.trainModel(init, { batches, learningRate: 2e-3 }).losses);
  const ids = batches[0].ids;
  assert.deepEqual(engine.runModel(packed, ids).layers[1].attention.heads[0].weights, engine.runModel(init, ids).layers[1].attention.heads[0].weights);
});

// as JSON, rows of numbers (a packed model's rows are Float64Array views)
const asArrays = (model) => JSON.parse(JSON.stringify(model, (_, v) => (ArrayBuffer.isView(v) ? Array.from(v) : v)));

test('the live run, in the page\'s chunks with Adam\'s state carried, is the script\'s one call: at step N the same losses and parameters, bit for bit', async () => {
  const engine = await loadEngine();
  const chunks = 3;
  const steps = chunks * INDUCTION_RUN.chunk;
  const script = trainInduction(engine, { steps });
  // the page's loop (views/learninduction.js run()): a chunk's sequences, one trainModel call,
  // the model packed for the worker, the state passed on
  const { rand, init } = inductionStart();
  let model = packedModel(init);
  let state;
  const losses = [];
  for (let k = 0; k < chunks; k++) {
    const batches = inductionData(rand, INDUCTION_RUN.chunk).map(({ ids, targets }) => ({ ids, targets }));
    const r = engine.trainModel(model, chunkOptions(batches, state));
    model = packedModel(r.model);
    state = r.state;
    losses.push(...r.losses);
  }
  assert.equal(state.step, steps);
  assert.deepEqual(losses, script.losses);
  assert.deepEqual(asArrays(model), asArrays(script.model));
});

// scores of a 2 × 2 model whose best prefix-matching score is `best`
const scoresWith = (best) => [[{ induction: 0.1, previous: 0.5 }, { induction: 0.05, previous: 0.1 }], [{ induction: best, previous: 0.05 }, { induction: 0.02, previous: 0.1 }]];

test('the stop rule: nothing before 2 windows; a plateau without the goal; converged with it once the loss stops falling; the cap', () => {
  const { window, patience, maxSteps } = INDUCTION_RUN;
  const flat = (n, v = 3) => new Array(n).fill(v);
  assert.equal(inductionStop(flat(2 * window - 1), scoresWith(0.9)), null);
  assert.equal(inductionStop(flat(2 * window), scoresWith(0.9)), 'converged');
  // no goal: a plateau only after `patience` steps without a 1 % fall
  assert.equal(inductionStop(flat(2 * window), scoresWith(0.2)), null);
  assert.equal(inductionStop(flat(window + patience), scoresWith(0.2)), 'plateau');
  // still falling 2 % a window (as before the phase change): go on, goal or not
  const falling = Array.from({ length: 4 * window }, (_, i) => 3 * 0.98 ** (i / window));
  assert.equal(inductionStop(falling, scoresWith(0.2)), null);
  assert.equal(inductionStop(falling, scoresWith(0.9)), null);
  assert.equal(inductionStop(Array.from({ length: maxSteps }, (_, i) => 3 - i / maxSteps), scoresWith(0.2)), 'cap');
  assert.deepEqual(bestHead(scoresWith(0.7)), { layer: 1, head: 0, induction: 0.7, previous: 0.05 });
});

test('the curve\'s points are the mean loss of each 50 steps; the status\'s loss the mean of the last window', () => {
  const losses = Array.from({ length: 120 }, (_, i) => i);
  assert.deepEqual(curvePoints(losses, 50), [{ step: 50, loss: 24.5 }, { step: 100, loss: 74.5 }]);
  assert.equal(recentLoss(losses, 120, 20), 109.5);
  assert.equal(recentLoss(losses.slice(0, 10), 10, 1000), 4.5);
});
