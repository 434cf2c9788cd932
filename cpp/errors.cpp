#include "errors.h"

#include <cmath>

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
    case ErrorCode::range:
      return "range";
    case ErrorCode::limit:
      return "limit";
    case ErrorCode::conflict:
      return "conflict";
  }
  return "unknown";
}

Error make_error(ErrorCode code, const std::string& operand, const std::string& message) {
  Error e;
  e.code = code;
  e.operand = operand;
  e.message = message;
  return e;
}

const char* non_finite_name(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

std::string head_label(int head, const std::string& name) {
  return head < 0 ? name : head_name(head) + "." + name;
}

std::string head_name(int head) { return "heads[" + std::to_string(head) + "]"; }

long long first_non_finite(const double* values, size_t n, const unsigned char* skip) {
  for (size_t i = 0; i < n; i++) {
    if (!std::isfinite(values[i]) && (skip == nullptr || skip[i] == 0)) {
      return static_cast<long long>(i);
    }
  }
  return -1;
}

Error check_finite(const Matrix& m, ErrorCode code, const std::string& operand,
                   const std::string& subject, const std::string& why, const unsigned char* skip) {
  if (all_finite(m)) return Error{};  // the usual case, in one vectorised pass
  const long long at = first_non_finite(m.data.data(), m.data.size(), skip);
  if (at < 0) return Error{};
  const int i = static_cast<int>(at / m.cols);
  const int j = static_cast<int>(at % m.cols);
  return make_error(code, operand,
                    subject + "[" + std::to_string(i) + "][" + std::to_string(j) + "] is " +
                        non_finite_name(m.at(i, j)) + ": " + why)
      .at(i, j);
}

}  // namespace attn
