// The engine's errors: what is wrong, where, in words. One way to build them (make_error and
// its chained setters), one scan for the first value that is NaN or ±Infinity and one message
// for it, one set of labels for a head's matrices. The core returns errors as values (no
// exceptions), so it runs the same natively and in WebAssembly; the bindings turn them into JS
// Errors.
//
// Naming the heads: the core does not know how its caller names them. compute()'s one-head form
// says "wq", "weights", "the weight at [0][1]"; the heads form "heads[1].wq", "weights[1]",
// "… of head 1". So every per-head name in a message is written with the labels below, which
// spell it both ways; make_error() keeps the message in both spellings, Error::head is the
// head's index, and the caller that knows the input's form picks one (one_head_form()): the
// bindings from the input's form, the core's own one-head API (self_attention) for itself.
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
  std::string message;  // English, says what was expected; heads named as the heads form does
  // the same message in the one-head form's names ("wq", not "heads[0].wq"); empty when it
  // names no head (then it reads the same in both forms)
  std::string one_head_message;

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
  // "<prefix><message>", in both spellings
  Error& prefixed(const std::string& prefix) {
    message = prefix + message;
    if (!one_head_message.empty()) one_head_message = prefix + one_head_message;
    return *this;
  }
};

// `message` may hold labels (head_label, indexed_label, head_phrase, heads_or_one).
Error make_error(ErrorCode code, const std::string& operand, const std::string& message);

// The error as compute()'s one-head form names it: its one-head message, and head -1 (that
// form has no heads to point at).
Error one_head_form(Error err);

// "NaN", "Infinity" or "-Infinity", for a value that is not finite.
const char* non_finite_name(double v);

// Text for a message that reads `heads` in the heads form and `one` in the one-head form
// (make_error() resolves it): the one place both spellings meet.
std::string heads_or_one(const std::string& heads, const std::string& one);

// A head's matrix or step in a message: "heads[1].wq" (the one-head form: "wq"); head -1, an
// operand of no head: "wq" in both.
std::string head_label(int head, const std::string& name);

// One of a list with an entry per head: "weights[1]" (the one-head form: "weights").
std::string indexed_label(int head, const std::string& name);

// " of head 1" after what a message points at (the one-head form: nothing).
std::string head_phrase(int head);

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
