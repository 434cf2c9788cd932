// Scaled dot-product self-attention in float64, keeping every intermediate.
//
//   X (n, d_model) --W_Q (d_model, d_k)--> Q (n, d_k)
//                  --W_K (d_model, d_k)--> K (n, d_k)
//                  --W_V (d_model, d_v)--> V (n, d_v)
//   Scores  = Q·Kᵀ            (n, n)
//   Scaled  = Scores / √d_k   (n, n)
//   Weights = softmax(Scaled) per row (n, n)
//   Output  = Weights·V       (n, d_v)
//
// Every matrix is row-major. The core reports bad input as an Error value (no
// exceptions), so it runs the same natively and in WebAssembly.
#pragma once

#include <string>
#include <vector>

#include "kernels.h"

namespace attn {

// What is wrong with the input. `operand` names it as the public API does
// ("x", "wq", "wk", "wv", or a result such as "scores" for an overflow);
// row and column are 0-based, -1 when they do not apply.
enum class ErrorCode { ok, empty, empty_row, ragged, not_finite, shape, overflow };

struct Error {
  ErrorCode code = ErrorCode::ok;
  std::string operand;
  int row = -1;
  int column = -1;
  std::string message;  // English, says what was expected

  bool ok() const { return code == ErrorCode::ok; }
};

const char* error_code_name(ErrorCode code);

// Builds `out` from rows given as one flat buffer of all values, row after row,
// with row_lengths[i] values in row i. Rejects no rows, an empty row, rows of
// different lengths and NaN/±Inf, naming the row and column.
Error matrix_from_rows(const std::string& name, const double* values, const int* row_lengths,
                       int n_rows, Matrix* out);

struct AttentionInput {
  Matrix x;   // (n, d_model)
  Matrix wq;  // (d_model, d_k)
  Matrix wk;  // (d_model, d_k)
  Matrix wv;  // (d_model, d_v)
};

struct AttentionResult {
  Matrix q;        // (n, d_k)
  Matrix k;        // (n, d_k)
  Matrix v;        // (n, d_v)
  Matrix scores;   // (n, n)   Q·Kᵀ
  Matrix scaled;   // (n, n)   Scores / √d_k
  Matrix weights;  // (n, n)   softmax per row; each row sums to 1
  Matrix output;   // (n, d_v) Weights·V
};

// Checks that the operands' shapes fit together, naming the operand and both
// shapes when they do not.
Error check_shapes(const AttentionInput& in);

// Runs every step into `out`. Returns an error for mismatched shapes, or when
// the values are so large that a product overflows to ±Inf.
Error self_attention(const AttentionInput& in, AttentionResult* out);

}  // namespace attn
