#include "backward.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attn {

namespace {

// Why a gradient is not finite, in every overflow's message.
const char* const kGradientOverflow =
    "the gradient or the inputs are too large for float64 (products overflow); use smaller values";

// The first non-finite element of the gradient `m` of the step `operand` (of head `head`, -1 for
// none), reported as an overflow; `label` names it in the message ("heads[1].weights").
Error check_finite_gradient(const std::string& label, const std::string& operand, int head,
                            const Matrix& m) {
  Error e =
      check_finite(m, ErrorCode::overflow, operand, "the gradient of " + label, kGradientOverflow);
  return e.ok() ? e : e.in_head(head);
}

// m = zeros (rows, cols), keeping m's allocation (repeated calls reuse their buffers).
void zeros(int rows, int cols, Matrix* m) {
  m->resize(rows, cols);
  std::fill(m->data.begin(), m->data.end(), 0.0);
}

// acc += a·bᵀ, through `product` (scratch, (a.rows, b.rows)).
void add_matmul_transposed(const Matrix& a, const Matrix& b, Matrix* product, Matrix* acc,
                           MatmulScratch* scratch) {
  matmul_transposed(a, b, product, scratch);
  add(*acc, *product, acc);
}

}  // namespace

Error backpropagate(const MultiHeadInput& in, const MultiHeadResult& forward, const Seed& seed,
                    const std::vector<Matrix>* d_scaled, Gradients* out) {
  const AttentionOptions& opt = in.options;
  const bool cross = in.context.rows > 0;
  // what the projections saw: X + PE and C + PE with positional encoding
  const Matrix& x = opt.positional_encoding ? forward.x_with_pe : in.x;  // (n_q, d_model)
  const Matrix& source = !cross                    ? x
                         : opt.positional_encoding ? forward.context_with_pe
                                                   : in.context;  // (n_k, d_ctx)
  const int n_heads = static_cast<int>(in.heads.size());
  const int n_q = x.rows;
  const int n_k = source.rows;
  const int d_v = in.heads[0].wv.cols;
  const double sqrt_dk = std::sqrt(static_cast<double>(in.heads[0].wq.cols));
  const Mask& mask = forward.mask;
  InputGradients& gi = out->input;
  ResultGradients& gr = out->result;
  MatmulScratch* s = &out->scratch;
  auto check = [&](int h, const char* name, const Matrix& m) {
    return check_finite_gradient(head_label(h, name), name, h, m);
  };
  Error err;
  const Matrix* d_output = seed.output.rows > 0 ? &seed.output : nullptr;

  // dConcat (n_q, h·d_v) and dW_O (h·d_v, d_model) from G (n_q, d_out)
  if (d_output != nullptr) {
    gr.output = *d_output;
    if (in.wo.rows > 0) {
      matmul_transposed(*d_output, in.wo, &gr.concat, s);            // G·W_Oᵀ
      matmul_transposed_left(forward.concat, *d_output, &gi.wo, s);  // Concatᵀ·G
      if (!(err = check_finite_gradient("concat", "concat", -1, gr.concat)).ok()) return err;
      if (!(err = check_finite_gradient("wo", "wo", -1, gi.wo)).ok()) return err;
    } else {
      gr.concat = *d_output;
    }
  } else {  // the loss does not depend on the output
    zeros(forward.output.rows, forward.output.cols, &gr.output);
    zeros(n_q, n_heads * d_v, &gr.concat);
    if (in.wo.rows > 0) zeros(in.wo.rows, in.wo.cols, &gi.wo);
  }
  if (in.wo.rows == 0) gi.wo = Matrix{};
  gi.bo.clear();  // db_O (d_model): the column sums of G
  if (!in.bo.empty()) {
    if (d_output != nullptr) {
      column_sums(*d_output, &gi.bo);
    } else {
      gi.bo.assign(in.bo.size(), 0.0);
    }
  }

  zeros(n_q, x.cols, &gi.x);  // (n_q, d_model), summed below
  if (cross) {
    zeros(n_k, source.cols, &gi.context);  // (n_k, d_ctx), summed below
  } else {
    gi.context = Matrix{};
  }
  Matrix& d_source = cross ? gi.context : gi.x;
  gi.heads.resize(n_heads);
  gr.heads.resize(n_heads);
  Matrix product;              // scratch for the products added into dX and dC
  double d_temperature = 0.0;  // Σ dScaled ⊙ Scaled over unmasked cells, of every head

  for (int h = 0; h < n_heads; h++) {
    const Head& w = in.heads[h];
    const AttentionResult& f = forward.heads[h];
    AttentionResult& g = gr.heads[h];
    Head& gw = gi.heads[h];

    // dOutput_h (n_q, d_v): head h's columns of dConcat (finite: G, or checked above)
    g.output.resize(n_q, d_v);
    for (int i = 0; i < n_q; i++) {
      for (int j = 0; j < d_v; j++) g.output.at(i, j) = gr.concat.at(i, h * d_v + j);
    }
    matmul_transposed(g.output, f.v, &g.weights, s);  // dWeights (n_q, n_k) = dOutput_h·V_hᵀ
    if (h < static_cast<int>(seed.weights.size()) && seed.weights[h].rows > 0) {
      add(g.weights, seed.weights[h], &g.weights);  // + S_h, the loss's own gradient there
    }
    matmul_transposed_left(f.weights, g.output, &g.v, s);  // dV (n_k, d_v) = Weights_hᵀ·dOutput_h
    if (!(err = check(h, "weights", g.weights)).ok()) return err;
    if (!(err = check(h, "v", g.v)).ok()) return err;

    // dScaled (n_q, n_k): the softmax's backward pass per row, exactly 0 where masked (there
    // Scaled is −∞ and the weight 0: no cell of scaled or scores there changes L)
    const Matrix* extra =
        d_scaled != nullptr && (*d_scaled)[h].rows > 0 ? &(*d_scaled)[h] : nullptr;
    g.scaled.resize(n_q, n_k);
    for (int i = 0; i < n_q; i++) {
      double dot = 0.0;  // Σ_j Weights[i][j]·dWeights[i][j]
      for (int j = 0; j < n_k; j++) dot += f.weights.at(i, j) * g.weights.at(i, j);
      for (int j = 0; j < n_k; j++) {
        if (mask.at(i, j)) {
          g.scaled.at(i, j) = 0.0;
          continue;
        }
        double d = f.weights.at(i, j) * (g.weights.at(i, j) - dot);
        if (extra != nullptr) d += extra->at(i, j);
        g.scaled.at(i, j) = d;
        d_temperature += d * f.scaled.at(i, j);
      }
    }
    // dScores = dScaled / √d_k / temperature, the forward's divisions in the same order
    if (opt.scale_by_sqrt_dk) {
      divide(g.scaled, sqrt_dk, &g.scores);
      if (opt.temperature != 1.0) divide(g.scores, opt.temperature, &g.scores);
    } else {
      divide(g.scaled, opt.temperature, &g.scores);
    }
    if (!(err = check(h, "scaled", g.scaled)).ok()) return err;
    if (!(err = check(h, "scores", g.scores)).ok()) return err;

    matmul(g.scores, f.k, &g.q, s);                  // dQ (n_q, d_k) = dScores·K_h
    matmul_transposed_left(g.scores, f.q, &g.k, s);  // dK (n_k, d_k) = dScoresᵀ·Q_h
    if (!(err = check(h, "q", g.q)).ok()) return err;
    if (!(err = check(h, "k", g.k)).ok()) return err;

    matmul_transposed_left(x, g.q, &gw.wq, s);       // dW_Q (d_model, d_k) = Xᵀ·dQ
    matmul_transposed_left(source, g.k, &gw.wk, s);  // dW_K (d_ctx, d_k) = Cᵀ·dK
    matmul_transposed_left(source, g.v, &gw.wv, s);  // dW_V (d_ctx, d_v) = Cᵀ·dV
    if (!(err = check(h, "wq", gw.wq)).ok()) return err;
    if (!(err = check(h, "wk", gw.wk)).ok()) return err;
    if (!(err = check(h, "wv", gw.wv)).ok()) return err;
    // a bias's gradient: the column sums of its product's gradient (empty: no bias)
    gw.bq.clear();
    gw.bk.clear();
    gw.bv.clear();
    if (!w.bq.empty()) column_sums(g.q, &gw.bq);
    if (!w.bk.empty()) column_sums(g.k, &gw.bk);
    if (!w.bv.empty()) column_sums(g.v, &gw.bv);

    add_matmul_transposed(g.q, w.wq, &product, &gi.x, s);      // dX += dQ·W_Qᵀ
    add_matmul_transposed(g.k, w.wk, &product, &d_source, s);  // dC += dK·W_Kᵀ
    add_matmul_transposed(g.v, w.wv, &product, &d_source, s);  // dC += dV·W_Vᵀ
  }
  if (!(err = check_finite_gradient("x", "x", -1, gi.x)).ok()) return err;
  if (cross && !(err = check_finite_gradient("context", "context", -1, gi.context)).ok()) {
    return err;
  }
  // Scaled = Scores / (√d_k·temperature): dScaled/dtemperature = −Scaled / temperature
  gi.temperature = -d_temperature / opt.temperature;
  if (!std::isfinite(gi.temperature)) {
    return make_error(
        ErrorCode::overflow, "temperature",
        std::string("the gradient of temperature is not finite: ") + kGradientOverflow);
  }
  // PE is a constant: the gradient of X + PE is the gradient of X
  gr.x_with_pe = opt.positional_encoding ? gi.x : Matrix{};
  gr.context_with_pe = opt.positional_encoding && cross ? gi.context : Matrix{};
  return Error{};
}

