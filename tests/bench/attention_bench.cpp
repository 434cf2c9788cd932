// Times the engine's attention (one head, as the page computes it, buffers reused between
// calls as the bindings reuse them) on n tokens with d_model = d_k = d_v = d: the same C++
// built natively and to wasm (node and Chromium). Prints one JSON line per n:
//   {"n": 512, "d": 64, "runs": 15, "median_ms": 12.3}   (runs: timed batches)
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
    // calls per timed batch: enough for a batch to last >= 5 ms (Chromium coarsens its clock
    // to 0.1 ms, so small n timed one call at a time would read 0); this also warms up
    int batch = 1;
    for (;;) {
      const double t0 = now_ms();
      for (int i = 0; i < batch; i++) attn::multi_head_attention(in, &r);
      if (now_ms() - t0 >= 5.0) break;
      batch *= 2;
    }
    // then batches for about a second (at least 5) and the median per call
    std::vector<double> times;
    const double start = now_ms();
    while (times.size() < 5 || (now_ms() - start < 1000.0 && times.size() < 200)) {
      const double t0 = now_ms();
      for (int i = 0; i < batch; i++) attn::multi_head_attention(in, &r);
      times.push_back((now_ms() - t0) / batch);
    }
    std::sort(times.begin(), times.end());
    std::printf("{\"n\": %d, \"d\": %d, \"runs\": %zu, \"median_ms\": %.6f, \"check\": %.17g}\n", n,
                d, times.size(), times[times.size() / 2], r.output.at(n - 1, d - 1));
  }
  return 0;
}
