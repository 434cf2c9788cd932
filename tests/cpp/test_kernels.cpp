// The fast matrix products against a plain reference loop, bit for bit. kernels.cpp promises
// that every product sums over k in the plain loop's order (its micro-kernel keeps one
// accumulator per element and steps k in order; no FMA contraction), so each element is rounded
// exactly as the loop below rounds it: any other order (split accumulators, pairwise sums, a
// fused multiply-add) changes low bits of these mixed-magnitude values.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels.h"

using attn::Matrix;

namespace {

// out[i][j] = Σ_t a[i][t]·b[t][j], t from 0 up, starting from 0: the plain i-k-j loop.
Matrix reference_matmul(const Matrix& a, const Matrix& b) {
  Matrix out(a.rows, b.cols);
  for (int i = 0; i < a.rows; i++) {
    for (int t = 0; t < a.cols; t++) {
      for (int j = 0; j < b.cols; j++) out.at(i, j) += a.at(i, t) * b.at(t, j);
    }
  }
  return out;
}

Matrix transposed(const Matrix& m) {
  Matrix out(m.cols, m.rows);
  for (int i = 0; i < m.rows; i++) {
    for (int j = 0; j < m.cols; j++) out.at(j, i) = m.at(i, j);
  }
  return out;
}

// Values of mixed signs and magnitudes (1e-3 … 1e3), so that the order of a sum shows in its
// last bits.
Matrix random_matrix(int rows, int cols, std::mt19937_64* rng) {
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-10, 10);
  Matrix m(rows, cols);
  for (double& v : m.data) v = std::ldexp(mantissa(*rng), exponent(*rng));
  return m;
}

// Every element's bits equal (a NaN would differ from itself under ==, and -0 would equal 0).
void require_same_bits(const Matrix& got, const Matrix& want) {
  REQUIRE(got.rows == want.rows);
  REQUIRE(got.cols == want.cols);
  for (int i = 0; i < want.rows; i++) {
    for (int j = 0; j < want.cols; j++) {
      uint64_t g, w;
      const double gv = got.at(i, j), wv = want.at(i, j);
      std::memcpy(&g, &gv, sizeof g);
      std::memcpy(&w, &wv, sizeof w);
      INFO("element [" << i << "][" << j << "]: " << gv << " vs the plain loop's " << wv);
      REQUIRE(g == w);
    }
  }
}

}  // namespace

TEST_CASE("the fast matrix products round exactly as the plain loop", "[matmul][kernels]") {
  // (m, k, n): single rows and columns, odd row counts (the 1-row kernel), panel edges
  // (n = 7, 8, 9 around the 8-wide panels) and attention-sized products
  const auto [m, k, n] = GENERATE(table<int, int, int>({{1, 1, 1},
                                                        {1, 5, 3},
                                                        {2, 3, 8},
                                                        {3, 8, 7},
                                                        {5, 13, 9},
                                                        {7, 64, 16},
                                                        {16, 17, 33},
                                                        {32, 64, 64},
                                                        {33, 40, 100}}));
  std::mt19937_64 rng(20261202u + static_cast<unsigned>(m * 10000 + k * 100 + n));
  attn::MatmulScratch scratch;
  const Matrix a = random_matrix(m, k, &rng);
  Matrix out;
  SECTION("matmul: a·b") {
    const Matrix b = random_matrix(k, n, &rng);
    attn::matmul(a, b, &out, &scratch);
    require_same_bits(out, reference_matmul(a, b));
  }
  SECTION("matmul_transposed: a·bᵀ") {
    const Matrix b = random_matrix(n, k, &rng);
    attn::matmul_transposed(a, b, &out, &scratch);
    require_same_bits(out, reference_matmul(a, transposed(b)));
  }
  SECTION("matmul_transposed_left: aᵀ·c") {
    const Matrix c = random_matrix(m, n, &rng);
    attn::matmul_transposed_left(a, c, &out, &scratch);
    require_same_bits(out, reference_matmul(transposed(a), c));
  }
}

TEST_CASE("one scratch serves products of every shape in turn", "[matmul][kernels]") {
  // a scratch left large by a big product, then used for a small one, and the reverse
  std::mt19937_64 rng(7);
  attn::MatmulScratch shared;
  const int shapes[][3] = {{40, 50, 60}, {2, 3, 4}, {9, 1, 17}, {40, 50, 60}};
  for (const auto& s : shapes) {
    const Matrix a = random_matrix(s[0], s[1], &rng);
    const Matrix b = random_matrix(s[1], s[2], &rng);
    const Matrix c = random_matrix(s[0], s[2], &rng);
    Matrix out;
    attn::matmul(a, b, &out, &shared);
    require_same_bits(out, reference_matmul(a, b));
    attn::matmul_transposed_left(a, c, &out, &shared);
    require_same_bits(out, reference_matmul(transposed(a), c));
  }
}
