/* The public JS API of the attention engine. The build (scripts/build.mjs) puts it after the
 * Emscripten module and the wasm bytes (ATTENTION_WASM_BASE64) inside one self-contained
 * function, attentionEngineScript(asWorker), which returns createAttentionEngine: the classic
 * script makes that a global (or module.exports under node), the ES module exports it.
 *
 *   const engine = await createAttentionEngine();
 *   const r = engine.compute({ x, wq, wk, wv });  // arrays of rows of numbers
 *   r.q, r.k, r.v, r.scores, r.scaled, r.weights, r.output  // arrays of rows
 *   const m = engine.compute({ x, heads: [{ wq, wk, wv }, ...], wo, context, causal,
 *                              keyPadding, scaleBySqrtDk, temperature, positionalEncoding });
 *   m.heads[h].weights, m.concat, m.output, m.masked, m.fullyMasked, m.pe, m.xWithPe
 *   engine.compute(input, { typed: true })  // matrices as { rows, cols, data: Float64Array }
 *   engine.memoryBytes()  // size of the module's wasm memory
 *   const worker = createAttentionEngine.startWorker();  // a second engine in a Web Worker
 *   await worker.compute(input)  // the typed form, computed off the page's thread
 *
 * Bad input throws an Error with an actionable message and code, operand, row, column, head
 * (0-based; undefined where they do not apply). The engine keeps working after it.
 * README.md's "JS API" section documents every option, result and convention.
 */
/* global createAttentionModule, attentionEngineScript, asWorker, ATTENTION_WASM_BASE64 */

const OPERANDS = ['x', 'wq', 'wk', 'wv'];
const HEAD_OPERANDS = ['wq', 'wk', 'wv'];
const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];
const BOOLEAN_OPTIONS = ['causal', 'scaleBySqrtDk', 'positionalEncoding'];
const KNOWN_KEYS = [
  'x', 'wq', 'wk', 'wv', 'heads', 'wo', 'context',
  'causal', 'keyPadding', 'scaleBySqrtDk', 'temperature', 'positionalEncoding',
];

