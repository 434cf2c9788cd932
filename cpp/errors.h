// The engine's errors: what is wrong, where, in words. One way to build them (make_error and
// its chained setters), one scan for the first value that is NaN or ±Infinity and one message
// for it, one label for a head's matrix. The core returns errors as values (no exceptions), so it
// runs the same natively and in WebAssembly; the bindings turn them into JS Errors.
#pragma once

#include <string>

#include "kernels.h"

namespace attn {

// What is wrong with the input.
// `range`: a finite option outside its domain (temperature <= 0).
// `limit`: a size beyond the limits (attention.h, model.h, training.h).
// `conflict`: options that contradict each other (training W_O of an input without W_O).
enum class ErrorCode {
  ok,
  empty,
  empty_row,
  ragged,
  not_finite,
  shape,
  overflow,
  range,
  limit,
  conflict
};

const char* error_code_name(ErrorCode code);

// `operand` names what is wrong as the public API does ("x", "wq", "wk", "wv", or a result such
// as "scores" for an overflow); row and column are 0-based, -1 when they do not apply.
// `head` is the 0-based head for an operand or step of one head (heads[1].wk), else -1.
struct Error {
  ErrorCode code = ErrorCode::ok;
  std::string operand;
  int row = -1;
  int column = -1;
  int head = -1;
  int layer = -1;       // a model's 0-based layer (model.h), else -1
  std::string path;     // a model's array by its path ("layers[1].heads[0].wq"), else empty
  std::string message;  // English, says what was expected

  bool ok() const { return code == ErrorCode::ok; }
  // where it points, chained on make_error(): make_error(…).at(i, j).in_head(h)
  Error& at(int r, int c) {
    row = r;
    column = c;
    return *this;
  }
  Error& in_head(int h) {
    head = h;
    return *this;
  }
  Error& in_layer(int l) {
    layer = l;
    return *this;
  }
  Error& with_path(const std::string& p) {
    path = p;
    return *this;
  }
};

Error make_error(ErrorCode code, const std::string& operand, const std::string& message);

// "NaN", "Infinity" or "-Infinity", for a value that is not finite.
const char* non_finite_name(double v);

// A head's matrix or step as messages name it: "heads[1].wq", or "wq" for head -1 (the one-head
// form of compute(), which names its matrices as the single-head API does).
std::string head_label(int head, const std::string& name);

// "heads[1]": head 1 itself, as head_label() and a model's paths (model.h head_path) name it.
std::string head_name(int head);

// The index of the first of values[0 … n) that is NaN or ±Infinity, leaving out those where
// skip[i] is nonzero (nullptr: none); -1 when there is none.
long long first_non_finite(const double* values, size_t n, const unsigned char* skip = nullptr);

// The error of `code` for m's first non-finite element (row by row; cells where `skip`, of m's
// shape, is nonzero left out), at its row and column:
// "<subject>[i][j] is NaN: <why>". Error{} when there is none.
Error check_finite(const Matrix& m, ErrorCode code, const std::string& operand,
                   const std::string& subject, const std::string& why,
                   const unsigned char* skip = nullptr);

}  // namespace attn
