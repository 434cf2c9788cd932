/* The page's side of the engine's Web Worker: startWorker(). */
/* global attentionEngineScript, inputError */
/* exported startWorker, buffersOf */

// A second engine in a Web Worker, for computations long enough to freeze a page
// (n in the thousands). The worker runs this very code, from its own source text
// (attentionEngineScript, the function the build wraps it in, called with asWorker) put in
// a Blob: nothing is fetched, so it works from file:// and offline, and after a bundler
// renamed everything; a page's CSP must allow `worker-src blob:`.
// worker.compute(input) → a promise of compute(input, { typed: true }), whose buffers
// are moved (transferred), not copied; worker.backward(input, gradient) likewise of
// backward(input, gradient, { typed: true }), worker.train(input, options) of
// train(input, options). Calls run one after another, in order. An input error rejects
// with the same Error (code, operand, row, column, head) as the engine's call; a worker
// that cannot start (Trusted Types, a CSP without blob: workers) or breaks rejects every
// call with code 'worker'. Throws at once where workers do not exist.

// An input's matrices of arrays of numbers as rows of one Float64Array each, its buffer moved
// to the worker with the message (buffers): the structured clone of 4096 × 64 numbers as
// arrays took 50–100 ms of the page's thread. Anything else (a row that is no array, a value
// that is no number) goes as it is, for the worker's engine to name the same error.
const INPUT_MATRICES = ['x', 'context', 'wq', 'wk', 'wv', 'wo'];
function rowsToSend(rows, buffers) {
  if (!Array.isArray(rows)) return rows;
  let total = 0;
  for (const row of rows) {
    if (!Array.isArray(row)) return rows;
    total += row.length;
  }
  const data = new Float64Array(total);
  const out = new Array(rows.length);
  for (let i = 0, offset = 0; i < rows.length; i++) {
    const row = rows[i];
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v !== 'number') return rows;
      data[offset + j] = v;
    }
    out[i] = data.subarray(offset, offset + row.length);
    offset += row.length;
  }
  buffers.push(data.buffer);
  return out;
}
function inputToSend(input, buffers) {
  const isObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
  if (!isObject(input)) return input;
  const matrices = (object, keys) => {
    const out = { ...object };
    for (const key of keys) if (key in object) out[key] = rowsToSend(object[key], buffers);
    return out;
  };
  const out = matrices(input, INPUT_MATRICES);
  if (Array.isArray(input.heads)) out.heads = input.heads.map((head) => (isObject(head) ? matrices(head, ['wq', 'wk', 'wv']) : head));
  return out;
}

// Every typed array's buffer in a result (matrices, heads, rows), once each.
function buffersOf(value, out = new Set()) {
  if (ArrayBuffer.isView(value)) out.add(value.buffer);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) buffersOf(v, out);
  return out;
}

function startWorker() {
  if (typeof Worker !== 'function') throw new Error('startWorker() needs Web Workers, which this environment does not have');
  const source = `(${attentionEngineScript})(true);\n`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const waiting = new Map(); // id → { resolve, reject }
  const given = new WeakSet(); // the buffers of compute()'s results, until given back (recycle)
  let nextId = 0;
  let worker = null;
  let broken = null;
  const stop = (message) => {
    URL.revokeObjectURL(url);
    if (worker) worker.terminate();
    broken = inputError({ code: 'worker', message });
    for (const call of waiting.values()) call.reject(broken);
    waiting.clear();
  };
  try {
    worker = new Worker(url);
  } catch (error) {
    // e.g. under Trusted Types, where a blob: URL string is no TrustedScriptURL
    stop(`the engine's worker could not start: ${(error && error.message) || error}`);
  }
  if (worker) {
    worker.onmessage = ({ data }) => {
      if (data.ready) URL.revokeObjectURL(url);
      if (data.failed) stop(`the engine's worker could not load the engine: ${data.failed}`);
      if (data.id === undefined) return;
      const call = waiting.get(data.id);
      waiting.delete(data.id);
      if (data.error) call.reject(inputError(data.error));
      else call.resolve(data.result);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      stop(`the engine's worker stopped: ${event.message || 'it could not start'}`);
    };
  }
  // one message { id, method, args } per call, answered by { id, result } or { id, error }
  const call = (method, args, buffers = []) => {
    if (broken) return Promise.reject(broken);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      worker.postMessage({ id, method, args }, buffers);
    });
  };
  return {
    compute: (input) => {
      const buffers = [];
      return call('compute', [inputToSend(input, buffers)], buffers).then((result) => {
        for (const buffer of buffersOf(result)) given.add(buffer);
        return result;
      });
    },
    // A result of compute() the caller no longer reads: its buffers move back to the worker
    // (its arrays are empty from then on), and the worker's next results are written into
    // them. Buffers the worker did not give, or already given back, stay where they are.
    recycle(result) {
      const back = [...buffersOf(result)].filter((buffer) => given.delete(buffer) && buffer.byteLength > 0);
      if (broken || back.length === 0) return;
      worker.postMessage({ method: 'recycle', args: [back] }, back);
    },
    backward: (input, gradient) => call('backward', [input, gradient]),
    train: (input, options) => call('train', [input, options]),
    // the models' calls: runModel's result and the gradients in the typed form
    runModel: (model, ids, options) => call('runModel', [model, ids, options]),
    modelGradients: (model, ids, targets) => call('modelGradients', [model, ids, targets]),
    trainModel: (model, options) => call('trainModel', [model, options]),
    terminate() {
      stop('the engine\'s worker was stopped');
    },
  };
}