function inputError({ code, operand, row, column, head, message }) {
  const err = new Error(message);
  err.code = code;
  err.operand = operand;
  err.row = row >= 0 ? row : undefined;
  err.column = column >= 0 ? column : undefined;
  err.head = head >= 0 ? head : undefined;
  return err;
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 20))}`;
  return typeof value === 'object' ? 'an object' : `${typeof value} ${String(value)}`;
}

// Arrays of rows → { values: Float64Array, rowLengths: Int32Array }, copied into wasm in one
// block each. Checks here only what a Float64Array cannot carry (structure, number type);
// the engine checks emptiness, ragged rows and NaN/±Infinity. `head` (0-based) names a
// head's matrix: messages say heads[1].wq, the error has operand 'wq' and head 1.
function packRows(operand, rows, head) {
  const name = head === undefined ? operand : `heads[${head}].${operand}`;
  const fail = (fields) => inputError({ code: 'not_matrix', operand, head, ...fields });
  if (!Array.isArray(rows)) {
    throw fail({
      message: `${name} must be an array of rows (arrays of numbers), got ${describe(rows)}`,
    });
  }
  let total = 0;
  rows.forEach((row, i) => {
    if (!Array.isArray(row) && !(row instanceof Float64Array)) {
      throw fail({
        row: i,
        message: `${name}[${i}] must be an array of numbers, got ${describe(row)}`,
      });
    }
    total += row.length;
  });
  const values = new Float64Array(total);
  const rowLengths = new Int32Array(rows.length);
  let offset = 0;
  rows.forEach((row, i) => {
    for (let j = 0; j < row.length; j++) {
      const v = row[j];
      if (typeof v !== 'number') {
        throw inputError({
          code: 'not_number',
          operand,
          head,
          row: i,
          column: j,
          message: `${name}[${i}][${j}] is ${describe(v)}: every value must be a number`,
        });
      }
      values[offset++] = v;
    }
    rowLengths[i] = row.length;
  });
  return { values, rowLengths };
}

// { rows, cols, data: Float64Array } → array of rows of numbers.
function unpackRows({ rows, cols, data }) {
  // plain indexed copies: Array.from(subarray) goes through the iterator protocol and was
  // 15× slower here at n = 512
  const out = new Array(rows);
  for (let i = 0, offset = 0; i < rows; i++) {
    const row = new Array(cols);
    for (let j = 0; j < cols; j++) row[j] = data[offset++];
    out[i] = row;
  }
  return out;
}

// The options of compute() other than matrices, checked for type here (the engine checks
// values: keyPadding's length, temperature > 0) and filled with their defaults.
function packOptions(input) {
  const options = {
    causal: false,
    keyPadding: undefined,
    scaleBySqrtDk: true,
    temperature: 1,
    positionalEncoding: false,
  };
  for (const name of BOOLEAN_OPTIONS) {
    if (input[name] === undefined) continue;
    if (typeof input[name] !== 'boolean') {
      throw inputError({
        code: 'not_boolean',
        operand: name,
        message: `${name} must be true or false, got ${describe(input[name])}`,
      });
    }
    options[name] = input[name];
  }
  if (input.temperature !== undefined) {
    if (typeof input.temperature !== 'number') {
      throw inputError({
        code: 'not_number',
        operand: 'temperature',
        message: `temperature must be a number > 0, got ${describe(input.temperature)}`,
      });
    }
    options.temperature = input.temperature;
  }
  const padding = input.keyPadding;
  if (padding !== undefined) {
    if (!Array.isArray(padding)) {
      throw inputError({
        code: 'not_array',
        operand: 'keyPadding',
        message: `keyPadding must be an array of true/false, one per key, got ${describe(padding)}`,
      });
    }
    if (padding.length === 0) {
      throw inputError({
        code: 'empty',
        operand: 'keyPadding',
        message: 'keyPadding is empty: it needs one true/false per key (leave it out for no padding)',
      });
    }
    options.keyPadding = new Uint8Array(padding.length);
    padding.forEach((p, j) => {
      if (typeof p !== 'boolean') {
        throw inputError({
          code: 'not_boolean',
          operand: 'keyPadding',
          column: j,
          message: `keyPadding[${j}] is ${describe(p)}: every entry must be true (a padding key) or false`,
        });
      }
      options.keyPadding[j] = p ? 1 : 0;
    });
  }
  return options;
}

// The input's matrices, packed: x, context, heads (the single-head form is one head), wo.
function packOperands(input) {
  const multiHead = input.heads !== undefined;
  const needs = multiHead ? 'x and heads' : 'x, wq, wk and wv';
  const required = multiHead ? ['x'] : OPERANDS;
  for (const name of required) {
    if (input[name] === undefined) {
      throw inputError({
        code: 'not_matrix',
        operand: name,
        message: `compute() needs ${needs}; ${name} is missing`,
      });
    }
  }
  const stray = HEAD_OPERANDS.find((name) => multiHead && input[name] !== undefined);
  if (stray) {
    throw inputError({
      code: 'conflict',
      operand: stray,
      message: `compute() takes either wq, wk, wv (one head) or heads, not both; ${stray} is given with heads`,
    });
  }
  if (!multiHead && input.wo !== undefined) {
    throw inputError({
      code: 'conflict',
      operand: 'wo',
      message: 'wo needs heads: pass heads: [{ wq, wk, wv }, ...] with wo (one head without W_O is the default)',
    });
  }
  const packed = { x: packRows('x', input.x) };
  if (input.context !== undefined) packed.context = packRows('context', input.context);
  if (!multiHead) {
    packed.heads = [{ wq: packRows('wq', input.wq), wk: packRows('wk', input.wk), wv: packRows('wv', input.wv) }];
  } else {
    if (!Array.isArray(input.heads)) {
      throw inputError({
        code: 'not_matrix',
        operand: 'heads',
        message: `heads must be an array of { wq, wk, wv }, got ${describe(input.heads)}`,
      });
    }
    packed.heads = input.heads.map((head, h) => {
      if (head === null || typeof head !== 'object' || Array.isArray(head)) {
        throw inputError({
          code: 'not_matrix',
          operand: 'heads',
          head: h,
          message: `heads[${h}] must be an object { wq, wk, wv }, got ${describe(head)}`,
        });
      }
      const weights = {};
      for (const name of HEAD_OPERANDS) {
        if (head[name] === undefined) {
          throw inputError({
            code: 'not_matrix',
            operand: name,
            head: h,
            message: `heads[${h}] needs wq, wk and wv; ${name} is missing`,
          });
        }
        weights[name] = packRows(name, head[name], h);
      }
      return weights;
    });
    if (input.wo !== undefined) packed.wo = packRows('wo', input.wo);
  }
  packed.singleHeadNames = !multiHead;
  return packed;
}

// Flags (Uint8Array) → array of booleans.
function unpackFlags(data) {
  const out = new Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i] !== 0;
  return out;
}

function unpackHead(head, unpack) {
  const out = {};
  for (const name of RESULTS) out[name] = unpack(head[name]);
  return out;
}

// compute()'s second argument: { typed: true } returns every matrix as
// { rows, cols, data: Float64Array } (row-major; masks as Uint8Array), without building
// arrays of rows: the fast form for large inputs.
function readFormat(format) {
  if (format === undefined) return false;
  const keys = format !== null && typeof format === 'object' ? Object.keys(format) : null;
  if (keys === null || keys.some((k) => k !== 'typed') || !['boolean', 'undefined'].includes(typeof format.typed)) {
    throw inputError({
      code: 'unknown_option',
      operand: 'format',
      message: `compute()'s second argument must be { typed: true | false }, got ${describe(format)}`,
    });
  }
  return format.typed === true;
}

