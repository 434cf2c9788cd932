#include "model.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace attn {

namespace {

constexpr double kLayerNormEps = 1e-5;                  // torch.nn.LayerNorm's default
constexpr double kSqrtHalf = 0.70710678118654752440;    // 1/√2
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/√(2π)

// "3 rows", "1 value"
std::string count(long long n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

Error model_error(ErrorCode code, const std::string& path, const std::string& operand, int layer,
                  int head, const std::string& message) {
  return make_error(code, operand, message).with_path(path).in_layer(layer).in_head(head);
}

// The last name of a path: "wq" of "layers[1].heads[0].wq", "gain" of "finalNorm.gain".
std::string leaf(const std::string& path) {
  const size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// "layers[1].heads[0].wq has 5 rows but dModel is 4"
Error size_error(const std::string& path, int layer, int head, long long have, const char* what,
                 const std::string& want_name, long long want) {
  return model_error(
      ErrorCode::shape, path, leaf(path), layer, head,
      path + " has " + count(have, what) + " but " + want_name + " is " + std::to_string(want));
}

Error check_matrix(const std::string& path, int layer, int head, const Matrix& m,
                   const std::string& rows_name, int rows, const std::string& cols_name, int cols) {
  if (m.rows != rows) return size_error(path, layer, head, m.rows, "row", rows_name, rows);
  if (m.cols != cols) return size_error(path, layer, head, m.cols, "column", cols_name, cols);
  return Error{};
}

// An optional vector: empty (absent) or n values.
Error check_vector(const std::string& path, int layer, int head, const std::vector<double>& v,
                   const std::string& n_name, int n) {
  if (v.empty() || static_cast<int>(v.size()) == n) return Error{};
  return size_error(path, layer, head, static_cast<long long>(v.size()), "value", n_name, n);
}

Error check_norm(const std::string& path, int layer, const Norm& norm, int d_model) {
  if (!norm.present()) return Error{};
  // a norm needs both (a norm without its bias would be another layer kind)
  if (norm.bias.empty()) {
    return model_error(ErrorCode::empty, path + ".bias", "bias", layer, -1,
                       path + " needs both gain and bias; bias is missing");
  }
  Error err = check_vector(path + ".gain", layer, -1, norm.gain, "dModel", d_model);
  if (err.ok()) err = check_vector(path + ".bias", layer, -1, norm.bias, "dModel", d_model);
  return err;
}

Error too_large(const std::string& path, const std::string& what, long long value, long long limit,
                const std::string& advice) {
  return model_error(ErrorCode::limit, path, leaf(path), -1, -1,
                     what + " is " + std::to_string(value) + ", more than the " +
                         std::to_string(limit) + " supported: " + advice);
}

Error check_layer(const Model& model, int l) {
  const Layer& layer = model.layers[l];
  const int d = model.d_model;
  const std::string lp = layer_path(l);
  Error err = check_norm(lp + ".norm1", l, layer.norm1, d);
  if (!err.ok()) return err;
  const int n_heads = static_cast<int>(layer.heads.size());
  if (!(err = check_head_count(l, n_heads)).ok()) return err;
  const int d_k = layer.heads[0].wq.cols;
  const int d_v = layer.heads[0].wv.cols;
  const std::string dk_name = "d_k (the columns of " + head_path(l, 0) + ".wq)";
  const std::string dv_name = "d_v (the columns of " + head_path(l, 0) + ".wv)";
  for (int h = 0; h < n_heads; h++) {
    const Head& w = layer.heads[h];
    const std::string hp = head_path(l, h);
    if (w.wq.cols > kMaxDimension || w.wv.cols > kMaxDimension) {
      return too_large(hp + (w.wq.cols > kMaxDimension ? ".wq" : ".wv"), "d_k or d_v of " + hp,
                       std::max(w.wq.cols, w.wv.cols), kMaxDimension, "use smaller heads")
          .in_layer(l)
          .in_head(h);
    }
    if (!(err = check_matrix(hp + ".wq", l, h, w.wq, "dModel", d, dk_name, d_k)).ok()) return err;
    if (!(err = check_matrix(hp + ".wk", l, h, w.wk, "dModel", d, dk_name, d_k)).ok()) return err;
    if (!(err = check_matrix(hp + ".wv", l, h, w.wv, "dModel", d, dv_name, d_v)).ok()) return err;
    if (!(err = check_vector(hp + ".bq", l, h, w.bq, "d_k", d_k)).ok()) return err;
    if (!(err = check_vector(hp + ".bk", l, h, w.bk, "d_k", d_k)).ok()) return err;
    if (!(err = check_vector(hp + ".bv", l, h, w.bv, "d_v", d_v)).ok()) return err;
  }
  err = check_matrix(lp + ".wo", l, -1, layer.wo,
                     "h·d_v (" + count(n_heads, "head") + " × d_v " + std::to_string(d_v) + ")",
                     n_heads * d_v, "dModel", d);
  if (!err.ok()) return err;
  if (!(err = check_vector(lp + ".bo", l, -1, layer.bo, "dModel", d)).ok()) return err;
  if (!layer.has_mlp) {
    if (layer.norm2.present()) {
      return model_error(ErrorCode::conflict, lp + ".norm2", "norm2", l, -1,
                         lp + ".norm2 is the norm before the MLP, but " + lp + " has no mlp");
    }
    return Error{};
  }
  if (!(err = check_norm(lp + ".norm2", l, layer.norm2, d)).ok()) return err;
  const Mlp& mlp = layer.mlp;
  const int f = mlp.w1.cols;
  if (f > kMaxHidden) {
    return too_large(lp + ".mlp.w1", "the MLP's width f (the columns of " + lp + ".mlp.w1)", f,
                     kMaxHidden, "use a narrower MLP")
        .in_layer(l);
  }
  const std::string f_name = "f (the columns of " + lp + ".mlp.w1)";
  if (!(err = check_matrix(lp + ".mlp.w1", l, -1, mlp.w1, "dModel", d, f_name, f)).ok()) {
    return err;
  }
  if (!(err = check_vector(lp + ".mlp.b1", l, -1, mlp.b1, f_name, f)).ok()) return err;
  if (!(err = check_matrix(lp + ".mlp.w2", l, -1, mlp.w2, f_name, f, "dModel", d)).ok()) {
    return err;
  }
  return check_vector(lp + ".mlp.b2", l, -1, mlp.b2, "dModel", d);
}

// Every array of a model (or of its gradients, which have the same structure), in one order:
// Adam's moments follow it. Absent arrays (no bias, sinusoidal positions, tied) are left out.
template <class M, class V>
void for_each_array(M& model, V visit) {
  visit(model.embed.data);
  if (!model.sinusoidal) visit(model.positions.data);
  for (auto& layer : model.layers) {
    for (auto* v : {&layer.norm1.gain, &layer.norm1.bias}) visit(*v);
    for (auto& head : layer.heads) {
      for (auto* v : {&head.wq.data, &head.wk.data, &head.wv.data, &head.bq, &head.bk, &head.bv}) {
        visit(*v);
      }
    }
    visit(layer.wo.data);
    visit(layer.bo);
    if (layer.has_mlp) {
      for (auto* v : {&layer.norm2.gain, &layer.norm2.bias, &layer.mlp.w1.data, &layer.mlp.b1,
                      &layer.mlp.w2.data, &layer.mlp.b2}) {
        visit(*v);
      }
    }
  }
  for (auto* v : {&model.final_norm.gain, &model.final_norm.bias}) visit(*v);
  if (!model.tied) visit(model.unembed.data);
  visit(model.unembed_bias);
}

long long parameter_count(const Model& model) {
  long long n = 0;
  for_each_array(model,
                 [&](const std::vector<double>& v) { n += static_cast<long long>(v.size()); });
  return n;
}

}  // namespace

std::string layer_path(int l) { return "layers[" + std::to_string(l) + "]"; }

std::string head_path(int l, int h) { return layer_path(l) + "." + head_name(h); }

Error vector_from_values(const std::string& path, const std::string& operand, int layer, int head,
                         const double* values, int n, std::vector<double>* out) {
  if (n <= 0) {
    return model_error(ErrorCode::empty, path, operand, layer, head,
                       path + " is empty: it needs at least one number");
  }
  const long long j = first_non_finite(values, static_cast<size_t>(n));
  if (j >= 0) {
    return model_error(ErrorCode::not_finite, path, operand, layer, head,
                       path + "[" + std::to_string(j) + "] is " + non_finite_name(values[j]) +
                           ": every value must be a finite number")
        .at(-1, static_cast<int>(j));
  }
  out->assign(values, values + n);
  return Error{};
}

Error check_layer_count(long long n_layers) {
  if (n_layers > kMaxLayers) {
    return too_large("layers", "the number of layers", n_layers, kMaxLayers, "use fewer layers");
  }
  return Error{};
}

Error check_head_count(int l, long long n_heads) {
  const std::string lp = layer_path(l);
  if (n_heads == 0) {
    return model_error(ErrorCode::empty, lp + ".heads", "heads", l, -1,
                       lp + ".heads is empty: a layer needs at least one head { wq, wk, wv }");
  }
  if (n_heads > kMaxHeads) {
    return too_large(lp + ".heads", "the number of heads of " + lp, n_heads, kMaxHeads,
                     "use fewer heads")
        .in_layer(l);
  }
  return Error{};
}

Error check_model(const Model& model) {
  Error err;
  const int d = model.d_model;
  if (d < 1) {
    return model_error(ErrorCode::range, "dModel", "dModel", -1, -1,
                       "dModel is " + std::to_string(d) + ": it must be at least 1");
  }
  if (d > kMaxDimension) {
    return too_large("dModel", "dModel", d, kMaxDimension, "use shorter vectors");
  }
  if (model.max_tokens < 1) {
    return model_error(
        ErrorCode::range, "maxTokens", "maxTokens", -1, -1,
        "maxTokens is " + std::to_string(model.max_tokens) + ": it must be at least 1");
  }
  if (model.max_tokens > kMaxTokens) {
    return too_large("maxTokens", "maxTokens", model.max_tokens, kMaxTokens,
                     "use a shorter context");
  }
  if (model.vocab < 1) {
    return model_error(ErrorCode::empty, "vocab", "vocab", -1, -1,
                       "vocab is empty: it needs at least one token string");
  }
  if (model.vocab > kMaxVocab) {
    return too_large("vocab", "the number of tokens (vocab)", model.vocab, kMaxVocab,
                     "use a smaller vocabulary");
  }
  const int n_layers = static_cast<int>(model.layers.size());
  if (!(err = check_layer_count(n_layers)).ok()) return err;
  const std::string vocab_name = "vocab's length";
  err = check_matrix("embed", -1, -1, model.embed, vocab_name, model.vocab, "dModel", d);
  if (!err.ok()) return err;
  if (!model.sinusoidal) {
    err = check_matrix("positions", -1, -1, model.positions, "maxTokens", model.max_tokens,
                       "dModel", d);
    if (!err.ok()) return err;
  }
  for (int l = 0; l < n_layers; l++) {
    if (!(err = check_layer(model, l)).ok()) return err;
  }
  if (!(err = check_norm("finalNorm", -1, model.final_norm, d)).ok()) return err;
  if (!model.tied) {
    err = check_matrix("unembed", -1, -1, model.unembed, "dModel", d, vocab_name, model.vocab);
    if (!err.ok()) return err;
  }
  err = check_vector("unembedBias", -1, -1, model.unembed_bias, vocab_name, model.vocab);
  if (!err.ok()) return err;
  const long long parameters = parameter_count(model);
  if (parameters > kMaxModelParameters) {
    return too_large("layers", "the number of parameters", parameters, kMaxModelParameters,
                     "use a smaller model");
  }
  return Error{};
}

namespace {

// The first thing wrong with n token ids (doubles from JS, or ints): none (empty), more than
// max_tokens (limit), or one that is not a whole number in [0, vocab), targets also −1 (range).
template <class T>
Error check_ids(const Model& model, const std::string& name, const T* values, int n, bool targets) {
  if (n <= 0) {
    return model_error(ErrorCode::empty, name, leaf(name), -1, -1,
                       name + " is empty: it needs at least one token id");
  }
  if (n > model.max_tokens) {
    return model_error(ErrorCode::limit, name, leaf(name), -1, -1,
                       name + " has " + count(n, "id") + ", more than the model's maxTokens " +
                           std::to_string(model.max_tokens));
  }
  for (int i = 0; i < n; i++) {
    const double v = static_cast<double>(values[i]);
    const bool no_loss = targets && v == -1.0;
    if (!no_loss && !(v >= 0 && v < model.vocab && v == std::floor(v))) {
      std::ostringstream msg;
      msg << name << "[" << i << "] is " << v << ": it must be a whole number from 0 to "
          << model.vocab - 1 << " (an index into vocab)" << (targets ? ", or -1 for no loss" : "");
      return model_error(ErrorCode::range, name, leaf(name), -1, -1, msg.str()).at(-1, i);
    }
  }
  return Error{};
}

}  // namespace

Error ids_from_values(const Model& model, const std::string& name, const double* values, int n,
                      bool targets, std::vector<int>* out) {
  Error err = check_ids(model, name, values, n, targets);
  if (!err.ok()) return err;
  out->assign(values, values + n);  // whole numbers within int's range, checked above
  return Error{};
}

namespace {

// ---- the layer kinds, each forward with its backward next to it ----

// The first non-finite element of the step `path` (of layer `layer`), an overflow: "<what>
// <path>[i][j] is Infinity: …".
Error check_step(const std::string& path, int layer, const Matrix& m, const char* what) {
  Error e = check_finite(m, ErrorCode::overflow, leaf(path), std::string(what) + " " + path,
                         "the values are too large for float64 (products overflow); use smaller "
                         "values");
  return e.ok() ? e : e.with_path(path).in_layer(layer);
}

// x₀[i] = embed[ids[i]] + P[i], (n, d_model).
void encoder_forward(const Model& model, const std::vector<int>& ids, Matrix* out) {
  const int n = static_cast<int>(ids.size());
  const int d = model.d_model;
  Matrix pe;
  if (model.sinusoidal) sinusoidal_positional_encoding(n, d, &pe);
  const Matrix& p = model.sinusoidal ? pe : model.positions;
  out->resize(n, d);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < d; j++) out->at(i, j) = model.embed.at(ids[i], j) + p.at(i, j);
  }
}

// dembed[ids[i]] += dx₀[i]; dP[i] = dx₀[i] for learned positions (rows from n on stay 0).
void encoder_backward(const Model& model, const std::vector<int>& ids, const Matrix& dx, Model* g) {
  for (int i = 0; i < dx.rows; i++) {
    for (int j = 0; j < dx.cols; j++) {
      g->embed.at(ids[i], j) += dx.at(i, j);
      if (!model.sinusoidal) g->positions.at(i, j) += dx.at(i, j);
    }
  }
}

// out = (x − mean) / √(var + eps) · gain + bias per row, var the biased variance; keeps each
// row's mean and rstd = 1/√(var + eps) (n) for the backward pass.
void layernorm_forward(const Matrix& x, const Norm& norm, Matrix* out, std::vector<double>* mean,
                       std::vector<double>* rstd) {
  const int d = x.cols;
  out->resize(x.rows, d);
  mean->resize(x.rows);
  rstd->resize(x.rows);
  for (int i = 0; i < x.rows; i++) {
    const double* row = &x.data[static_cast<size_t>(i) * d];
    double m = 0.0;
    for (int j = 0; j < d; j++) m += row[j];
    m /= d;
    double var = 0.0;
    for (int j = 0; j < d; j++) var += (row[j] - m) * (row[j] - m);
    var /= d;
    const double s = 1.0 / std::sqrt(var + kLayerNormEps);
    for (int j = 0; j < d; j++) out->at(i, j) = (row[j] - m) * s * norm.gain[j] + norm.bias[j];
    (*mean)[i] = m;
    (*rstd)[i] = s;
  }
}

// dx += LN's input gradient from dy (both (n, d_model)); dgain, dbias += their gradients.
//   x̂ = (x − mean)·rstd, dx̂ = dy ⊙ gain, dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂ ⊙ x̂)) per row
void layernorm_backward(const Matrix& dy, const Matrix& x, const std::vector<double>& mean,
                        const std::vector<double>& rstd, const Norm& norm, Matrix* dx, Norm* g) {
  const int d = x.cols;
  for (int i = 0; i < x.rows; i++) {
    double mean_dxhat = 0.0, mean_dxhat_xhat = 0.0;
    for (int j = 0; j < d; j++) {
      const double xhat = (x.at(i, j) - mean[i]) * rstd[i];
      const double dxhat = dy.at(i, j) * norm.gain[j];
      mean_dxhat += dxhat;
      mean_dxhat_xhat += dxhat * xhat;
      g->gain[j] += dy.at(i, j) * xhat;
      g->bias[j] += dy.at(i, j);
    }
    mean_dxhat /= d;
    mean_dxhat_xhat /= d;
    for (int j = 0; j < d; j++) {
      const double xhat = (x.at(i, j) - mean[i]) * rstd[i];
      const double dxhat = dy.at(i, j) * norm.gain[j];
      dx->at(i, j) += rstd[i] * (dxhat - mean_dxhat - xhat * mean_dxhat_xhat);
    }
  }
}

// out = x·W (+ b on every row).
void linear_forward(const Matrix& x, const Matrix& w, const std::vector<double>& b, Matrix* out,
                    MatmulScratch* scratch) {
  matmul(x, w, out, scratch);
  if (!b.empty()) add_to_rows(b, out);
}

// From dout = dL/d(x·W + b): dW = xᵀ·dout, db = column sums of dout (with a bias), and
// dx = dout·Wᵀ.
void linear_backward(const Matrix& dout, const Matrix& x, const Matrix& w, bool has_bias,
                     Matrix* dx, Matrix* dw, std::vector<double>* db, MatmulScratch* scratch) {
  matmul_transposed_left(x, dout, dw, scratch);
  if (has_bias) column_sums(dout, db);
  matmul_transposed(dout, w, dx, scratch);
}

double activation(Activation kind, double x) {
  if (kind == Activation::relu) return x > 0 ? x : 0.0;
  return 0.5 * x * (1.0 + std::erf(x * kSqrtHalf));  // GELU, exact (erf) form
}

// d act(x) / dx: GELU's Φ(x) + x·φ(x); ReLU's 1 for x > 0, else 0 (torch's choice at 0).
double activation_slope(Activation kind, double x) {
  if (kind == Activation::relu) return x > 0 ? 1.0 : 0.0;
  const double cdf = 0.5 * (1.0 + std::erf(x * kSqrtHalf));
  const double pdf = kInvSqrt2Pi * std::exp(-0.5 * x * x);
  return cdf + x * pdf;
}

void activation_forward(Activation kind, const Matrix& x, Matrix* out) {
  out->resize(x.rows, x.cols);
  for (size_t i = 0; i < x.data.size(); i++) out->data[i] = activation(kind, x.data[i]);
}

// dx = dout ⊙ act'(x)
void activation_backward(Activation kind, const Matrix& dout, const Matrix& x, Matrix* dx) {
  dx->resize(x.rows, x.cols);
  for (size_t i = 0; i < x.data.size(); i++) {
    dx->data[i] = dout.data[i] * activation_slope(kind, x.data[i]);
  }
}

// The mean cross-entropy over positions with a target, and its gradient at the logits:
//   L = Σ_(i: t_i ≥ 0) (logsumexp(logits[i]) − logits[i][t_i]) / count
//   dlogits[i] = (probabilities[i] − onehot(t_i)) / count, 0 for rows without a target
double crossentropy_forward_backward(const Matrix& logits, const Matrix& probabilities,
                                     const std::vector<int>& targets, Matrix* dlogits) {
  int counted = 0;
  for (int t : targets) counted += t >= 0;
  dlogits->resize(logits.rows, logits.cols);
  std::fill(dlogits->data.begin(), dlogits->data.end(), 0.0);
  double loss = 0.0;
  for (int i = 0; i < logits.rows; i++) {
    if (targets[i] < 0) continue;
    double max = logits.at(i, 0);
    for (int j = 1; j < logits.cols; j++) max = std::max(max, logits.at(i, j));
    double sum = 0.0;  // of exp(logit − max): no overflow, and at least 1
    for (int j = 0; j < logits.cols; j++) sum += std::exp(logits.at(i, j) - max);
    loss += max + std::log(sum) - logits.at(i, targets[i]);
    for (int j = 0; j < logits.cols; j++) dlogits->at(i, j) = probabilities.at(i, j) / counted;
    dlogits->at(i, targets[i]) -= 1.0 / counted;
  }
  return loss / counted;
}

// zeros of m's shape
Matrix zeros_like(const Matrix& m) { return Matrix(m.rows, m.cols); }

std::vector<double> zeros_like(const std::vector<double>& v) {
  return std::vector<double>(v.size(), 0.0);
}

Norm zeros_like(const Norm& n) { return Norm{zeros_like(n.gain), zeros_like(n.bias)}; }

bool head_off(const RunOptions& options, int l, int h) {
  return !options.heads_off.empty() && !options.heads_off[l].empty() &&
         options.heads_off[l][h] != 0;
}

Error check_run_options(const Model& model, const RunOptions& options) {
  if (options.heads_off.empty()) return Error{};
  const int n_layers = static_cast<int>(model.layers.size());
  if (static_cast<int>(options.heads_off.size()) != n_layers) {
    return model_error(
        ErrorCode::shape, "headsOff", "headsOff", -1, -1,
        "headsOff has " + count(static_cast<long long>(options.heads_off.size()), "entry") +
            " but the model has " + count(n_layers, "layer") + ": one list of heads per layer");
  }
  for (int l = 0; l < n_layers; l++) {
    const size_t n = options.heads_off[l].size();
    if (n != 0 && n != model.layers[l].heads.size()) {
      return model_error(ErrorCode::shape, "headsOff", "headsOff", l, -1,
                         "headsOff[" + std::to_string(l) + "] has " +
                             count(static_cast<long long>(n), "flag") + " but " + layer_path(l) +
                             " has " +
                             count(static_cast<long long>(model.layers[l].heads.size()), "head"));
    }
  }
  return Error{};
}

// The values one run keeps, before it allocates them (attention cells, MLP and logits).
Error check_run_size(const Model& model, int n) {
  long long values = 2LL * n * model.vocab;
  for (const Layer& layer : model.layers) {
    values += 3LL * static_cast<long long>(layer.heads.size()) * n * n;
    if (layer.has_mlp) values += 2LL * n * layer.mlp.w1.cols;
  }
  if (values > kMaxModelRunValues) {
    return model_error(ErrorCode::limit, "ids", "ids", -1, -1,
                       "this run would keep " + std::to_string(values) +
                           " values (every layer's scores, scaled scores and weights, the MLP's "
                           "and the logits), more than the " +
                           std::to_string(kMaxModelRunValues) +
                           " supported: use fewer tokens or a smaller model");
  }
  return Error{};
}

// A layer's error from multi_head_attention(): its path and layer ("layers[1].heads[0].q").
Error in_layer(Error err, int l) {
  const std::string prefix = layer_path(l) + ".";
  err.layer = l;
  err.path = prefix + head_label(err.head, err.operand);
  err.message = prefix + err.message;
  return err;
}

}  // namespace

