#include <algorithm>
#include <cmath>

#include "model_parts.h"

// The layer kinds of a model (model_parts.h), each forward with its backward next to it, and the
// checks of a step that forward and backward share.
namespace attn {
namespace model_parts {

namespace {

constexpr double kLayerNormEps = 1e-5;                  // torch.nn.LayerNorm's default
constexpr double kSqrtHalf = 0.70710678118654752440;    // 1/√2
constexpr double kInvSqrt2Pi = 0.39894228040143267794;  // 1/√(2π)

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

}  // namespace

// The first non-finite element of the step `path` (of layer `layer`), an overflow: "<what>
// <path>[i][j] is Infinity: …".
Error check_step(const std::string& path, int layer, const Matrix& m, const char* what) {
  Error e = check_finite(m, ErrorCode::overflow, leaf(path), std::string(what) + " " + path,
                         "the values are too large for float64 (products overflow); use smaller "
                         "values");
  return e.ok() ? e : e.with_path(path).in_layer(layer);
}

// A layer's error from multi_head_attention(): its path and layer ("layers[1].heads[0].q").
Error in_layer(Error err, int l) {
  const std::string prefix = layer_path(l) + ".";
  err.layer = l;
  err.path = prefix + (err.head < 0 ? "" : head_name(err.head) + ".") + err.operand;
  return err.prefixed(prefix);
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

}  // namespace model_parts
}  // namespace attn
