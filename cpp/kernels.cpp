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
// Two 64-bit lanes of bits: doubles' bits, and comparisons' lane masks (all ones where true)
// cast to it. Unsigned, so that shifts are defined for every bit pattern.
typedef unsigned long long u64x2 __attribute__((vector_size(16)));

inline f64x2 load2(const double* p) {
  f64x2 v;
  std::memcpy(&v, p, sizeof v);  // unaligned load
  return v;
}

inline void store2(double* p, f64x2 v) { std::memcpy(p, &v, sizeof v); }

inline f64x2 splat(double x) { return f64x2{x, x}; }

// The bits of two doubles as two 64-bit integers, and back (no aliasing tricks).
inline u64x2 to_bits(f64x2 v) {
  u64x2 b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

inline f64x2 from_bits(u64x2 b) {
  f64x2 v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

// a where the lane mask is all ones, else b (a comparison's result cast to u64x2)
inline f64x2 select(u64x2 mask, f64x2 a, f64x2 b) {
  return from_bits((to_bits(a) & mask) | (to_bits(b) & ~mask));
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
// as one memory operand).
double exp_constants[] = {92.33248261689366,       // 64/ln2
                          0.01083042469326756,     // ln2hi/64: ln2 split so k·ln2hi/64 is exact
                          2.9815858269852933e-12,  // ln2lo/64 = (ln2 - ln2hi)/64
                          6755399441055744.0,      // 1.5·2^52: adding it rounds to an integer
                          -708.0,                  // below it 2^m would be subnormal
                          // c_n = 1/n!, n = 2 … 5
                          1.0 / 2, 1.0 / 6, 1.0 / 24, 1.0 / 120};

// exp2_table[j] = 2^(j/64), correctly rounded (from 50-digit decimal arithmetic).
double exp2_table[64] = {
    0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
    0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
    0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
    0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
    0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
    0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
    0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
    0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
    0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
    0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
    0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
    0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
    0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
    0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
    0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
    0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
};

namespace {

// exp_constants as vectors, loaded once per softmax.
struct ExpConstants {
  f64x2 inv_ln2_64, ln2_hi_64, ln2_lo_64, shift, tiny;
  f64x2 c[4];  // c_2 … c_5
};

ExpConstants load_exp_constants() {
  ExpConstants k;
  k.inv_ln2_64 = splat(exp_constants[0]);
  k.ln2_hi_64 = splat(exp_constants[1]);
  k.ln2_lo_64 = splat(exp_constants[2]);
  k.shift = splat(exp_constants[3]);
  k.tiny = splat(exp_constants[4]);
  for (int n = 0; n < 4; n++) k.c[n] = splat(exp_constants[5 + n]);
  return k;
}

// exp on two lanes, to within ~1 ulp of std::exp, for -708 <= x <= 0 (softmax's x - max;
// 2^m below stays normal there). x = k·ln2/64 + r with k an integer and |r| <= ln2/128, so
// exp(x) = 2^m · 2^(j/64) · exp(r) for k = 64m + j: 2^m is built in the exponent bits,
// 2^(j/64) looked up, and exp(r) - 1 = r + r²/2 + … + r⁵/120 (the next term is below 4e-17
// relative). The short polynomial is what makes it fast: a few short dependency chains.
inline f64x2 exp_lanes(f64x2 x, const ExpConstants& e) {
  const f64x2 kd = x * e.inv_ln2_64 + e.shift;
  const u64x2 ki = to_bits(kd);  // the low bits of kd's mantissa now hold k
  const f64x2 k = kd - e.shift;
  const f64x2 r = (x - k * e.ln2_hi_64) - k * e.ln2_lo_64;
  const f64x2 r2 = r * r;
  const f64x2 q = r + r2 * (e.c[0] + e.c[1] * r) + (r2 * r2) * (e.c[2] + e.c[3] * r);
  const u64x2 j = ki & 63;  // always a valid index, whatever x is
  const f64x2 t = {exp2_table[j[0]], exp2_table[j[1]]};
  // 2^m: m + 1023 in the exponent field (the bits of ki above k's shift out)
  const f64x2 scale = from_bits(((ki >> 6) + 1023) << 52);
  return (t + t * q) * scale;
}

// Which lanes exp_row may meet beyond exp_lanes's range, and so what it must test for.
enum class ExpRange {
  kNormal,  // none: every x - max is within [-708, 0]
  kMasked,  // -Infinity (masked keys) only, which get 0 without a branch
  kAny,     // also finite x - max below -708, whose exp is subnormal: left to std::exp
};

// exp_lanes for x <= 0 that may hold -Infinity, or also (kAny) finite lanes below -708.
template <ExpRange kRange>
inline f64x2 exp_lanes_beyond(f64x2 x, const ExpConstants& e) {
  const f64x2 y = exp_lanes(x, e);         // NaN in -Infinity lanes, wrong below -708
  const u64x2 tiny = (u64x2)(x < e.tiny);  // all ones in a lane below -708
  if (kRange == ExpRange::kAny && (tiny[0] | tiny[1])) {  // one test for both lanes
    f64x2 z = y;
    for (int l = 0; l < 2; l++) {
      if (tiny[l]) z[l] = std::exp(x[l]);  // exactly 0 for -Infinity
    }
    return z;
  }
  return from_bits(to_bits(y) & ~tiny);  // kMasked: the tiny lanes are -Infinity, exp 0
}

// Largest and smallest of x[0 … n), two lanes at a time (no NaN here: inputs are finite,
// masks -Infinity).
inline void row_range(const double* x, int n, double* max, double* min) {
  f64x2 hi = splat(x[0]);
  f64x2 lo = hi;
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    const f64x2 v = load2(x + j);
    hi = select((u64x2)(v > hi), v, hi);
    lo = select((u64x2)(v < lo), v, lo);
  }
  *max = hi[0] > hi[1] ? hi[0] : hi[1];
  *min = lo[0] < lo[1] ? lo[0] : lo[1];
  for (; j < n; j++) {
    *max = x[j] > *max ? x[j] : *max;
    *min = x[j] < *min ? x[j] : *min;
  }
}

// Smallest finite value of x[0 … n), two lanes at a time (+Infinity if there is none): for a
// row with masked keys, whether its other scores keep every exp normal.
inline double finite_min(const double* x, int n) {
  const f64x2 inf = splat(std::numeric_limits<double>::infinity());
  f64x2 lo = inf;
  int j = 0;
  for (; j + 2 <= n; j += 2) {
    const f64x2 v = load2(x + j);
    lo = select((u64x2)(v < lo) & (u64x2)(v > -inf), v, lo);
  }
  double min = lo[0] < lo[1] ? lo[0] : lo[1];
  for (; j < n; j++) min = x[j] < min && !std::isinf(x[j]) ? x[j] : min;
  return min;
}

// out[j] = exp(in[j] - max) for j in [0, n), returning their sum.
template <ExpRange kRange>
double exp_row(const double* in, int n, double max, const ExpConstants& e, double* out) {
  int j = 0;
  f64x2 sums = {};  // two partial sums, one per lane
  for (; j + 2 <= n; j += 2) {
    const f64x2 x = load2(in + j) - splat(max);
    const f64x2 v = kRange == ExpRange::kNormal ? exp_lanes(x, e) : exp_lanes_beyond<kRange>(x, e);
    store2(out + j, v);
    sums += v;
  }
  double sum = sums[0] + sums[1];
  for (; j < n; j++) {
    out[j] = std::exp(in[j] - max);
    sum += out[j];
  }
  return sum;
}

}  // namespace

void Matrix::resize(int r, int c) {
  rows = r;
  cols = c;
  data.resize(static_cast<size_t>(r) * c);  // keeps the allocation when it is large enough
}

void matmul(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch) {
  out->resize(a.rows, b.cols);
  std::vector<double>& packed = scratch->panels;
  pack_panels(b.data.data(), b.rows, b.cols, b.cols, &packed);
  matmul_packed(a.data.data(), a.rows, a.cols, a.cols, packed, b.cols, out->data.data());
}

void matmul_transposed(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch) {
  // Panels of bᵀ are read straight from b's rows: panel p holds rows 8p … 8p+7 of b, so the
  // sum over k for out[i][j] runs in the same order as dot(row i of a, row j of b).
  out->resize(a.rows, b.rows);
  const int k = a.cols;
  const int n = b.rows;
  const int panels = (n + kPanel - 1) / kPanel;
  std::vector<double>& packed = scratch->panels;
  packed.assign(static_cast<size_t>(panels) * k * kPanel, 0.0);
  for (int j = 0; j < n; j++) {
    double* dst = packed.data() + static_cast<size_t>(j / kPanel) * k * kPanel + j % kPanel;
    const double* src = b.data.data() + static_cast<size_t>(j) * k;
    for (int t = 0; t < k; t++) dst[t * kPanel] = src[t];
  }
  matmul_packed(a.data.data(), a.rows, k, a.cols, packed, n, out->data.data());
}

void matmul_transposed_left(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch) {
  // aᵀ (a.cols, a.rows) is written out row-major, then multiplied as in matmul: the sum over k
  // for out[i][j] runs over the rows of a in order.
  out->resize(a.cols, b.cols);
  std::vector<double>& at = scratch->transposed;
  at.resize(a.data.size());
  constexpr int kTile = 16;  // 16 × 16 tiles: the strided side of the copy stays in cache
  for (int t0 = 0; t0 < a.rows; t0 += kTile) {
    for (int i0 = 0; i0 < a.cols; i0 += kTile) {
      const int t1 = std::min(t0 + kTile, a.rows);
      const int i1 = std::min(i0 + kTile, a.cols);
      for (int t = t0; t < t1; t++) {
        for (int i = i0; i < i1; i++) at[static_cast<size_t>(i) * a.rows + t] = a.at(t, i);
      }
    }
  }
  std::vector<double>& packed = scratch->panels;
  pack_panels(b.data.data(), b.rows, b.cols, b.cols, &packed);
  matmul_packed(at.data(), a.cols, a.rows, a.rows, packed, b.cols, out->data.data());
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
    double max, min;
    row_range(in_row, n, &max, &min);
    // every key masked: nothing to attend to, so no weight at all (exp(-inf - -inf) is NaN)
    if (std::isinf(max) && max < 0) {
      std::fill(out_row, out_row + n, 0.0);
      continue;
    }
    // the usual row keeps every x - max within [-708, 0] and needs no test per element; a
    // row with masked keys zeroes them without a branch; only a spread of scores beyond 708
    // tests every pair
    const double tiny = e.tiny[0];
    const double sum = min - max >= tiny ? exp_row<ExpRange::kNormal>(in_row, n, max, e, out_row)
                       : std::isinf(min) && finite_min(in_row, n) - max >= tiny
                           ? exp_row<ExpRange::kMasked>(in_row, n, max, e, out_row)
                           : exp_row<ExpRange::kAny>(in_row, n, max, e, out_row);
    const f64x2 sum2 = splat(sum);
    int j = 0;
    for (; j + 2 <= n; j += 2) store2(out_row + j, load2(out_row + j) / sum2);
    for (; j < n; j++) out_row[j] /= sum;
  }
}

void add(const Matrix& a, const Matrix& b, Matrix* out) {
  out->resize(a.rows, a.cols);
  for (size_t i = 0; i < a.data.size(); i++) out->data[i] = a.data[i] + b.data[i];
}

void add_to_rows(const std::vector<double>& b, Matrix* m) {
  for (int i = 0; i < m->rows; i++) {
    double* row = &m->data[static_cast<size_t>(i) * m->cols];
    for (int j = 0; j < m->cols; j++) row[j] += b[j];
  }
}

void column_sums(const Matrix& m, std::vector<double>* out) {
  out->assign(m.cols, 0.0);
  for (int i = 0; i < m.rows; i++) {
    const double* row = &m.data[static_cast<size_t>(i) * m.cols];
    for (int j = 0; j < m.cols; j++) (*out)[j] += row[j];
  }
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