Error run_model(const Model& model, const std::vector<int>& ids, const RunOptions& options,
                ModelRun* run) {
  Error err = check_model(model);
  if (!err.ok()) return err;
  if (!(err = check_run_options(model, options)).ok()) return err;
  const int n = static_cast<int>(ids.size());
  if (!(err = check_ids(model, "ids", ids.data(), n, false)).ok()) return err;
  if (!(err = check_run_size(model, n)).ok()) return err;
  const int n_layers = static_cast<int>(model.layers.size());
  run->ids = ids;
  run->residual.resize(n_layers + 1);
  run->after_attention.resize(n_layers);
  run->layers.resize(n_layers);
  MatmulScratch* s = &run->scratch;

  encoder_forward(model, ids, &run->residual[0]);  // x₀ (n, d_model)
  if (!(err = check_step("residual[0]", -1, run->residual[0], "the embedding")).ok()) return err;
  for (int l = 0; l < n_layers; l++) {
    const Layer& w = model.layers[l];
    LayerRun& r = run->layers[l];
    const Matrix& x = run->residual[l];  // (n, d_model), the layer's input
    const std::string lp = layer_path(l);

    // attention: a = norm1 ? LN(x) : x, the heads read a (no W_O inside: the layer's own, below)
    MultiHeadInput& a = r.attention_input;
    if (w.norm1.present()) {
      layernorm_forward(x, w.norm1, &a.x, &r.norm1_mean, &r.norm1_rstd);
    } else {
      a.x = x;
    }
    a.heads = w.heads;
    a.wo = Matrix{};
    a.options = AttentionOptions{};
    a.options.causal = model.causal;  // query i sees keys j ≤ i
    if (!(err = multi_head_attention(a, &r.attention)).ok()) return in_layer(err, l);
    // a head switched off enters the concatenation as 0: columns h·d_v … (h+1)·d_v − 1
    const int d_v = w.heads[0].wv.cols;
    for (int h = 0; h < static_cast<int>(w.heads.size()); h++) {
      if (!head_off(options, l, h)) continue;
      for (int i = 0; i < n; i++) {
        std::fill_n(&r.attention.concat.at(i, h * d_v), d_v, 0.0);
      }
    }
    linear_forward(r.attention.concat, w.wo, w.bo, &r.attention_output, s);  // (n, d_model)
    add(x, r.attention_output, &run->after_attention[l]);                    // the residual
    err = check_step(lp + ".attention.output", l, r.attention_output, "the attention's output");
    if (!err.ok()) return err;

    // MLP: m = norm2 ? LN(x) : x, x += act(m·W1 + b1)·W2 + b2
    const Matrix& mid = run->after_attention[l];
    if (!w.has_mlp) {
      run->residual[l + 1] = mid;
      continue;
    }
    if (w.norm2.present()) {
      layernorm_forward(mid, w.norm2, &r.mlp_input, &r.norm2_mean, &r.norm2_rstd);
    } else {
      r.mlp_input = mid;
    }
    linear_forward(r.mlp_input, w.mlp.w1, w.mlp.b1, &r.hidden, s);      // (n, f)
    activation_forward(w.mlp.activation, r.hidden, &r.activated);       // (n, f)
    linear_forward(r.activated, w.mlp.w2, w.mlp.b2, &r.mlp_output, s);  // (n, d_model)
    add(mid, r.mlp_output, &run->residual[l + 1]);
    if (!(err = check_step(lp + ".mlp.hidden", l, r.hidden, "the MLP's")).ok()) return err;
    if (!(err = check_step(lp + ".mlp.output", l, r.mlp_output, "the MLP's")).ok()) return err;
  }

  // logits = (finalNorm ? LN(x_L) : x_L)·U + b_U, U = embedᵀ when tied
  const Matrix& last = run->residual[n_layers];
  if (model.final_norm.present()) {
    layernorm_forward(last, model.final_norm, &run->final_input, &run->final_mean,
                      &run->final_rstd);
  } else {
    run->final_input = last;
  }
  if (model.tied) {
    matmul_transposed(run->final_input, model.embed, &run->logits, s);  // (n, vocab)
    if (!model.unembed_bias.empty()) add_to_rows(model.unembed_bias, &run->logits);
  } else {
    linear_forward(run->final_input, model.unembed, model.unembed_bias, &run->logits, s);
  }
  if (!(err = check_step("logits", -1, run->logits, "the")).ok()) return err;
  softmax_rows(run->logits, &run->probabilities);  // (n, vocab), each row sums to 1
  return Error{};
}

