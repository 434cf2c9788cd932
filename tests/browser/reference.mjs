// Scaled dot-product attention in plain JS, for the browser tests' expected
// numbers: independent of the engine (float64 sums in the plain order, so the
// engine agrees to ~1e-15 of the values).
export const matmul = (a, b) => a.map((row) => b[0].map((_, j) => row.reduce((sum, v, k) => sum + v * b[k][j], 0)));
export const transpose = (a) => a[0].map((_, j) => a.map((row) => row[j]));

// One head, named as the page names its matrices: scores ÷ √d_k ÷ temperature; causal: a
// query sees no later key (−∞ before the softmax, 0 after).
export function attention({ x, wq, wk, wv }, { temperature = 1, causal = false } = {}) {
  const Q = matmul(x, wq);
  const K = matmul(x, wk);
  const V = matmul(x, wv);
  const Scores = matmul(Q, transpose(K));
  const Scaled = Scores.map((row, i) => row.map((s, j) => (causal && j > i ? -Infinity : s / Math.sqrt(wq[0].length) / temperature)));
  const Weights = Scaled.map((row) => {
    const max = Math.max(...row);
    const e = row.map((s) => Math.exp(s - max));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
  return { Q, K, V, Scores, Scaled, Weights, Output: matmul(Weights, V) };
}