namespace {

// The seed's matrix `m` against its expected shape rows × cols and finiteness; `label` names it
// in messages ("output", "weights[1]"), `what` the shape ("n_q × d_v").
Error check_seed(const std::string& label, const std::string& operand, int head, const Matrix& m,
                 int rows, int cols, const std::string& what) {
  if (m.rows != rows || m.cols != cols) {
    std::ostringstream msg;
    msg << label << " is " << m.rows << " × " << m.cols << " but the gradient must have the "
        << (operand == "output" ? "output's" : "weights'") << " shape " << rows << " × " << cols
        << " (" << what << ")";
    return make_error(ErrorCode::shape, operand, msg.str())
        .at(m.rows != rows ? std::min(m.rows, rows) : -1,
            m.rows == rows ? std::min(m.cols, cols) : -1)
        .in_head(head);
  }
  Error e =
      check_finite(m, ErrorCode::not_finite, operand, label, "every value must be a finite number");
  return e.ok() ? e : e.in_head(head);
}

}  // namespace

Error attention_backward(const MultiHeadInput& in, const Seed& seed, MultiHeadResult* forward,
                         Gradients* out) {
  Error err = check_multi_head(in);
  if (!err.ok()) return err;
  const int n_heads = static_cast<int>(in.heads.size());
  const int n_q = in.x.rows;
  const int n_k = in.context.rows > 0 ? in.context.rows : n_q;
  bool any_weights = false;
  for (const Matrix& s : seed.weights) any_weights = any_weights || s.rows > 0;
  if (seed.output.rows == 0 && !any_weights) {
    return make_error(
        ErrorCode::empty, "output",
        "the gradient is empty: give dL/doutput (output), dL/dweights (weights), or both");
  }
  if (seed.output.rows > 0) {
    // the output's shape: n_q × d_model with W_O, n_q × h·d_v (the concatenation) without
    const int cols = in.wo.rows > 0 ? in.x.cols : n_heads * in.heads[0].wv.cols;
    const std::string what =
        in.wo.rows > 0 ? "n_q × d_model" : heads_or_one("n_q × h·d_v", "n_q × d_v");
    err = check_seed("output", "output", -1, seed.output, n_q, cols, what);
    if (!err.ok()) return err;
  }
  if (!seed.weights.empty()) {
    if (static_cast<int>(seed.weights.size()) != n_heads) {
      return make_error(ErrorCode::shape, "weights",
                        "weights has " + std::to_string(seed.weights.size()) +
                            " matrices but there are " + std::to_string(n_heads) +
                            " heads: one per head (or null for a head the loss does not see)");
    }
    for (int h = 0; h < n_heads; h++) {
      if (seed.weights[h].rows == 0) continue;
      err = check_seed(indexed_label(h, "weights"), "weights", h, seed.weights[h], n_q, n_k,
                       "n_q × n_k");
      if (!err.ok()) return err;
    }
  }
  err = multi_head_attention(in, forward);
  if (!err.ok()) return err;
  return backpropagate(in, *forward, seed, nullptr, out);
}

}  // namespace attn