Error model_gradients(const Model& model, const std::vector<int>& ids,
                      const std::vector<int>& targets, const RunOptions& options, ModelRun* run,
                      double* loss, Model* gradients) {
  if (targets.size() != ids.size()) {
    return model_error(ErrorCode::shape, "targets", "targets", -1, -1,
                       "targets has " + count(static_cast<long long>(targets.size()), "id") +
                           " but ids has " + std::to_string(ids.size()) +
                           ": one target per position (-1 for no loss there)");
  }
  if (std::none_of(targets.begin(), targets.end(), [](int t) { return t >= 0; })) {
    return model_error(ErrorCode::empty, "targets", "targets", -1, -1,
                       "targets has no position with a loss: every target is -1");
  }
  Error err = run_model(model, ids, options, run);
  if (!err.ok()) return err;
  err = check_ids(model, "targets", targets.data(), static_cast<int>(targets.size()), true);
  if (!err.ok()) return err;
  const int n_layers = static_cast<int>(model.layers.size());
  MatmulScratch* s = &run->scratch;

  // the gradients start at 0, in the model's structure (absent arrays stay absent)
  Model& g = *gradients;
  g = Model{};
  g.vocab = model.vocab;
  g.d_model = model.d_model;
  g.max_tokens = model.max_tokens;
  g.causal = model.causal;
  g.sinusoidal = model.sinusoidal;
  g.tied = model.tied;
  g.embed = zeros_like(model.embed);
  g.positions = zeros_like(model.positions);
  g.final_norm = zeros_like(model.final_norm);
  g.unembed = zeros_like(model.unembed);
  g.unembed_bias = zeros_like(model.unembed_bias);
  g.layers.resize(n_layers);

  // the loss and dL/dlogits (n, vocab)
  Matrix dlogits;
  *loss = crossentropy_forward_backward(run->logits, run->probabilities, targets, &dlogits);
  // finite logits far apart (1e308 and -1e308) give a loss past float64: an overflow, not Infinity
  if (!std::isfinite(*loss)) {
    return model_error(ErrorCode::overflow, "loss", "loss", -1, -1,
                       "the loss is not finite: the logits are too far apart for float64; use "
                       "smaller values");
  }

  // the unembedding: dfinal (n, d_model)
  Matrix dfinal;
  if (model.tied) {
    matmul(dlogits, model.embed, &dfinal, s);                        // dlogits·embed
    matmul_transposed_left(dlogits, run->final_input, &g.embed, s);  // dlogitsᵀ·F (vocab, d_model)
    if (!model.unembed_bias.empty()) column_sums(dlogits, &g.unembed_bias);
  } else {
    linear_backward(dlogits, run->final_input, model.unembed, !model.unembed_bias.empty(), &dfinal,
                    &g.unembed, &g.unembed_bias, s);
  }
  Matrix dx;  // dL/d(the residual stream) (n, d_model), from x_L back to x₀
  if (model.final_norm.present()) {
    dx = zeros_like(dfinal);
    layernorm_backward(dfinal, run->residual[n_layers], run->final_mean, run->final_rstd,
                       model.final_norm, &dx, &g.final_norm);
  } else {
    dx = dfinal;
  }

  Matrix dact, dhidden, dm, dconcat;
  Gradients attention;  // one layer's attention backward pass
  for (int l = n_layers - 1; l >= 0; l--) {
    const Layer& w = model.layers[l];
    const LayerRun& r = run->layers[l];
    Layer& gl = g.layers[l];
    gl.norm1 = zeros_like(w.norm1);
    gl.norm2 = zeros_like(w.norm2);
    gl.has_mlp = w.has_mlp;

    // MLP: x_out = mid + mlp_output, so dmid = dx + the MLP's input gradient
    if (w.has_mlp) {
      gl.mlp.activation = w.mlp.activation;
      linear_backward(dx, r.activated, w.mlp.w2, !w.mlp.b2.empty(), &dact, &gl.mlp.w2, &gl.mlp.b2,
                      s);
      activation_backward(w.mlp.activation, dact, r.hidden, &dhidden);
      linear_backward(dhidden, r.mlp_input, w.mlp.w1, !w.mlp.b1.empty(), &dm, &gl.mlp.w1,
                      &gl.mlp.b1, s);
      if (w.norm2.present()) {
        layernorm_backward(dm, run->after_attention[l], r.norm2_mean, r.norm2_rstd, w.norm2, &dx,
                           &gl.norm2);
      } else {
        add(dx, dm, &dx);
      }
    }

    // attention: mid = x + concat·W_O + b_O, so dx_in = dmid + the attention's input gradient
    linear_backward(dx, r.attention.concat, w.wo, !w.bo.empty(), &dconcat, &gl.wo, &gl.bo, s);
    const int d_v = w.heads[0].wv.cols;
    for (int h = 0; h < static_cast<int>(w.heads.size()); h++) {
      if (!head_off(options, l, h)) continue;  // a head switched off does not reach the loss
      for (int i = 0; i < dconcat.rows; i++) std::fill_n(&dconcat.at(i, h * d_v), d_v, 0.0);
    }
    Seed seed;
    seed.output = std::move(dconcat);
    err = backpropagate(r.attention_input, r.attention, seed, nullptr, &attention);
    if (!err.ok()) return in_layer(err, l);
    dconcat = std::move(seed.output);
    gl.heads = attention.input.heads;      // dW_Q, dW_K, dW_V and the biases' gradients
    const Matrix& da = attention.input.x;  // dL/da (n, d_model)
    if (w.norm1.present()) {
      layernorm_backward(da, run->residual[l], r.norm1_mean, r.norm1_rstd, w.norm1, &dx, &gl.norm1);
    } else {
      add(dx, da, &dx);
    }
    err = check_step(layer_path(l), l, dx, "the gradient of the input of");
    if (!err.ok()) return err;
  }
  encoder_backward(model, ids, dx, &g);
  // every gradient finite, or an overflow (the steps above check the residual stream's)
  bool finite = true;
  for_each_array(g, [&](const std::vector<double>& v) {
    for (double x : v) finite = finite && std::isfinite(x);
  });
  if (!finite) {
    return model_error(ErrorCode::overflow, "gradients", "gradients", -1, -1,
                       "a gradient is not finite: the values are too large for float64; use "
                       "smaller values");
  }
  return Error{};
}

