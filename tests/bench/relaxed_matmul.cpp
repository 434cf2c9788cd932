// The engine's matmul kernel (cpp/kernels.cpp: b packed into panels of 8 columns, a 2 × 8
// micro-kernel of f64x2 accumulators, the sum over k in order) as a freestanding wasm module,
// for scripts/bench.mjs --relaxed-simd: built by Emscripten 3.1.6's clang 14 with -msimd128 (the
// product's build), by Debian's clang-19 with -msimd128, and by clang-19 with -mrelaxed-simd,
// where each step is one f64x2.relaxed_madd (a fused multiply-add where the CPU has one: one
// rounding instead of two) in place of a multiply and an add. No libc: memory is the module's
// own, at __heap_base, and the bench's JS fills it.
//   matmul(a, b, out, panels, m, k, n): out (m × n) = a (m × k) · b (k × n), row-major
#ifdef RELAXED
#include <wasm_simd128.h>
#endif

typedef double f64x2 __attribute__((vector_size(16)));

namespace {

constexpr int kPanel = 8;

inline f64x2 load2(const double* p) {
  f64x2 v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}

inline void store2(double* p, f64x2 v) { __builtin_memcpy(p, &v, sizeof v); }

// acc + a·b: two roundings (SIMD128), or one relaxed_madd (fused where the CPU has FMA)
inline f64x2 madd(f64x2 a, f64x2 b, f64x2 acc) {
#ifdef RELAXED
  return reinterpret_cast<f64x2>(wasm_f64x2_relaxed_madd(
      reinterpret_cast<v128_t>(a), reinterpret_cast<v128_t>(b), reinterpret_cast<v128_t>(acc)));
#else
  return acc + a * b;
#endif
}

template <int R>
void micro_kernel(const double* a, int lda, const double* panel, int k, double* out, int ldo,
                  int cols) {
  f64x2 acc[R][4] = {};
  const double* const end = panel + k * kPanel;
  for (const double* pb = panel; pb != end; pb += kPanel, a++) {
    const f64x2 b0 = load2(pb);
    const f64x2 b1 = load2(pb + 2);
    const f64x2 b2 = load2(pb + 4);
    const f64x2 b3 = load2(pb + 6);
    for (int r = 0; r < R; r++) {
      const double x = a[r * lda];
      const f64x2 ar = {x, x};
      acc[r][0] = madd(ar, b0, acc[r][0]);
      acc[r][1] = madd(ar, b1, acc[r][1]);
      acc[r][2] = madd(ar, b2, acc[r][2]);
      acc[r][3] = madd(ar, b3, acc[r][3]);
    }
  }
  for (int r = 0; r < R; r++) {
    double* o = out + r * ldo;
    double tmp[kPanel];
    store2(tmp, acc[r][0]);
    store2(tmp + 2, acc[r][1]);
    store2(tmp + 4, acc[r][2]);
    store2(tmp + 6, acc[r][3]);
    for (int c = 0; c < cols; c++) o[c] = tmp[c];
  }
}

}  // namespace

extern "C" {

// panels: scratch of ⌈n/8⌉ · k · 8 doubles
__attribute__((export_name("matmul"))) void matmul(const double* a, const double* b, double* out,
                                                   double* panels, int m, int k, int n) {
  const int n_panels = (n + kPanel - 1) / kPanel;
  for (int p = 0; p < n_panels; p++) {  // pack b's columns, zero-padded at the right edge
    const int j0 = p * kPanel;
    double* dst = panels + p * k * kPanel;
    for (int t = 0; t < k; t++) {
      for (int c = 0; c < kPanel; c++) dst[t * kPanel + c] = j0 + c < n ? b[t * n + j0 + c] : 0.0;
    }
  }
  for (int i = 0; i < m; i += 2) {
    for (int p = 0; p < n_panels; p++) {
      const int j0 = p * kPanel;
      const int cols = n - j0 < kPanel ? n - j0 : kPanel;
      const double* panel = panels + p * k * kPanel;
      double* o = out + i * n + j0;
      if (m - i >= 2) {
        micro_kernel<2>(a + i * k, k, panel, k, o, n, cols);
      } else {
        micro_kernel<1>(a + i * k, k, panel, k, o, n, cols);
      }
    }
  }
}

}  // extern "C"
