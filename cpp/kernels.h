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

// The matrix products' scratch space, owned by the caller and kept from call to call, so that a
// product allocates nothing (and faults in no fresh pages): the right operand packed into
// panels of 8 columns, and the transposed left operand of matmul_transposed_left. The structs
// whose calls run products keep one (MultiHeadResult, Gradients, ModelRun). Its contents between
// calls mean nothing.
struct MatmulScratch {
  std::vector<double> panels;      // b (k, n) as ⌈n/8⌉ panels of k × 8
  std::vector<double> transposed;  // aᵀ (a.cols, a.rows), matmul_transposed_left only
};

// Each product sums over k in order for every element, exactly as the plain loop
//   out[i][j] = 0; for t in 0 … k−1: out[i][j] += a[i][t]·b[t][j]
// rounds it (no reordering, no fused multiply-add): tests/cpp/test_kernels.cpp holds them to it
// bit for bit.

// out = a·b, (a.rows, b.cols). Shapes must already agree: a.cols == b.rows.
void matmul(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch);

// out = a·bᵀ, (a.rows, b.rows). Shapes must already agree: a.cols == b.cols.
void matmul_transposed(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch);

// out = aᵀ·b, (a.cols, b.cols). Shapes must already agree: a.rows == b.rows. (The backward
// pass's products with a transposed left operand, e.g. dV = Weightsᵀ·dOutput.)
void matmul_transposed_left(const Matrix& a, const Matrix& b, Matrix* out, MatmulScratch* scratch);

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
