// Times the engine's attention (one head, as the page computes it, buffers reused between
// calls as the bindings reuse them) on n tokens with d_model = d_k = d_v = d: the same C++
// built natively and to wasm (node and Chromium). Also times its five matrix products alone
// (X·W_Q, X·W_K, X·W_V, Q·Kᵀ, weights·V), to show where the time goes. Prints one JSON line
// per n:
//   {"n": 512, "d": 64, "runs": 15, "median_ms": 12.3, "products_ms": 8.1}   (runs: batches)
// Usage: attention_bench d n1 [n2 ...]   (scripts/bench.mjs runs it)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "attention.h"

namespace {

// Deterministic values of magnitude ~1/√cols, so scores stay moderate at every size.
attn::Matrix filled(int rows, int cols, double seed) {
  attn::Matrix m(rows, cols);
  for (int i = 0; i < rows; i++)
    for (int j = 0; j < cols; j++)
      m.at(i, j) = std::sin(seed + 0.37 * i + 1.91 * j) / std::sqrt(static_cast<double>(cols));
  return m;
}

double now_ms() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

// Median ms per call of f. After 100 ms of warm-up (a first call can be slow, while the wasm
// is still compiled), calls are batched so that a batch lasts >= 5 ms (Chromium coarsens its
// clock to 0.1 ms, so small n timed one call at a time would read 0); then batches for about
// a second (at least 5).
template <class F>
double median_ms(F f) {
  for (const double t0 = now_ms(); now_ms() - t0 < 100.0;) f();
  int batch = 1;
  for (;;) {
    const double t0 = now_ms();
    for (int i = 0; i < batch; i++) f();
    if (now_ms() - t0 >= 5.0) break;
    batch *= 2;
  }
  std::vector<double> times;
  const double start = now_ms();
  while (times.size() < 5 || (now_ms() - start < 1000.0 && times.size() < 200)) {
    const double t0 = now_ms();
    for (int i = 0; i < batch; i++) f();
    times.push_back((now_ms() - t0) / batch);
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s d n1 [n2 ...]\n", argv[0]);
    return 2;
  }
  const int d = std::atoi(argv[1]);
  for (int a = 2; a < argc; a++) {
    const int n = std::atoi(argv[a]);
    attn::MultiHeadInput in;
    in.x = filled(n, d, 1.0);
    in.heads.push_back(attn::Head{filled(d, d, 2.0), filled(d, d, 3.0), filled(d, d, 4.0)});
    attn::MultiHeadResult r;
    const double all = median_ms([&] { attn::multi_head_attention(in, &r); });
    // the products alone, on the same operands (r holds Q, K, V and the weights by now)
    const attn::AttentionResult& h = r.heads[0];
    attn::Matrix q, k, v, scores, out;
    attn::MatmulScratch scratch;
    const double products = median_ms([&] {
      attn::matmul(in.x, in.heads[0].wq, &q, &scratch);
      attn::matmul(in.x, in.heads[0].wk, &k, &scratch);
      attn::matmul(in.x, in.heads[0].wv, &v, &scratch);
      attn::matmul_transposed(h.q, h.k, &scores, &scratch);
      attn::matmul(h.weights, h.v, &out, &scratch);
    });
    std::printf(
        "{\"n\": %d, \"d\": %d, \"median_ms\": %.6f, \"products_ms\": %.6f, \"check\": %.17g}\n", n,
        d, all, products, r.output.at(n - 1, d - 1));
  }
  return 0;
}
