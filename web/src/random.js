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
function randomMatrix(next, rows, cols) {
  return Array.from({ length: rows }, () => Array.from({ length: cols }, () => Math.round((next() * 2 - 1) * 100) / 100 + 0));
}

// X, then W_Q, W_K, W_V, drawn in that order from one generator.
export function randomInputs(seed, n, { dModel, dk, dv }) {
  const next = mulberry32(seed);
  return {
    x: randomMatrix(next, n, dModel),
    wq: randomMatrix(next, dModel, dk),
    wk: randomMatrix(next, dModel, dk),
    wv: randomMatrix(next, dModel, dv),
  };
}
