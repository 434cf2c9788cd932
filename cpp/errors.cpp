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

namespace {

// A label's two spellings in a message before make_error(): kOpen heads kBetween one kClose.
constexpr char kOpen = '\x01';
constexpr char kBetween = '\x02';
constexpr char kClose = '\x03';

// `message` with each label spelled as the heads form (heads = true) or the one-head form.
std::string spell(const std::string& message, bool heads) {
  std::string out;
  out.reserve(message.size());
  int part = 0;  // 0: outside a label, 1: its heads spelling, 2: its one-head spelling
  for (char c : message) {
    if (c == kOpen) {
      part = 1;
    } else if (c == kBetween) {
      part = 2;
    } else if (c == kClose) {
      part = 0;
    } else if (part == 0 || (part == 1) == heads) {
      out += c;
    }
  }
  return out;
}

}  // namespace

Error make_error(ErrorCode code, const std::string& operand, const std::string& message) {
  Error e;
  e.code = code;
  e.operand = operand;
  if (message.find(kOpen) == std::string::npos) {
    e.message = message;
  } else {
    e.message = spell(message, true);
    e.one_head_message = spell(message, false);
  }
  return e;
}

Error one_head_form(Error err) {
  if (!err.one_head_message.empty()) err.message = err.one_head_message;
  err.one_head_message.clear();
  err.head = -1;
  return err;
}

std::string heads_or_one(const std::string& heads, const std::string& one) {
  return kOpen + heads + kBetween + one + kClose;
}

const char* non_finite_name(double v) {
  if (std::isnan(v)) return "NaN";
  return v > 0 ? "Infinity" : "-Infinity";
}

std::string head_label(int head, const std::string& name) {
  return head < 0 ? name : heads_or_one(head_name(head) + ".", "") + name;
}

std::string indexed_label(int head, const std::string& name) {
  return name + heads_or_one("[" + std::to_string(head) + "]", "");
}

std::string head_phrase(int head) { return heads_or_one(" of head " + std::to_string(head), ""); }

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
