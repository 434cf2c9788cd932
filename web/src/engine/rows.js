// Matrices from the engine's typed form ({rows, cols, data}, row-major) as
// the page uses them: arrays of rows that are views into the one typed array,
// not copies. m[r][c] reads as for arrays of rows, building them is O(rows),
// and the heatmaps draw from the flat data (flatData) without any copy.

export function rowViews({ rows, cols, data }) {
  const out = new Array(rows);
  for (let r = 0; r < rows; r++) out[r] = data.subarray(r * cols, (r + 1) * cols);
  return out;
}

const isTypedMatrix = (value) => value !== null && typeof value === 'object' && ArrayBuffer.isView(value.data) && 'rows' in value;

// A compute(input, {typed: true}) result with every matrix (masks too) as
// row views, each made when first read: at n = 4096 a result holds ten
// matrices of 4096 rows and a step reads a few of them (making every view was
// ~15 ms of the render). Heads are walked; a matrix met twice (the one head's
// output is the result's) gets the same views; fullyMasked stays one flat Uint8Array.
export function resultRowViews(result, made = new Map()) {
  const out = {};
  for (const [key, value] of Object.entries(result)) {
    if (key === 'heads') out.heads = value.map((head) => resultRowViews(head, made));
    else if (isTypedMatrix(value)) {
      whenRead(out, key, () => {
        if (!made.has(value)) made.set(value, rowViews(value));
        return made.get(value);
      });
    } else out[key] = value;
  }
  return out;
}

// object[key] is make()'s value, made on the first read (or replaced by the first write)
// and from then on a plain property.
export function whenRead(object, key, make) {
  const settle = (value) => Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  Object.defineProperty(object, key, {
    get: () => {
      const value = make();
      settle(value);
      return value;
    },
    set: settle,
    enumerable: true,
    configurable: true,
  });
}

// The row-major values of a matrix given as rows: the typed array its rows
// view when they are row views of one (rowViews; its buffer may be longer: a
// buffer the worker wrote again, worker.recycle), else a Float64Array copy
// (small matrices typed by the user, masks given as booleans).
export function flatData(matrix) {
  const rows = matrix.length;
  const cols = rows > 0 ? matrix[0].length : 0;
  const first = matrix[0];
  if (rows > 0 && ArrayBuffer.isView(first) && first.byteOffset === 0 && first.buffer.byteLength >= rows * cols * first.BYTES_PER_ELEMENT) {
    let views = true;
    for (let r = 1; r < rows && views; r++) views = matrix[r].buffer === first.buffer && matrix[r].byteOffset === r * cols * first.BYTES_PER_ELEMENT;
    if (views) return new first.constructor(first.buffer, 0, rows * cols);
  }
  const flat = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) flat[r * cols + c] = Number(matrix[r][c]);
  return flat;
}

// A matrix given as rows (arrays or typed arrays) as arrays of numbers: a copy.
export const plainRows = (m) => m && Array.from(m, (row) => Array.from(row));

// A result whose matrices are rows of typed arrays (resultRowViews) in the
// form compute() gives without { typed: true }: arrays of rows of numbers,
// masks of booleans (fullyMasked one array of them). A copy.
export function plainResult(result) {
  const out = {};
  for (const [key, value] of Object.entries(result)) {
    if (key === 'heads') out.heads = value.map(plainResult);
    else if (key === 'masked') out.masked = value && Array.from(value, (row) => Array.from(row, Boolean));
    else if (key === 'fullyMasked') out.fullyMasked = value && Array.from(value, Boolean);
    else out[key] = plainRows(value);
  }
  return out;
}

// A result whose matrices are rows (resultRowViews) in the engine's typed form
// again: each matrix as {rows, cols, data}, data the typed array its rows view
// (flatData: no copy), or a copy of it (copy: true); fullyMasked as it is, or copied.
export function typedResult(result, { copy = false } = {}) {
  const out = {};
  for (const [key, value] of Object.entries(result)) {
    if (key === 'heads') out.heads = value.map((head) => typedResult(head, { copy }));
    else if (value === null) out[key] = null;
    else if (ArrayBuffer.isView(value)) out[key] = copy ? value.slice() : value; // fullyMasked
    else out[key] = { rows: value.length, cols: value[0].length, data: copy ? flatData(value).slice() : flatData(value) };
  }
  return out;
}

// While an export or a heatmap painted in slices reads a result's matrix over
// several tasks, its arrays are neither written again (updates.js ResultArrays)
// nor given back to the worker: holdRows(matrix as rows) → release().
const held = new Map(); // ArrayBuffer → how many readers hold it
export const isHeld = (buffer) => held.has(buffer);
export function holdRows(matrix) {
  const buffer = ArrayBuffer.isView(matrix[0]) ? matrix[0].buffer : null;
  if (buffer === null) return () => {};
  held.set(buffer, (held.get(buffer) || 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const count = held.get(buffer) - 1;
    if (count === 0) held.delete(buffer);
    else held.set(buffer, count);
  };
}