function makeEngine(raw) {
  return {
    compute(input, format) {
      const typed = readFormat(format);
      if (input === null || typeof input !== 'object') {
        throw inputError({
          code: 'not_matrix',
          message: `compute() takes an object { x, wq, wk, wv }, got ${describe(input)}`,
        });
      }
      const unknown = Object.keys(input).find((key) => !KNOWN_KEYS.includes(key));
      if (unknown !== undefined) {
        throw inputError({
          code: 'unknown_option',
          operand: unknown,
          message: `compute() got an unknown option ${JSON.stringify(unknown)}; it takes ${KNOWN_KEYS.join(', ')}`,
        });
      }
      const packed = { ...packOperands(input), ...packOptions(input) };
      const result = raw.compute(packed);
      if (result.error) throw inputError(result.error);

      // the binding's matrices are already fresh copies: the typed form hands them over as is
      const unpack = typed ? (m) => m : unpackRows;
      // one head, the single-head form: its steps at the top level, as before issue 4
      const out = input.heads === undefined ? unpackHead(result.heads[0], unpack) : {
        heads: result.heads.map((head) => unpackHead(head, unpack)),
        concat: unpack(result.concat),
        output: unpack(result.output),
      };
      if (packed.causal || packed.keyPadding !== undefined) {
        const { rows, cols, data } = result.masked;
        out.masked = typed ? result.masked : Array.from({ length: rows }, (_, i) => unpackFlags(data.subarray(i * cols, (i + 1) * cols)));
        out.fullyMasked = typed ? result.fullyMasked : unpackFlags(result.fullyMasked);
      }
      if (packed.positionalEncoding) {
        out.pe = unpack(result.pe);
        out.xWithPe = unpack(result.xWithPe);
        if (input.context !== undefined) {
          out.contextPe = unpack(result.contextPe);
          out.contextWithPe = unpack(result.contextWithPe);
        }
      }
      return out;
    },

    // Bytes of wasm memory in use by the module (it grows, never shrinks).
    memoryBytes() {
      return raw.HEAP8.buffer.byteLength;
    },
  };
}

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

// A second engine in a Web Worker, for computations long enough to freeze a page
// (n in the thousands). The worker runs this very code, from its own source text
// (attentionEngineScript, the function the build wraps it in, called with asWorker) put in
// a Blob: nothing is fetched, so it works from file:// and offline, and after a bundler
// renamed everything; a page's CSP must allow `worker-src blob:`.
// worker.compute(input) → a promise of compute(input, { typed: true }), whose buffers
// are moved (transferred), not copied. Calls run one after another, in order. An input
// error rejects with the same Error (code, operand, row, column, head) as compute();
// a worker that cannot start (Trusted Types, a CSP without blob: workers) or breaks
// rejects every call with code 'worker'. Throws at once where workers do not exist.
function startWorker() {
  if (typeof Worker !== 'function') throw new Error('startWorker() needs Web Workers, which this environment does not have');
  const source = `(${attentionEngineScript})(true);\n`;
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  const waiting = new Map(); // id → { resolve, reject }
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
  return {
    compute(input) {
      if (broken) return Promise.reject(broken);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        worker.postMessage({ id, input });
      });
    },
    terminate() {
      stop('the engine\'s worker was stopped');
    },
  };
}

// The worker's side: runs in the worker (attentionEngineScript(true)).
function workerMain() {
  const ready = createAttentionEngine();
  // every typed array's buffer, once each: they move to the page
  const buffers = (value, out = new Set()) => {
    if (ArrayBuffer.isView(value)) out.add(value.buffer);
    else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) buffers(v, out);
    return out;
  };
  ready.then(() => postMessage({ ready: true }), (error) => postMessage({ failed: String((error && error.message) || error) }));
  self.onmessage = ({ data: { id, input } }) => {
    ready.then((engine) => {
      let result;
      try {
        result = engine.compute(input, { typed: true });
      } catch (error) {
        const { message, code, operand, row, column, head } = error;
        postMessage({ id, error: { message, code, operand, row, column, head } });
        return;
      }
      postMessage({ id, result }, [...buffers(result)]);
    });
  };
}

createAttentionEngine.startWorker = startWorker;
if (asWorker) workerMain();
return createAttentionEngine;
