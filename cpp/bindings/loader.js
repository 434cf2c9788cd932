/* The public JS API of the attention engine, in six files that the build (scripts/build.mjs,
 * ENGINE_API_FILES) concatenates, in this order, after the Emscripten module and the wasm bytes
 * (ATTENTION_WASM_BASE64) inside one self-contained function, attentionEngineScript(asWorker),
 * which returns createAttentionEngine: the classic script makes that a global (or module.exports
 * under node), the ES module exports it.
 *   validate.js        compute(), backward(), train(): arguments checked and packed
 *   validate-model.js  runModel(), modelGradients(), trainModel(): the model checked and packed
 *   engine.js          makeEngine(raw): the public calls over the raw bindings
 *   worker-client.js   startWorker(): the page's side of the engine's Web Worker
 *   worker-server.js   workerMain(): the worker's side
 *   loader.js          (this file, last) the loader: one module, one cached promise
 *
 *   const engine = await createAttentionEngine();
 *   const r = engine.compute({ x, wq, wk, wv });  // arrays of rows of numbers
 *   r.q, r.k, r.v, r.scores, r.scaled, r.weights, r.output  // arrays of rows
 *   const m = engine.compute({ x, heads: [{ wq, wk, wv }, ...], wo, context, ...options });
 *                              // options: attention_bindings.cpp kOptions (causal, temperature, …)
 *   m.heads[h].weights, m.concat, m.output, m.masked, m.fullyMasked, m.pe, m.xWithPe, m.heads[h].bias
 *   engine.compute(input, { typed: true })  // matrices as { rows, cols, data: Float64Array }
 *   engine.compute(input, { typed: true, reuse: true })  // the same, views of the engine's
 *                                           // buffers, valid until the engine's next call
 *   const g = engine.backward(input, { output: G })  // G = dL/doutput of a scalar loss L
 *   g.input.x, g.input.wq, …, g.input.temperature; g.result.scores, g.result.weights, …
 *   engine.backward(input, { weights: S })  // S = dL/dweights (one per head in the heads form)
 *   engine.backward(input, { loss, target })  // train()'s loss: its gradients, and g.loss
 *   const t = engine.train(input, { loss, target, train, optimizer, learningRate, steps, … })
 *   t.input (trained), t.losses, t.state (pass it back to go on)
 *   const run = engine.runModel(model, ids, { typed, reuse, headsOff })  // a transformer's
 *   run.residual, run.layers[l].input / .attention.heads[h].weights / .mlp.hidden, run.logits, …
 *   engine.modelGradients(model, ids, targets)  // { loss, gradients } in the model's structure
 *   engine.trainModel(model, { batches: [{ ids, targets }], optimizer, learningRate })  // { model, losses }
 *   engine.memoryBytes()  // size of the module's wasm memory
 *   const worker = createAttentionEngine.startWorker();  // a second engine in a Web Worker
 *   await worker.compute(input)  // the typed form, computed off the page's thread
 *   worker.recycle(result)  // a result no longer read: its buffers go back to be written again
 *   await worker.backward(input, { output: G }), await worker.train(input, options)
 *   await worker.runModel(model, ids), worker.modelGradients(…), worker.trainModel(…)
 *
 * Bad input throws an Error with an actionable message and code, operand, row, column, head
 * (0-based; undefined where they do not apply). The engine keeps working after it.
 * docs/api.md documents every option, result and convention.
 */
/* global createAttentionModule, asWorker, ATTENTION_WASM_BASE64, makeEngine, startWorker, workerMain */

// The embedded wasm as bytes: handed to the module as wasmBinary, so that it is compiled from
// memory (a CSP needs only 'wasm-unsafe-eval', no connect-src) and nothing is ever fetched.
function wasmBytes() {
  const text = atob(ATTENTION_WASM_BASE64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

// Why the module could not start, as an Error with a code a page can show in its own words:
// 'no_wasm' (no WebAssembly here), 'csp' (the page's Content-Security-Policy forbids compiling
// WebAssembly) or 'load' (anything else; the message says what). Emscripten's own texts
// ("Aborted(...)", its build advice) are left out; the original error is the cause.
function loadError(cause) {
  const text = String((cause && cause.message) || cause);
  let code = 'load';
  let message = `the engine's WebAssembly could not be started: ${text.replace(/^Aborted\((.*)\)(\. Build with .*)?$/s, '$1')}`;
  if (typeof WebAssembly !== 'object') {
    code = 'no_wasm';
    message = 'this browser has no WebAssembly (or it is turned off), and the engine needs it';
  } else if (/Content.Security.Policy|\bCSP\b|unsafe-eval/i.test(text)) {
    code = 'csp';
    message = "the page's Content-Security-Policy does not allow WebAssembly: its script-src needs 'wasm-unsafe-eval'";
  }
  const error = new Error(message, { cause });
  error.code = code;
  return error;
}

// One module per page or process, however many callers: every call returns the same promise.
let enginePromise = null;

function createAttentionEngine() {
  if (!enginePromise) {
    // inside then(): the module throws at once, not rejects, where WebAssembly is missing
    enginePromise = Promise.resolve().then(() => createAttentionModule({ wasmBinary: wasmBytes() })).then(
      (raw) => makeEngine(raw),
      (err) => {
        enginePromise = null; // let a later call try again
        throw loadError(err);
      },
    );
  }
  return enginePromise;
}

createAttentionEngine.startWorker = startWorker;
if (asWorker) workerMain();
return createAttentionEngine;
