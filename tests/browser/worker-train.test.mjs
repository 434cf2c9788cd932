// The worker's backward() and train() in headless Chromium (the engine script alone, in a blank
// page): the same bits as the page's own engine, the same Errors, calls answered in order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { launchChromium } from './chromium.mjs';

let browser;
let page;

before(async () => {
  browser = await launchChromium();
  page = await browser.newPage();
  await page.addScriptTag({ path: path.resolve('dist/attention-engine.js') });
});

after(async () => {
  await browser?.close();
});

test('worker.backward() and worker.train() give the page engine\'s bits and its Errors', async () => {
  const out = await page.evaluate(async () => {
    const engine = await globalThis.createAttentionEngine();
    const worker = globalThis.createAttentionEngine.startWorker();
    const input = {
      x: [[1, 0, 2], [0, 1, -1], [1, 1, 0.5], [3, -2, 1]],
      heads: [{ wq: [[1, 0], [0, 1], [1, 1]], wk: [[0.5, 1], [1, 0], [0, 2]], wv: [[1, 2], [0, 1], [2, 0]] }],
      wo: [[1, 0, 0], [0, 1, 1]],
      causal: true, keyPadding: [false, false, true, false], positionalEncoding: true,
    };
    const gradient = { output: [[1, -1, 0.5], [0, 2, 1], [-1, 0, 0], [0.25, 0.5, -2]] };
    const options = { loss: 'output', target: gradient.output, train: ['x', 'wq', 'wk', 'wv', 'wo'], optimizer: 'adam', learningRate: 0.01, steps: 20, rowsPerStep: 2, seed: 5 };
    const bits = (value) => JSON.stringify(value, (key, v) => (ArrayBuffer.isView(v) ? Array.from(v, (x) => Object.is(x, -0) ? '-0' : x) : v));
    const fields = (error) => ({ message: error.message, code: error.code, operand: error.operand, isError: error instanceof Error });
    const syncError = (fn) => {
      try {
        fn();
      } catch (error) {
        return fields(error);
      }
      return null;
    };
    // three calls posted at once, answered in order
    const [backward, trained, more] = await Promise.all([
      worker.backward(input, gradient),
      worker.train(input, options),
      worker.train(input, { ...options, steps: 5 }),
    ]);
    const inPage = engine.train(input, options);
    const continued = await worker.train(inPage.input, { ...options, state: inPage.state });
    const inPageContinued = engine.train(inPage.input, { ...options, state: inPage.state });
    const badGradient = { output: [[1, 2]] };
    const badOptions = { ...options, optimizer: 'adagrad' };
    const result = {
      backwardSame: bits(backward) === bits(engine.backward(input, gradient, { typed: true })),
      trainSame: bits(trained) === bits(inPage),
      fiveSteps: more.losses.length,
      continuedSame: bits(continued) === bits(inPageContinued),
      backwardError: await worker.backward(input, badGradient).then(() => null, fields),
      backwardSyncError: syncError(() => engine.backward(input, badGradient)),
      trainError: await worker.train(input, badOptions).then(() => null, fields),
      trainSyncError: syncError(() => engine.train(input, badOptions)),
    };
    worker.terminate();
    return result;
  });
  assert.equal(out.backwardSame, true);
  assert.equal(out.trainSame, true);
  assert.equal(out.fiveSteps, 6);
  assert.equal(out.continuedSame, true);
  assert.equal(out.backwardError.code, 'shape');
  assert.deepEqual(out.backwardError, out.backwardSyncError);
  assert.equal(out.trainError.code, 'choice');
  assert.deepEqual(out.trainError, out.trainSyncError);
});
