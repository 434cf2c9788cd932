// Plain-JavaScript scaled dot-product attention on Float64Arrays (row-major), written the way
// a careful JS developer would: i-k-j loops, K read row-wise for Q·Kᵀ, stabilised softmax.
// The benchmark's baseline for "how much does wasm buy us".
export function attentionReference(x, wq, wk, wv, n, dModel, dK, dV) {
  const q = project(x, wq, n, dModel, dK); // (n, d_k)
  const k = project(x, wk, n, dModel, dK); // (n, d_k)
  const v = project(x, wv, n, dModel, dV); // (n, d_v)
  const weights = new Float64Array(n * n); // (n, n): scores, scaled, then softmax in place
  const scale = Math.sqrt(dK);
  for (let i = 0; i < n; i++) {
    let max = -Infinity;
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let t = 0; t < dK; t++) s += q[i * dK + t] * k[j * dK + t];
      s /= scale;
      weights[i * n + j] = s;
      if (s > max) max = s;
    }
    let sum = 0;
    for (let j = 0; j < n; j++) {
      const e = Math.exp(weights[i * n + j] - max);
      weights[i * n + j] = e;
      sum += e;
    }
    for (let j = 0; j < n; j++) weights[i * n + j] /= sum;
  }
  return project(weights, v, n, n, dV); // (n, d_v)
}

// a (rows, inner) · b (inner, cols) → (rows, cols)
function project(a, b, rows, inner, cols) {
  const out = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let t = 0; t < inner; t++) {
      const ait = a[i * inner + t];
      for (let j = 0; j < cols; j++) out[i * cols + j] += ait * b[t * cols + j];
    }
  }
  return out;
}
