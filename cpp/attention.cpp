#include "attention.h"

#include <cmath>
#include <sstream>

namespace attn {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::ok:
      return "ok";
    case ErrorCode::empty:
      return "empty";
    case ErrorCode::empty_row:
      return "empty_row";
    case ErrorCode::ragged:
      return "ragged";
    case ErrorCode::not_finite:
      return "not_finite";
    case ErrorCode::shape:
      return "shape";
    case ErrorCode::overflow:
      return "overflow";
  }
  return "unknown";
}

namespace {

Error make_error(ErrorCode code, const std::string& operand, int row, int column,
                 const std::string& message) {
  Error e;
  e.code = code;
  e.operand = operand;
  e.row = row;
  e.column = column;
  e.message = message;
  return e;
}

std::string shape_of(const Matrix& m) {
  return std::to_string(m.rows) + " × " + std::to_string(m.cols);
}

// "1 value", "3 values"
std::string count(int n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

const char* non_finite_name(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

// First non-finite element of m, reported as an overflow of the step `name`.
Error check_finite_result(const std::string& name, const Matrix& m) {
  for (int i = 0; i < m.rows; i++) {
    for (int j = 0; j < m.cols; j++) {
      double v = m.at(i, j);
      if (std::isfinite(v)) continue;
      std::ostringstream msg;
      msg << name << "[" << i << "][" << j << "] is " << non_finite_name(v)
          << ": the inputs are too large for float64 (products overflow); use smaller values";
      return make_error(ErrorCode::overflow, name, i, j, msg.str());
    }
  }
  return Error{};
}

}  // namespace

Error matrix_from_rows(const std::string& name, const double* values, const int* row_lengths,
                       int n_rows, Matrix* out) {
  if (n_rows <= 0) {
    return make_error(ErrorCode::empty, name, -1, -1,
                      name + " is empty: it needs at least one row of numbers");
  }
  const int cols = row_lengths[0];
  for (int i = 0; i < n_rows; i++) {
    if (row_lengths[i] <= 0) {
      return make_error(
          ErrorCode::empty_row, name, i, -1,
          name + "[" + std::to_string(i) + "] is empty: every row needs at least one number");
    }
    if (row_lengths[i] != cols) {
      return make_error(ErrorCode::ragged, name, i, -1,
                        name + "[" + std::to_string(i) + "] has " + count(row_lengths[i], "value") +
                            " but " + name + "[0] has " + std::to_string(cols) + ": every row of " +
                            name + " must have the same length");
    }
  }
  Matrix m(n_rows, cols);
  for (int i = 0; i < n_rows; i++) {
    for (int j = 0; j < cols; j++) {
      double v = values[static_cast<size_t>(i) * cols + j];
      if (!std::isfinite(v)) {
        return make_error(ErrorCode::not_finite, name, i, j,
                          name + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                              non_finite_name(v) + ": every value must be a finite number");
      }
      m.at(i, j) = v;
    }
  }
  *out = std::move(m);
  return Error{};
}

Error check_shapes(const AttentionInput& in) {
  const int d_model = in.x.cols;
  const std::string x_shape = "x is " + shape_of(in.x);
  auto rows_must_be_d_model = [&](const std::string& name, const Matrix& w, const char* what) {
    std::ostringstream msg;
    msg << name << " has " << count(w.rows, "row") << " but x has " << count(d_model, "column")
        << ": " << name << " must be d_model × " << what << " with d_model = " << d_model << " ("
        << x_shape << ", " << name << " is " << shape_of(w) << ")";
    return make_error(ErrorCode::shape, name, -1, -1, msg.str());
  };
  if (in.wq.rows != d_model) return rows_must_be_d_model("wq", in.wq, "d_k");
  if (in.wk.rows != d_model) return rows_must_be_d_model("wk", in.wk, "d_k");
  if (in.wv.rows != d_model) return rows_must_be_d_model("wv", in.wv, "d_v");
  if (in.wk.cols != in.wq.cols) {
    std::ostringstream msg;
    msg << "wk has " << count(in.wk.cols, "column") << " but wq has " << in.wq.cols
        << ": queries and keys must have the same length d_k (wq is " << shape_of(in.wq)
        << ", wk is " << shape_of(in.wk) << ")";
    return make_error(ErrorCode::shape, "wk", -1, -1, msg.str());
  }
  return Error{};
}

Error self_attention(const AttentionInput& in, AttentionResult* out) {
  Error err = check_shapes(in);
  if (!err.ok()) return err;

  matmul(in.x, in.wq, &out->q);                     // (n, d_k)
  matmul(in.x, in.wk, &out->k);                     // (n, d_k)
  matmul(in.x, in.wv, &out->v);                     // (n, d_v)
  matmul_transposed(out->q, out->k, &out->scores);  // (n, n)

  // Divide (not multiply by 1/√d_k) so the digits match numpy's `scores / np.sqrt(d_k)`.
  const double sqrt_dk = std::sqrt(static_cast<double>(in.wq.cols));
  out->scaled = out->scores;
  for (double& s : out->scaled.data) s /= sqrt_dk;

  softmax_rows(out->scaled, &out->weights);    // (n, n)
  matmul(out->weights, out->v, &out->output);  // (n, d_v)

  // Finite inputs can still overflow in a product; the first step that did is the one to name.
  const std::pair<const char*, const Matrix*> steps[] = {{"q", &out->q},
                                                         {"k", &out->k},
                                                         {"v", &out->v},
                                                         {"scores", &out->scores},
                                                         {"output", &out->output}};
  for (const auto& step : steps) {
    err = check_finite_result(step.first, *step.second);
    if (!err.ok()) return err;
  }
  return Error{};
}

}  // namespace attn
