/* The worker's side of the engine's Web Worker: workerMain(), the engine's calls answered from
 * the page's messages (worker-client.js). */
/* global createAttentionEngine, buffersOf */
/* exported workerMain */

// The worker's side: runs in the worker (attentionEngineScript(true)).
function workerMain() {
  const ready = createAttentionEngine();
  // Buffers the page gave back (recycle), oldest first, each with the number of computations
  // that passed it by: a computation's matrices are written into them, not into fresh memory
  // (at n = 4096 a result is some 400 MB, and each fresh one left as much garbage on the page).
  // One in a size within SPARE of a matrix's is taken (a sentence one token shorter); what
  // two computations in a row did not take is let go, and all of it after IDLE_MS without one.
  let pool = [];
  const SPARE = 1.25;
  const IDLE_MS = 5000;
  let idle = 0;
  const letGoWhenIdle = () => {
    clearTimeout(idle);
    if (pool.length > 0) idle = setTimeout(() => { pool = []; }, IDLE_MS);
  };
  const copyOut = (view) => {
    let best = -1;
    pool.forEach(({ buffer }, i) => {
      const fits = buffer.byteLength >= view.byteLength && buffer.byteLength <= view.byteLength * SPARE;
      if (fits && (best < 0 || buffer.byteLength < pool[best].buffer.byteLength)) best = i;
    });
    const buffer = best >= 0 ? pool.splice(best, 1)[0].buffer : new ArrayBuffer(view.byteLength);
    const out = new view.constructor(buffer, 0, view.length);
    out.set(view);
    return out;
  };
  // compute(input, { typed: true }) from the engine's reused views: each matrix copied once
  // (a matrix met twice, the one head's output, is the same copy), into the pool where it fits.
  const computeInto = (engine, input) => {
    const views = engine.compute(input, { typed: true, reuse: true });
    const copies = new Map();
    const walk = (value) => {
      if (ArrayBuffer.isView(value)) {
        if (!copies.has(value)) copies.set(value, copyOut(value));
        return copies.get(value);
      }
      if (Array.isArray(value)) return value.map(walk);
      if (value === null || typeof value !== 'object') return value;
      if (ArrayBuffer.isView(value.data)) {
        if (!copies.has(value)) copies.set(value, { rows: value.rows, cols: value.cols, data: copyOut(value.data) });
        return copies.get(value);
      }
      return Object.fromEntries(Object.entries(value).map(([key, v]) => [key, walk(v)]));
    };
    const result = walk(views);
    pool = pool.filter((entry) => ++entry.passed < 2);
    letGoWhenIdle();
    return result;
  };
  ready.then(() => postMessage({ ready: true }), (error) => postMessage({ failed: String((error && error.message) || error) }));
  const run = {
    compute: (engine, [input]) => computeInto(engine, input),
    backward: (engine, [input, gradient]) => engine.backward(input, gradient, { typed: true }),
    train: (engine, [input, options]) => engine.train(input, options),
    runModel: (engine, [model, ids, options]) => engine.runModel(model, ids, { ...options, typed: true, reuse: false }),
    modelGradients: (engine, [model, ids, targets]) => engine.modelGradients(model, ids, targets, { typed: true }),
    trainModel: (engine, [model, options]) => engine.trainModel(model, options),
  };
  self.onmessage = ({ data: { id, method, args } }) => {
    if (method === 'recycle') {
      for (const buffer of args[0]) pool.push({ buffer, passed: 0 });
      letGoWhenIdle();
      return;
    }
    if (!Object.hasOwn(run, method)) return; // only this script's own calls
    ready.then((engine) => {
      let result;
      try {
        result = run[method](engine, args);
      } catch (error) {
        const { message, code, operand, row, column, head, layer, path } = error;
        postMessage({ id, error: { message, code, operand, row, column, head, layer, path } });
        return;
      }
      postMessage({ id, result }, [...buffersOf(result)]);
    });
  };
}
