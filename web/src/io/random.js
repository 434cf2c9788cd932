// "Fill randomly" with a visible seed: mulberry32, a small 32-bit PRNG, so the
// same seed gives the same numbers in every browser.

export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Values in [-1, 1] with two decimals: easy to read and to retype.
// (Plain loops: Array.from with a callback took ~50 ms for X at n = 4096.)
export function randomMatrix(next, rows, cols) {
  const out = new Array(rows);
  for (let r = 0; r < rows; r++) {
    const row = new Array(cols);
    for (let c = 0; c < cols; c++) row[c] = Math.round((next() * 2 - 1) * 100) / 100 + 0;
    out[r] = row;
  }
  return out;
}

// A rows × cols matrix from next(), as pieces of at most `step` rows (drawn
// in the same order as one randomMatrix call), so that a caller can let the
// page breathe between pieces: X at n = 4096 is 262 144 numbers.
function* randomPieces(next, rows, cols, step) {
  for (let r = 0; r < rows; r += step) yield randomMatrix(next, Math.min(step, rows - r), cols);
}

// X, then W_Q, W_K, W_V, drawn in that order from one generator. kvRows
// (W_K's and W_V's) is d_model, or d_context in cross-attention. As
// [field, piece] pairs (see randomPieces).
export function* randomInputPieces(seed, n, { dModel, dk, dv }, kvRows = dModel, step = Infinity) {
  const next = mulberry32(seed);
  for (const [field, rows, cols] of [['x', n, dModel], ['wq', dModel, dk], ['wk', kvRows, dk], ['wv', kvRows, dv]]) {
    for (const piece of randomPieces(next, rows, cols, step)) yield [field, piece];
  }
}

export function randomInputs(seed, n, dims, kvRows) {
  const inputs = { x: [], wq: [], wk: [], wv: [] };
  for (const [field, piece] of randomInputPieces(seed, n, dims, kvRows)) inputs[field] = inputs[field].concat(piece);
  return inputs;
}

// The other matrices each have their own generator, so that adding a head
// changes no number already there: stream s starts from seed + s·0x9E3779B9.
export const STREAM_WO = 9;
export const STREAM_CONTEXT = 10;
export const streamSeed = (seed, stream) => (seed + Math.imul(stream, 0x9e3779b9)) >>> 0;

// Head h ≥ 1 (0-based; head 0 is randomInputs'): W_Q, W_K, W_V from stream h.
export function randomHead(seed, head, { dModel, dk, dv }, kvRows = dModel) {
  const next = mulberry32(streamSeed(seed, head));
  return { wq: randomMatrix(next, dModel, dk), wk: randomMatrix(next, kvRows, dk), wv: randomMatrix(next, kvRows, dv) };
}

export const randomStreamPieces = (seed, stream, rows, cols, step = Infinity) => randomPieces(mulberry32(streamSeed(seed, stream)), rows, cols, step);

export function randomStream(seed, stream, rows, cols) {
  return randomMatrix(mulberry32(streamSeed(seed, stream)), rows, cols);
}
