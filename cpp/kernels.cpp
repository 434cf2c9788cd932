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
    double sum = 0.0;
    for (int j = 0; j < x.cols; j++) {
      out->at(i, j) = std::exp(x.at(i, j) - max);
      sum += out->at(i, j);
    }
    for (int j = 0; j < x.cols; j++) out->at(i, j) /= sum;
  }
}

}  // namespace attn
