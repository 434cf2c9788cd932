#include "kernels.h"

#include <cmath>

namespace attn {

void matmul(const Matrix& a, const Matrix& b, Matrix* out) {
  // i-k-j order: the inner loop walks rows of b and out contiguously.
  *out = Matrix(a.rows, b.cols);
  for (int i = 0; i < a.rows; i++) {
    double* out_row = &out->data[static_cast<size_t>(i) * b.cols];
    for (int k = 0; k < a.cols; k++) {
      const double a_ik = a.at(i, k);
      const double* b_row = &b.data[static_cast<size_t>(k) * b.cols];
      for (int j = 0; j < b.cols; j++) out_row[j] += a_ik * b_row[j];
    }
  }
}

void matmul_transposed(const Matrix& a, const Matrix& b, Matrix* out) {
  // out[i][j] = dot(row i of a, row j of b): both rows are contiguous.
  *out = Matrix(a.rows, b.rows);
  for (int i = 0; i < a.rows; i++) {
    for (int j = 0; j < b.rows; j++) {
      double sum = 0.0;
      for (int k = 0; k < a.cols; k++) sum += a.at(i, k) * b.at(j, k);
      out->at(i, j) = sum;
    }
  }
}

void softmax_rows(const Matrix& x, Matrix* out) {
  *out = Matrix(x.rows, x.cols);
  for (int i = 0; i < x.rows; i++) {
    // subtract the row max: exp must not overflow, and the largest term is exp(0) = 1,
    // so the sum is at least 1
    double max = x.at(i, 0);
    for (int j = 1; j < x.cols; j++) max = std::fmax(max, x.at(i, j));
    // every key masked: nothing to attend to, so no weight at all (exp(-inf - -inf) is NaN)
    if (std::isinf(max) && max < 0) continue;  // the row stays all zeros
    double sum = 0.0;
    for (int j = 0; j < x.cols; j++) {
      out->at(i, j) = std::exp(x.at(i, j) - max);
      sum += out->at(i, j);
    }
    for (int j = 0; j < x.cols; j++) out->at(i, j) /= sum;
  }
}

void add(const Matrix& a, const Matrix& b, Matrix* out) {
  *out = Matrix(a.rows, a.cols);
  for (size_t i = 0; i < a.data.size(); i++) out->data[i] = a.data[i] + b.data[i];
}

void sinusoidal_positional_encoding(int n, int d_model, Matrix* out) {
  *out = Matrix(n, d_model);
  for (int pos = 0; pos < n; pos++) {
    for (int col = 0; col < d_model; col++) {
      const int two_i = col - col % 2;  // columns 2i and 2i+1 share one frequency
      const double angle = pos / std::pow(10000.0, static_cast<double>(two_i) / d_model);
      out->at(pos, col) = col % 2 == 0 ? std::sin(angle) : std::cos(angle);
    }
  }
}

}  // namespace attn