Error check_batch_count(long long n_batches) {
  if (n_batches == 0) {
    return model_error(ErrorCode::empty, "batches", "batches", -1, -1,
                       "batches is empty: it needs at least one { ids, targets }");
  }
  if (n_batches > kMaxBatches) {
    return too_large("batches", "the number of batches", n_batches, kMaxBatches,
                     "train in several calls");
  }
  return Error{};
}

Error train_model(const Model& start, const std::vector<Batch>& batches,
                  const ModelTrainOptions& options, Model* trained, std::vector<double>* losses) {
  Error err = check_model(start);
  if (!err.ok()) return err;
  if (!std::isfinite(options.learning_rate)) {
    return model_error(ErrorCode::not_finite, "learningRate", "learningRate", -1, -1,
                       "learningRate must be a finite number > 0");
  }
  if (options.learning_rate <= 0) {
    std::ostringstream msg;
    msg << "learningRate is " << options.learning_rate << ": it must be > 0";
    return model_error(ErrorCode::range, "learningRate", "learningRate", -1, -1, msg.str());
  }
  if (!(err = check_batch_count(static_cast<long long>(batches.size()))).ok()) return err;

  Model p = start;  // the parameters as they train
  std::vector<std::vector<double>*> values;
  for_each_array(p, [&](std::vector<double>& v) { values.push_back(&v); });
  size_t total = 0;
  for (const auto* v : values) total += v->size();
  const bool adam = options.optimizer == Optimizer::adam;
  std::vector<double> m(adam ? total : 0, 0.0), v(adam ? total : 0, 0.0);  // Adam's moments
  std::vector<double> out_losses;
  ModelRun run;
  Model g;
  for (size_t b = 0; b < batches.size(); b++) {
    double loss = 0.0;
    err = model_gradients(p, batches[b].ids, batches[b].targets, RunOptions{}, &run, &loss, &g);
    if (!err.ok()) {
      const std::string prefix = "batches[" + std::to_string(b) + "]";
      if (err.path == "ids" || err.path == "targets") err.path = prefix + "." + err.path;
      err.message = prefix + ": " + err.message;
      return err;
    }
    out_losses.push_back(loss);
    std::vector<const std::vector<double>*> grads;
    for_each_array(static_cast<const Model&>(g),
                   [&](const std::vector<double>& d) { grads.push_back(&d); });
    size_t at = 0;
    for (size_t q = 0; q < values.size(); q++) {
      std::vector<double>& x = *values[q];
      optimizer_update(options.optimizer, options.learning_rate, static_cast<long long>(b) + 1,
                       x.size(), x.data(), grads[q]->data(), adam ? &m[at] : nullptr,
                       adam ? &v[at] : nullptr);
      at += x.size();
      for (double value : x) {
        if (!std::isfinite(value)) {
          return model_error(ErrorCode::overflow, "learningRate", "learningRate", -1, -1,
                             "training step " + std::to_string(b + 1) +
                                 ": a parameter is no longer finite: use a smaller learning rate");
        }
      }
    }
  }
  *trained = std::move(p);
  *losses = std::move(out_losses);
  return Error{};
}

}  // namespace attn
