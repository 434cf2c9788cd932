// The numeric kernels behind attention: dense float64 matrices, matrix products and a
// row-wise softmax. Shapes are checked by the caller (attention.h); these only compute.
#pragma once

#include <cstddef>
#include <vector>

namespace attn {

// A dense matrix: element (i, j) is data[i * cols + j].
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<double> data;

  Matrix() = default;
  Matrix(int r, int c) : rows(r), cols(c), data(static_cast<size_t>(r) * c, 0.0) {}
  // Sets the shape, keeping the allocation when it is large enough (values unspecified):
  // results written every recompute reuse their buffers.
  void resize(int r, int c);
  double& at(int i, int j) { return data[static_cast<size_t>(i) * cols + j]; }
  double at(int i, int j) const { return data[static_cast<size_t>(i) * cols + j]; }
};

// out = a·b, (a.rows, b.cols). Shapes must already agree: a.cols == b.rows.
void matmul(const Matrix& a, const Matrix& b, Matrix* out);

// out = a·bᵀ, (a.rows, b.rows). Shapes must already agree: a.cols == b.cols.
void matmul_transposed(const Matrix& a, const Matrix& b, Matrix* out);

// out = aᵀ·b, (a.cols, b.cols). Shapes must already agree: a.rows == b.rows. (The backward
// pass's products with a transposed left operand, e.g. dV = Weightsᵀ·dOutput.)
void matmul_transposed_left(const Matrix& a, const Matrix& b, Matrix* out);

// Row-wise softmax of x into out (same shape). Entries of -Infinity (masked scores) get
// exactly 0; a row that is -Infinity everywhere (every key masked) gets all zeros, not NaN.
void softmax_rows(const Matrix& x, Matrix* out);

// out = a + b, element by element (same shape).
void add(const Matrix& a, const Matrix& b, Matrix* out);

// m[i][j] += b[j] for every row i: a bias on every row (b has m.cols values).
void add_to_rows(const std::vector<double>& b, Matrix* m);

// out[j] = Σ_i m[i][j], m.cols values: the gradient of a bias that add_to_rows() added.
void column_sums(const Matrix& m, std::vector<double>* out);

// out = a / divisor, element by element (out may be a).
void divide(const Matrix& a, double divisor, Matrix* out);

// Whether every element of m is finite (no ±Infinity, no NaN).
bool all_finite(const Matrix& m);

// Sinusoidal positional encoding of "Attention Is All You Need", (n, d_model):
//   PE[pos][2i]   = sin(pos / 10000^(2i / d_model))
//   PE[pos][2i+1] = cos(pos / 10000^(2i / d_model))
void sinusoidal_positional_encoding(int n, int d_model, Matrix* out);

}  // namespace attn
