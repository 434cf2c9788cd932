#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace attn {

namespace {

// Two float64 lanes: SSE2 natively, wasm SIMD (f64x2) under -msimd128. GCC/Clang vector
// extensions keep one source for both; each lane rounds exactly like scalar code (no FMA
// contraction: the ISO C++ modes we build with keep a*b + c as two roundings).
typedef double f64x2 __attribute__((vector_size(16)));
typedef long long i64x2 __attribute__((vector_size(16)));

inline f64x2 load2(const double* p) {
  f64x2 v;
  std::memcpy(&v, p, sizeof v);  // unaligned load
  return v;
}

inline void store2(double* p, f64x2 v) { std::memcpy(p, &v, sizeof v); }

inline f64x2 splat(double x) { return f64x2{x, x}; }

// The bits of two doubles as two 64-bit integers, and back (no aliasing tricks).
inline i64x2 to_bits(f64x2 v) {
  i64x2 b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline f64x2 from_bits(i64x2 b) {
  f64x2 v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// Scratch space for packed panels, kept between calls: no allocation (and no fresh pages to
// fault in) on every product.
std::vector<double>& panel_buffer() {
  static std::vector<double> buffer;
  return buffer;
}

// Width of the column panels of b that the matmul micro-kernel works on.
constexpr int kPanel = 8;

// The micro-kernel: out[R rows][8 columns] = a[R rows][0..k) · panel (k × 8). The sum over k
// runs in order for every element, so each result is rounded exactly as the plain i-k-j loop
// rounds it. R = 2 rows × 4 vectors of accumulators, the 4 panel vectors and the broadcast
// fit the 16 SIMD registers of x86-64 (SSE2, and V8's wasm code): 2 × 8 measured fastest,
// natively and in wasm, against 4 × 4, 3 × 8 and 4 × 8 (which spill).
template <int R>
void micro_kernel(const double* a, int lda, const double* panel, int k, double* out, int ldo,
                  int cols) {
  f64x2 acc[R][4] = {};
  // Step t by pointers (pb at the panel's row t, a at column t): the indexed form compiled to
  // three more integer operations a step in wasm, which V8 does not take out of the loop.
  const double* const end = panel + k * kPanel;
  for (const double* pb = panel; pb != end; pb += kPanel, a++) {
    const f64x2 b0 = load2(pb);
    const f64x2 b1 = load2(pb + 2);
    const f64x2 b2 = load2(pb + 4);
    const f64x2 b3 = load2(pb + 6);
    for (int r = 0; r < R; r++) {
      const f64x2 ar = splat(a[r * lda]);
      acc[r][0] += ar * b0;
      acc[r][1] += ar * b1;
      acc[r][2] += ar * b2;
      acc[r][3] += ar * b3;
    }
  }
  for (int r = 0; r < R; r++) {
    double* o = out + r * ldo;
    if (cols == kPanel) {  // stored straight (a memcpy of variable size is a call in wasm)
      store2(o, acc[r][0]);
      store2(o + 2, acc[r][1]);
      store2(o + 4, acc[r][2]);
      store2(o + 6, acc[r][3]);
    } else {  // the right edge: cols < 8
      double tmp[kPanel];
      store2(tmp, acc[r][0]);
      store2(tmp + 2, acc[r][1]);
      store2(tmp + 4, acc[r][2]);
      store2(tmp + 6, acc[r][3]);
      std::memcpy(o, tmp, sizeof(double) * cols);
    }
  }
}

// Packs the columns of b (k × n, row-major, row stride ldb) into panels of 8 columns, each
// panel k × 8 contiguous, zero-padded at the right edge: the micro-kernel then streams it.
void pack_panels(const double* b, int k, int n, int ldb, std::vector<double>* packed) {
  const int panels = (n + kPanel - 1) / kPanel;
  packed->assign(static_cast<size_t>(panels) * k * kPanel, 0.0);
  for (int p = 0; p < panels; p++) {
    const int j0 = p * kPanel;
    const int w = std::min(kPanel, n - j0);
    double* dst = packed->data() + static_cast<size_t>(p) * k * kPanel;
    for (int t = 0; t < k; t++) {
      const double* src = b + static_cast<size_t>(t) * ldb + j0;
      if (w == kPanel) {  // copied straight (a memcpy of variable size is a call in wasm)
        for (int c = 0; c < kPanel; c += 2) store2(dst + t * kPanel + c, load2(src + c));
      } else {
        std::memcpy(dst + t * kPanel, src, sizeof(double) * w);
      }
    }
  }
}

// out (m × n) = a (m × k, stride lda) · b, with b already packed into panels.
void matmul_packed(const double* a, int m, int k, int lda, const std::vector<double>& packed, int n,
                   double* out) {
  const int panels = (n + kPanel - 1) / kPanel;
  // Row blocks of 2 outside, panels inside: a block's 2 rows of a stay in cache while every
  // panel streams past; a panel (k × 8 doubles) is small enough for L1 at attention sizes.
  for (int i = 0; i < m; i += 2) {
    const double* a_block = a + static_cast<size_t>(i) * lda;
    for (int p = 0; p < panels; p++) {
      const int j0 = p * kPanel;
      const int cols = std::min(kPanel, n - j0);
      const double* panel = packed.data() + static_cast<size_t>(p) * k * kPanel;
      double* o = out + static_cast<size_t>(i) * n + j0;
      if (m - i >= 2) {
        micro_kernel<2>(a_block, lda, panel, k, o, n, cols);
      } else {
        micro_kernel<1>(a_block, lda, panel, k, o, n, cols);  // the last row of an odd m
      }
    }
  }
}

}  // namespace

// exp_lanes's constants, in memory with external linkage on purpose: as compile-time constants
// they become wasm v128.const, which V8 rebuilds (several instructions each) on every use inside
// the softmax loop; read from memory, they are loaded once before it (and, spilled, reloaded
// as one memory operand). The wasm softmax of 512 × 512 went from ~2.5 to ~2.0 ms in Chromium.
double exp_constants[] = {1.4426950408889634,          // 1/ln2
                          6.93147180369123816490e-01,  // ln2hi: ln2 split so k·ln2hi is exact
                          1.90821492927058770002e-10,  // ln2lo = ln2 - ln2hi
                          6755399441055744.0,          // 1.5·2^52: adding it rounds to an integer
                          -708.0,                      // below it 2^k would be subnormal
                          // c_n = 1/n!, n = 0 … 13
                          1.0, 1.0, 1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120, 1.0 / 720, 1.0 / 5040,
                          1.0 / 40320, 1.0 / 362880, 1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600,
                          1.0 / 6227020800};

namespace {

// exp_constants as vectors, loaded once per softmax.
struct ExpConstants {
  f64x2 inv_ln2, ln2_hi, ln2_lo, shift, tiny;
  f64x2 c[14];
};

ExpConstants load_exp_constants() {
  ExpConstants k;
  k.inv_ln2 = splat(exp_constants[0]);
  k.ln2_hi = splat(exp_constants[1]);
  k.ln2_lo = splat(exp_constants[2]);
  k.shift = splat(exp_constants[3]);
  k.tiny = splat(exp_constants[4]);
  for (int n = 0; n < 14; n++) k.c[n] = splat(exp_constants[5 + n]);
  return k;
}

// exp on two lanes, to within ~1 ulp of std::exp, for x <= 0 (softmax's x - max).
// exp(x) = 2^k · exp(r), x = k·ln2 + r, |r| <= ln2/2; exp(r) by its Taylor series to r^13
// (the next term is below 4e-18 relative), evaluated by Estrin's scheme: a few short
// dependency chains instead of Horner's 13 in a row, which would leave the CPU waiting.
// 2^k is built in the exponent bits. Lanes below -708 (where 2^k would be subnormal) or
// -Infinity (masked) are left to std::exp.
inline f64x2 exp_lanes(f64x2 x, const ExpConstants& e) {
  const f64x2 kd = x * e.inv_ln2 + e.shift;
  const i64x2 ki = to_bits(kd);  // the low bits of kd's mantissa now hold k
  const f64x2 k = kd - e.shift;
  const f64x2 r = (x - k * e.ln2_hi) - k * e.ln2_lo;
  const f64x2 r2 = r * r;
  const f64x2 r4 = r2 * r2;
  const f64x2 r8 = r4 * r4;
  // c_n + c_{n+1}·r, paired
  const f64x2 p01 = e.c[0] + r;  // c_1 = 1, so c_0 + c_1·r
  const f64x2 p23 = e.c[2] + e.c[3] * r;
  const f64x2 p45 = e.c[4] + e.c[5] * r;
  const f64x2 p67 = e.c[6] + e.c[7] * r;
  const f64x2 p89 = e.c[8] + e.c[9] * r;
  const f64x2 p1011 = e.c[10] + e.c[11] * r;
  const f64x2 p1213 = e.c[12] + e.c[13] * r;
  const f64x2 p0_3 = p01 + p23 * r2;
  const f64x2 p4_7 = p45 + p67 * r2;
  const f64x2 p8_11 = p89 + p1011 * r2;
  const f64x2 p = (p0_3 + p4_7 * r4) + (p8_11 + p1213 * r4) * r8;
  const f64x2 scale = from_bits((ki + i64x2{1023, 1023}) << 52);  // 2^k
  f64x2 y = p * scale;
  const i64x2 tiny = x < e.tiny;  // all ones in a lane below -708
  if (tiny[0] | tiny[1]) {        // rare: one test for both lanes
    if (tiny[0]) y[0] = std::exp(x[0]);
    if (tiny[1]) y[1] = std::exp(x[1]);
  }
  return y;
}

// Largest of x[0 … n), two lanes at a time (no NaN here: inputs are finite, masks -Infinity).
inline double row_max(const double* x, int n) {
  f64x2 m = splat(x[0]);
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    const f64x2 v = load2(x + j);
    const i64x2 greater = v > m;
    m = from_bits((to_bits(v) & greater) | (to_bits(m) & ~greater));
  }
  double max = m[0] > m[1] ? m[0] : m[1];
  for (; j < n; j++) max = x[j] > max ? x[j] : max;
  return max;
}

}  // namespace

void Matrix::resize(int r, int c) {
  rows = r;
  cols = c;
  data.resize(static_cast<size_t>(r) * c);  // keeps the allocation when it is large enough
}

void matmul(const Matrix& a, const Matrix& b, Matrix* out) {
  out->resize(a.rows, b.cols);
  std::vector<double>& packed = panel_buffer();
  pack_panels(b.data.data(), b.rows, b.cols, b.cols, &packed);
  matmul_packed(a.data.data(), a.rows, a.cols, a.cols, packed, b.cols, out->data.data());
}

void matmul_transposed(const Matrix& a, const Matrix& b, Matrix* out) {
  // Panels of bᵀ are read straight from b's rows: panel p holds rows 8p … 8p+7 of b, so the
  // sum over k for out[i][j] runs in the same order as dot(row i of a, row j of b).
  out->resize(a.rows, b.rows);
  const int k = a.cols;
  const int n = b.rows;
  const int panels = (n + kPanel - 1) / kPanel;
  std::vector<double>& packed = panel_buffer();
  packed.assign(static_cast<size_t>(panels) * k * kPanel, 0.0);
  for (int j = 0; j < n; j++) {
    double* dst = packed.data() + static_cast<size_t>(j / kPanel) * k * kPanel + j % kPanel;
    const double* src = b.data.data() + static_cast<size_t>(j) * k;
    for (int t = 0; t < k; t++) dst[t * kPanel] = src[t];
  }
  matmul_packed(a.data.data(), a.rows, k, a.cols, packed, n, out->data.data());
}

void softmax_rows(const Matrix& x, Matrix* out) {
  out->resize(x.rows, x.cols);
  const ExpConstants e = load_exp_constants();
  const int n = x.cols;
  for (int i = 0; i < x.rows; i++) {
    const double* in_row = &x.data[static_cast<size_t>(i) * n];
    double* out_row = &out->data[static_cast<size_t>(i) * n];
    // subtract the row max: exp must not overflow, and the largest term is exp(0) = 1,
    // so the sum is at least 1
    double max = row_max(in_row, n);
    // every key masked: nothing to attend to, so no weight at all (exp(-inf - -inf) is NaN)
    if (std::isinf(max) && max < 0) {
      std::fill(out_row, out_row + n, 0.0);
      continue;
    }
    int j = 0;
    f64x2 sums = {};  // two partial sums, one per lane
    for (; j + 2 <= n; j += 2) {
      const f64x2 v = exp_lanes(load2(in_row + j) - splat(max), e);
      store2(out_row + j, v);
      sums += v;
    }
    double sum = sums[0] + sums[1];
    for (; j < n; j++) {
      out_row[j] = std::exp(in_row[j] - max);
      sum += out_row[j];
    }
    const f64x2 sum2 = splat(sum);
    for (j = 0; j + 2 <= n; j += 2) store2(out_row + j, load2(out_row + j) / sum2);
    for (; j < n; j++) out_row[j] /= sum;
  }
}

void add(const Matrix& a, const Matrix& b, Matrix* out) {
  out->resize(a.rows, a.cols);
  for (size_t i = 0; i < a.data.size(); i++) out->data[i] = a.data[i] + b.data[i];
}

void divide(const Matrix& a, double divisor, Matrix* out) {
  out->resize(a.rows, a.cols);
  const size_t n = a.data.size();
  const double* in = a.data.data();
  double* o = out->data.data();
  const f64x2 d = splat(divisor);
  size_t i = 0;
  for (; i + 2 <= n; i += 2) store2(o + i, load2(in + i) / d);  // each lane rounds as scalar /
  for (; i < n; i++) o[i] = in[i] / divisor;
}

bool all_finite(const Matrix& m) {
  // v·0 is ±0 for finite v and NaN for ±Infinity or NaN; a NaN anywhere makes the sum NaN
  const size_t n = m.data.size();
  const double* p = m.data.data();
  f64x2 acc0 = {};
  f64x2 acc1 = {};
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    acc0 += load2(p + i) * splat(0.0);
    acc1 += load2(p + i + 2) * splat(0.0);
  }
  double sum = (acc0[0] + acc0[1]) + (acc1[0] + acc1[1]);
  for (; i < n; i++) sum += p[i] * 0.0;
  return sum == sum;  // false only for NaN
}

void sinusoidal_positional_encoding(int n, int d_model, Matrix* out) {
  out->resize(n, d_model);
  for (int pos = 0; pos < n; pos++) {
    for (int col = 0; col < d_model; col++) {
      const int two_i = col - col % 2;  // columns 2i and 2i+1 share one frequency
      const double angle = pos / std::pow(10000.0, static_cast<double>(two_i) / d_model);
      out->at(pos, col) = col % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
}

}  // namespace attn
