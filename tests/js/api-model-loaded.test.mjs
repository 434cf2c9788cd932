// engine.loadModel(): a model read and checked once, then used by runModel, modelGradients and
// trainModel without being copied in again. Its results must be the plain model's, bit for bit
// (the PyTorch agreement itself is api-model.test.mjs's); its lifetime is release().
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { assertInputError, createAttentionEngine, loadModelCases } from './fixtures.mjs';

const engine = await createAttentionEngine();
const cases = loadModelCases();

test('a loaded model gives the plain model\'s runModel, modelGradients and trainModel, bit for bit', () => {
  for (const c of cases) {
    const loaded = engine.loadModel(c.model);
    assert.deepEqual(engine.runModel(loaded, c.ids), engine.runModel(c.model, c.ids), c.name);
    assert.deepEqual(engine.runModel(loaded, c.ids, { typed: true }), engine.runModel(c.model, c.ids, { typed: true }), c.name);
    assert.deepEqual(engine.modelGradients(loaded, c.ids, c.targets), engine.modelGradients(c.model, c.ids, c.targets), c.name);
    if (c.trainOptions) {
      const plain = engine.trainModel(c.model, c.trainOptions);
      const fromLoaded = engine.trainModel(loaded, c.trainOptions);
      assert.deepEqual(fromLoaded.losses, plain.losses, c.name);
      // the trained model comes back loaded; as an object it is the plain call's model
      assert.deepEqual(fromLoaded.model.toModel(), plain.model, c.name);
      assert.deepEqual(engine.runModel(fromLoaded.model, c.ids), engine.runModel(plain.model, c.ids), c.name);
      fromLoaded.model.release();
    }
    // as an object again, metadata and all: the model it was loaded from
    assert.deepEqual(loaded.toModel(), c.model, c.name);
    loaded.release();
  }
});

test('a loaded model keeps its headsOff, and no later change of the object reaches it', () => {
  const c = cases[1]; // one layer, two heads
  const model = structuredClone(c.model);
  const loaded = engine.loadModel(model);
  const off = [{ layer: 0, head: 1 }];
  const want = engine.runModel(c.model, c.ids, { headsOff: off });
  model.layers[0].heads[0].wq[0][0] += 1; // the object changes; the loaded copy does not
  model.name = 'changed';
  assert.deepEqual(engine.runModel(loaded, c.ids, { headsOff: off }), want);
  assert.equal(loaded.toModel().name, c.model.name);
  assertInputError(() => engine.runModel(loaded, c.ids, { headsOff: [{ layer: 0, head: 2 }] }), { code: 'range', layer: 0 });
  loaded.release();
});

test('loadModel refuses a bad model as runModel does, and a released model is an error', () => {
  const c = cases[0];
  const bad = { ...c.model, embed: c.model.embed.slice(1) };
  assertInputError(() => engine.loadModel(bad), { code: 'shape', path: 'embed' });
  const loaded = engine.loadModel(c.model);
  loaded.release();
  loaded.release(); // twice is harmless
  const released = { code: 'released', operand: 'model', message: 'this loaded model was released: load the model again (engine.loadModel)' };
  assertInputError(() => engine.runModel(loaded, c.ids), released);
  assertInputError(() => engine.modelGradients(loaded, c.ids, c.targets), released);
  assertInputError(() => engine.trainModel(loaded, { batches: [{ ids: c.ids, targets: c.targets }], learningRate: 0.1 }), released);
  assertInputError(() => loaded.toModel(), released);
  // bad ids with a loaded model: the same errors as with the object
  const again = engine.loadModel(c.model);
  assertInputError(() => engine.runModel(again, [c.model.vocab.length]), { code: 'range', path: 'ids', column: 0 });
  again.release();
});

test('loading and releasing models many times does not grow wasm memory', () => {
  const c = cases.find((x) => x.trainOptions);
  const warm = engine.loadModel(c.model);
  engine.runModel(warm, c.ids);
  engine.trainModel(warm, c.trainOptions).model.release();
  warm.release();
  const bytes = engine.memoryBytes();
  for (let i = 0; i < 30; i++) {
    const loaded = engine.loadModel(c.model);
    engine.runModel(loaded, c.ids);
    engine.modelGradients(loaded, c.ids, c.targets);
    engine.trainModel(loaded, c.trainOptions).model.release();
    loaded.release();
  }
  assert.equal(engine.memoryBytes(), bytes);
});
