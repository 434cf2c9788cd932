/* The public JS API of the attention engine, appended by the build to the Emscripten
 * module inside one closure (see scripts/build.mjs), so the only global it leaves is
 * createAttentionEngine (or module.exports under node).
 *
 *   const engine = await createAttentionEngine();
 *   const r = engine.compute({ x, wq, wk, wv });  // arrays of rows of numbers
 *   r.q, r.k, r.v, r.scores, r.scaled, r.weights, r.output  // arrays of rows
 *   engine.memoryBytes()  // size of the module's wasm memory
 *
 * Bad input throws an Error with an actionable message and code, operand, row, column
 * (0-based; undefined where they do not apply). The engine keeps working after it.
 */
/* global createAttentionModule */

const OPERANDS = ['x', 'wq', 'wk', 'wv'];
const RESULTS = ['q', 'k', 'v', 'scores', 'scaled', 'weights', 'output'];

function inputError({ code, operand, row, column, message }) {
  const err = new Error(message);
  err.code = code;
  err.operand = operand;
  err.row = row >= 0 ? row : undefined;
  err.column = column >= 0 ? column : undefined;
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
// the engine checks emptiness, ragged rows and NaN/±Infinity.
function packRows(name, rows) {
  if (!Array.isArray(rows)) {
    throw inputError({
      code: 'not_matrix',
      operand: name,
      message: `${name} must be an array of rows (arrays of numbers), got ${describe(rows)}`,
    });
  }
  let total = 0;
  rows.forEach((row, i) => {
    if (!Array.isArray(row) && !(row instanceof Float64Array)) {
      throw inputError({
        code: 'not_matrix',
        operand: name,
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
          operand: name,
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
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) out[i] = Array.from(data.subarray(i * cols, (i + 1) * cols));
  return out;
}

function makeEngine(raw) {
  return {
    compute(input) {
      if (input === null || typeof input !== 'object') {
        throw inputError({
          code: 'not_matrix',
          message: `compute() takes an object { x, wq, wk, wv }, got ${describe(input)}`,
        });
      }
      const packed = {};
      for (const name of OPERANDS) {
        if (input[name] === undefined) {
          throw inputError({
            code: 'not_matrix',
            operand: name,
            message: `compute() needs x, wq, wk and wv; ${name} is missing`,
          });
        }
        packed[name] = packRows(name, input[name]);
      }
      const result = raw.compute(packed);
      if (result.error) throw inputError(result.error);
      const out = {};
      for (const name of RESULTS) out[name] = unpackRows(result[name]);
      return out;
    },

    // Bytes of wasm memory in use by the module (it grows, never shrinks).
    memoryBytes() {
      return raw.HEAP8.buffer.byteLength;
    },
  };
}

// One module per page or process, however many callers: every call returns the same promise.
let enginePromise = null;

function createAttentionEngine() {
  if (!enginePromise) {
    enginePromise = createAttentionModule().then(
      (raw) => makeEngine(raw),
      (err) => {
        enginePromise = null; // let a later call try again
        throw err;
      },
    );
  }
  return enginePromise;
}

if (typeof module === 'object' && module.exports) {
  module.exports = createAttentionEngine;
} else {
  globalThis.createAttentionEngine = createAttentionEngine;
}
