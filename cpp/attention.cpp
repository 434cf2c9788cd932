#include "attention.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace attn {

namespace {

std::string shape_of(const Matrix& m) {
  return std::to_string(m.rows) + " × " + std::to_string(m.cols);
}

// "1 value", "3 values"
std::string count(int n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// Why a result is not finite, in every overflow's message.
const char* const kOverflow =
    "the inputs are too large for float64 (products overflow); use smaller values";

// First non-finite element of m, reported as an overflow of the step `operand` (of head
// `head`, -1 for none), called `label` in the message. Entries hidden by `mask` are -Infinity
// on purpose and skipped.
Error check_finite_result(const std::string& label, const std::string& operand, int head,
                          const Matrix& m, const Mask* mask = nullptr) {
  const unsigned char* skip = mask != nullptr ? mask->hidden.data() : nullptr;
  Error e = check_finite(m, ErrorCode::overflow, operand, label, kOverflow, skip);
  return e.ok() ? e : e.in_head(head);
}

Error shape_error(const std::string& operand, int head, const std::string& message) {
  return make_error(ErrorCode::shape, operand, message).in_head(head);
}

// Masked scores become -Infinity, so the softmax gives them exactly 0.
void apply_mask(const Mask& mask, Matrix* scaled) {
  for (int i = 0; i < mask.n_q; i++) {
    for (int j = 0; j < mask.n_k; j++) {
      if (mask.at(i, j)) scaled->at(i, j) = -std::numeric_limits<double>::infinity();
    }
  }
}

// Validates rows into `out`; errors name the matrix `name` (e.g. "heads[1].wq").
Error rows_to_matrix(const std::string& name, const double* values, const int* row_lengths,
                     int n_rows, Matrix* out) {
  if (n_rows <= 0) {
    return make_error(ErrorCode::empty, name,
                      name + " is empty: it needs at least one row of numbers");
  }
  const int cols = row_lengths[0];
  for (int i = 0; i < n_rows; i++) {
    if (row_lengths[i] <= 0) {
      return make_error(
                 ErrorCode::empty_row, name,
                 name + "[" + std::to_string(i) + "] is empty: every row needs at least one number")
          .at(i, -1);
    }
    if (row_lengths[i] != cols) {
      return make_error(ErrorCode::ragged, name,
                        name + "[" + std::to_string(i) + "] has " + count(row_lengths[i], "value") +
                            " but " + name + "[0] has " + std::to_string(cols) + ": every row of " +
                            name + " must have the same length")
          .at(i, -1);
    }
  }
  Matrix m(n_rows, cols);
  std::copy(values, values + m.data.size(), m.data.begin());
  Error err =
      check_finite(m, ErrorCode::not_finite, name, name, "every value must be a finite number");
  if (!err.ok()) return err;
  *out = std::move(m);
  return Error{};
}

}  // namespace

Error matrix_from_rows(const std::string& operand, const double* values, const int* row_lengths,
                       int n_rows, Matrix* out, int head) {
  Error err = rows_to_matrix(head_label(head, operand), values, row_lengths, n_rows, out);
  if (!err.ok()) {
    err.operand = operand;
    err.head = head;
  }
  return err;
}

namespace {

// The single-head API as a multi-head input with one head (its errors named "wq", not
// "heads[0].wq": one_head_form()).
MultiHeadInput one_head(const AttentionInput& in) {
  MultiHeadInput mh;
  mh.x = in.x;
  mh.heads.push_back(Head{in.wq, in.wk, in.wv});
  return mh;
}

}  // namespace

Error check_shapes(const AttentionInput& in) {
  Error err = check_multi_head(one_head(in));
  return err.ok() ? err : one_head_form(err);
}

Error self_attention(const AttentionInput& in, AttentionResult* out) {
  MultiHeadResult r;
  Error err = multi_head_attention(one_head(in), &r);
  if (!err.ok()) return one_head_form(err);
  *out = std::move(r.heads[0]);
  return Error{};
}

namespace {

// The sizes of kMax*: tokens, dimensions, heads and attention cells, before any allocation.
Error check_limits(const MultiHeadInput& in, const Matrix& source, const std::string& source_name) {
  auto too_large = [](const std::string& operand, const std::string& what, long long value,
                      long long limit, const char* advice) {
    std::ostringstream msg;
    msg << what << " is " << value << ", more than the " << limit << " supported: " << advice;
    return make_error(ErrorCode::limit, operand, msg.str());
  };
  const int n_heads = static_cast<int>(in.heads.size());
  if (n_heads > kMaxHeads) {
    return too_large("heads", "the number of heads", n_heads, kMaxHeads, "use fewer heads");
  }
  if (in.x.rows > kMaxTokens) {
    return too_large("x", "the number of tokens (rows of x)", in.x.rows, kMaxTokens,
                     "use a shorter sentence");
  }
  if (in.x.cols > kMaxDimension) {
    return too_large("x", "d_model (columns of x)", in.x.cols, kMaxDimension,
                     "use shorter vectors");
  }
  if (&source != &in.x && source.rows > kMaxTokens) {
    return too_large(source_name, "the number of context tokens (rows of context)", source.rows,
                     kMaxTokens, "use a shorter context");
  }
  if (&source != &in.x && source.cols > kMaxDimension) {
    return too_large(source_name, "d_context (columns of context)", source.cols, kMaxDimension,
                     "use shorter vectors");
  }
  for (int h = 0; h < n_heads; h++) {
    const int head = h;
    if (in.heads[h].wq.cols > kMaxDimension) {
      return too_large("wq", "d_k (columns of " + head_label(head, "wq") + ")", in.heads[h].wq.cols,
                       kMaxDimension, "use a smaller d_k")
          .in_head(head);
    }
    if (in.heads[h].wv.cols > kMaxDimension) {
      return too_large("wv", "d_v (columns of " + head_label(head, "wv") + ")", in.heads[h].wv.cols,
                       kMaxDimension, "use a smaller d_v")
          .in_head(head);
    }
  }
  const long long cells = static_cast<long long>(n_heads) * in.x.rows * source.rows;
  if (cells > kMaxAttentionCells) {
    std::ostringstream what;
    what << "heads × queries × keys = " << n_heads << " × " << in.x.rows << " × " << source.rows;
    return too_large("x", what.str(), cells, kMaxAttentionCells,
                     "each head keeps its n_q × n_k scores, scaled scores and weights; use fewer "
                     "tokens or heads");
  }
  return Error{};
}

}  // namespace

Error check_multi_head(const MultiHeadInput& in) {
  if (in.heads.empty()) {
    return make_error(ErrorCode::empty, "heads",
                      "heads is empty: it needs at least one head { wq, wk, wv }");
  }
  // Keys and values come from the context in cross-attention, from x in self-attention.
  const bool cross = in.context.rows > 0;
  const Matrix& source = cross ? in.context : in.x;
  const std::string source_name = cross ? "context" : "x";
  Error err = check_limits(in, source, source_name);
  if (!err.ok()) return err;
  const std::string source_dim = cross ? "d_context" : "d_model";

  for (int h = 0; h < static_cast<int>(in.heads.size()); h++) {
    const Head& w = in.heads[h];
    const int head = h;
    auto label = [&](const char* name) { return head_label(head, name); };
    // "wq has 3 rows but x has 2 columns: wq must be d_model × d_k with d_model = 2 (…)"
    auto rows_must_match = [&](const char* name, const Matrix& m, const Matrix& src,
                               const std::string& src_name, const std::string& dim,
                               const char* what) {
      std::ostringstream msg;
      msg << label(name) << " has " << count(m.rows, "row") << " but " << src_name << " has "
          << count(src.cols, "column") << ": " << label(name) << " must be " << dim << " × " << what
          << " with " << dim << " = " << src.cols << " (" << src_name << " is " << shape_of(src)
          << ", " << label(name) << " is " << shape_of(m) << ")";
      return shape_error(name, head, msg.str());
    };
    // "wk has 3 columns but wq has 2: queries and keys must have the same length d_k (…)"
    auto cols_must_match = [&](const char* name, const Matrix& m, const std::string& other_name,
                               const Matrix& other, const std::string& why) {
      std::ostringstream msg;
      msg << label(name) << " has " << count(m.cols, "column") << " but " << other_name << " has "
          << other.cols << ": " << why << " (" << other_name << " is " << shape_of(other) << ", "
          << label(name) << " is " << shape_of(m) << ")";
      return shape_error(name, head, msg.str());
    };

    if (w.wq.rows != in.x.cols) return rows_must_match("wq", w.wq, in.x, "x", "d_model", "d_k");
    if (w.wk.rows != source.cols) {
      return rows_must_match("wk", w.wk, source, source_name, source_dim, "d_k");
    }
    if (w.wv.rows != source.cols) {
      return rows_must_match("wv", w.wv, source, source_name, source_dim, "d_v");
    }
    if (w.wk.cols != w.wq.cols) {
      return cols_must_match("wk", w.wk, label("wq"), w.wq,
                             "queries and keys must have the same length d_k");
    }
    if (h > 0 && w.wq.cols != in.heads[0].wq.cols) {
      return cols_must_match("wq", w.wq, head_label(0, "wq"), in.heads[0].wq,
                             "every head must have the same d_k");
    }
    if (h > 0 && w.wv.cols != in.heads[0].wv.cols) {
      return cols_must_match("wv", w.wv, head_label(0, "wv"), in.heads[0].wv,
                             "every head must have the same d_v");
    }
    const std::pair<const char*, const std::vector<double>*> biases[] = {
        {"bq", &w.bq}, {"bk", &w.bk}, {"bv", &w.bv}};
    for (const auto& [name, b] : biases) {
      const int want = name[1] == 'v' ? w.wv.cols : w.wq.cols;
      if (!b->empty() && static_cast<int>(b->size()) != want) {
        return shape_error(name, head,
                           label(name) + " has " + count(static_cast<int>(b->size()), "value") +
                               " but must have " + std::to_string(want) +
                               (name[1] == 'v' ? " (d_v)" : " (d_k)"));
      }
    }
  }

  const int n_heads = static_cast<int>(in.heads.size());
  const int d_v = in.heads[0].wv.cols;
  if (in.wo.rows > 0 && (in.wo.rows != n_heads * d_v || in.wo.cols != in.x.cols)) {
    std::ostringstream msg;
    msg << "wo is " << shape_of(in.wo) << " but must be (h·d_v) × d_model = " << n_heads * d_v
        << " × " << in.x.cols << ": ";
    if (in.wo.rows != n_heads * d_v) {
      msg << "one row per column of the heads' concatenated outputs (" << count(n_heads, "head")
          << " × d_v = " << d_v << ")";
    } else {
      msg << "the output has the width d_model = " << in.x.cols << " of x";
    }
    return shape_error("wo", -1, msg.str());
  }
  if (!in.bo.empty() && in.wo.rows == 0) {
    return make_error(ErrorCode::conflict, "bo",
                      "bo needs wo: the output's bias is added to concat·W_O (give wo with bo)");
  }
  if (!in.bo.empty() && static_cast<int>(in.bo.size()) != in.x.cols) {
    return shape_error("bo", -1,
                       "bo has " + count(static_cast<int>(in.bo.size()), "value") +
                           " but must have " + std::to_string(in.x.cols) +
                           " (d_model, the output's width)");
  }

  const AttentionOptions& opt = in.options;
  if (!opt.key_padding.empty() && static_cast<int>(opt.key_padding.size()) != source.rows) {
    std::ostringstream msg;
    msg << "keyPadding has " << count(static_cast<int>(opt.key_padding.size()), "value")
        << " but there are " << count(source.rows, "key") << " (" << source_name << " has "
        << count(source.rows, "row") << "): keyPadding needs one true/false per key";
    return shape_error("keyPadding", -1, msg.str());
  }
  if (!std::isfinite(opt.temperature)) {
    return make_error(ErrorCode::not_finite, "temperature",
                      std::string("temperature is ") + non_finite_name(opt.temperature) +
                          ": it must be a finite number > 0");
  }
  if (opt.temperature <= 0) {
    std::ostringstream msg;
    msg << "temperature is " << opt.temperature
        << ": it must be > 0 (the scaled scores are divided by it)";
    return make_error(ErrorCode::range, "temperature", msg.str());
  }
  return Error{};
}

namespace {

bool has_mask(const AttentionOptions& options) {
  return options.causal || !options.key_padding.empty();
}

}  // namespace

void build_mask(int n_q, int n_k, const AttentionOptions& options, Mask* mask) {
  mask->n_q = n_q;
  mask->n_k = n_k;
  mask->hidden.assign(static_cast<size_t>(n_q) * n_k, 0);
  mask->fully_masked.assign(n_q, 0);
  if (!has_mask(options)) return;  // nothing hidden
  for (int i = 0; i < n_q; i++) {
    int visible = 0;
    for (int j = 0; j < n_k; j++) {
      const bool future = options.causal && j > i;  // causal: row i only looks at keys j <= i
      const bool padding = !options.key_padding.empty() && options.key_padding[j];
      mask->hidden[static_cast<size_t>(i) * n_k + j] = future || padding;
      if (!future && !padding) visible++;
    }
    mask->fully_masked[i] = visible == 0;
  }
}

void alibi_bias(int h, int n_heads, int n_q, int n_k, Matrix* bias) {
  const double slope = std::pow(2.0, -8.0 * (h + 1) / n_heads);
  bias->resize(n_q, n_k);
  for (int i = 0; i < n_q; i++) {
    for (int j = 0; j < n_k; j++) bias->at(i, j) = -slope * std::abs(i - j);
  }
}

Error multi_head_attention(const MultiHeadInput& in, MultiHeadResult* out) {
  Error err = check_multi_head(in);
  if (!err.ok()) return err;
  const AttentionOptions& opt = in.options;
  const bool cross = in.context.rows > 0;

  // Queries come from x, keys and values from the context (x itself in self-attention).
  const Matrix* x = &in.x;                         // (n_q, d_model)
  const Matrix* source = cross ? &in.context : x;  // (n_k, d_ctx)
  // Results of the previous call keep their buffers (reused, not reallocated); only what this
  // call may not write is cleared.
  out->pe = out->x_with_pe = out->context_pe = out->context_with_pe = Matrix{};
  if (opt.positional_encoding) {
    // each sequence is numbered from position 0
    sinusoidal_positional_encoding(in.x.rows, in.x.cols, &out->pe);
    add(in.x, out->pe, &out->x_with_pe);
    err = check_finite_result("xWithPe", "xWithPe", -1, out->x_with_pe);
    if (!err.ok()) return err;
    x = &out->x_with_pe;
    source = x;
    if (cross) {
      sinusoidal_positional_encoding(in.context.rows, in.context.cols, &out->context_pe);
      add(in.context, out->context_pe, &out->context_with_pe);
      err = check_finite_result("contextWithPe", "contextWithPe", -1, out->context_with_pe);
      if (!err.ok()) return err;
      source = &out->context_with_pe;
    }
  }
  const int n_q = x->rows;
  const int n_k = source->rows;
  build_mask(n_q, n_k, opt, &out->mask);

  const int n_heads = static_cast<int>(in.heads.size());
  const int d_k = in.heads[0].wq.cols;
  const int d_v = in.heads[0].wv.cols;
  const double sqrt_dk = std::sqrt(static_cast<double>(d_k));
  out->heads.resize(n_heads);
  out->concat.resize(n_q, n_heads * d_v);  // (n_q, h·d_v), every element written below

  for (int h = 0; h < n_heads; h++) {
    const Head& w = in.heads[h];
    AttentionResult& r = out->heads[h];
    MatmulScratch* s = &out->scratch;
    matmul(*x, w.wq, &r.q, s);       // (n_q, d_k)
    matmul(*source, w.wk, &r.k, s);  // (n_k, d_k)
    matmul(*source, w.wv, &r.v, s);  // (n_k, d_v)
    if (!w.bq.empty()) add_to_rows(w.bq, &r.q);
    if (!w.bk.empty()) add_to_rows(w.bk, &r.k);
    if (!w.bv.empty()) add_to_rows(w.bv, &r.v);
    matmul_transposed(r.q, r.k, &r.scores, s);  // (n_q, n_k)

    // Scaled = (Scores / √d_k [+ Bias]) / temperature. Divide (not multiply by 1/√d_k) so
    // the digits match numpy's `scores / np.sqrt(d_k)`; dividing by temperature 1 is exact.
    if (opt.alibi) {
      alibi_bias(h, n_heads, n_q, n_k, &r.bias);  // a constant: the backward pass ignores it
      if (opt.scale_by_sqrt_dk) {
        divide(r.scores, sqrt_dk, &r.scaled);
        add(r.scaled, r.bias, &r.scaled);
      } else {
        add(r.scores, r.bias, &r.scaled);
      }
      if (opt.temperature != 1.0) divide(r.scaled, opt.temperature, &r.scaled);
    } else if (opt.scale_by_sqrt_dk) {
      r.bias = Matrix{};
      divide(r.scores, sqrt_dk, &r.scaled);
      if (opt.temperature != 1.0) divide(r.scaled, opt.temperature, &r.scaled);
    } else {
      r.bias = Matrix{};
      divide(r.scores, opt.temperature, &r.scaled);
    }
    if (has_mask(opt)) apply_mask(out->mask, &r.scaled);  // -Infinity where i may not see j

    softmax_rows(r.scaled, &r.weights);    // (n_q, n_k), masked keys exactly 0
    matmul(r.weights, r.v, &r.output, s);  // (n_q, d_v)

    // Finite inputs can still overflow in a product; the first step that did is the one to name.
    const std::pair<const char*, const Matrix*> steps[] = {
        {"q", &r.q},           {"k", &r.k},           {"v", &r.v},
        {"scores", &r.scores}, {"scaled", &r.scaled}, {"output", &r.output}};
    for (const auto& [name, m] : steps) {
      err = check_finite_result(head_label(h, name), name, h, *m,
                                m == &r.scaled ? &out->mask : nullptr);
      if (!err.ok()) return err;
    }

    // concatenate: head h's output fills columns h·d_v … (h+1)·d_v - 1
    for (int i = 0; i < n_q; i++) {
      for (int j = 0; j < d_v; j++) out->concat.at(i, h * d_v + j) = r.output.at(i, j);
    }
  }

  if (in.wo.rows == 0) {
    out->output = out->concat;  // no W_O: the output is the heads' outputs side by side
    return Error{};
  }
  matmul(out->concat, in.wo, &out->output, &out->scratch);  // (n_q, d_model)
  if (!in.bo.empty()) add_to_rows(in.bo, &out->output);
  return check_finite_result("output", "output", -1, out->output);
}

}  // namespace attn
